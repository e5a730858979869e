/**
 * Redaction of secrets from everything the run writes: logs, results and artifacts.
 *
 * @module
 */

/**
 * Why a value was redacted, shown as `[REDACTED:<kind>]`:
 *
 * - `secret_env`: the value of a listed environment variable (config `audit.secret_env`).
 * - `private_key`: a PEM private key block (an unterminated block is redacted to the end).
 * - `anthropic_key`, `openai_key`: `sk-ant-...` and `sk-...` API keys.
 * - `github_token`: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` tokens and `github_pat_` tokens.
 * - `aws_access_key_id`: `AKIA` followed by 16 upper-case letters or digits.
 * - `slack_token`: `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-` tokens.
 * - `bearer_token`: the token after `Bearer ` (the word is kept).
 * - `key_name`: a string under a key named like a secret (`password`, `api_key`, `Authorization`...).
 */
export type RedactionKind =
  | "secret_env"
  | "private_key"
  | "anthropic_key"
  | "openai_key"
  | "github_token"
  | "aws_access_key_id"
  | "slack_token"
  | "bearer_token"
  | "key_name";

/** Options of {@linkcode Redactor}. */
export interface RedactorOptions {
  /**
   * Secret values to redact wherever they appear. Values shorter than
   * {@linkcode MIN_SECRET_LENGTH} characters are ignored.
   */
  secrets: readonly string[];
}

/**
 * Shortest secret value redacted, in characters. A short value such as `abc` or `true` would also
 * redact ordinary words and numbers everywhere, making logs unreadable while protecting nothing
 * (such a value is guessable anyway).
 */
export const MIN_SECRET_LENGTH = 8;

interface TokenPattern {
  kind: RedactionKind;
  pattern: RegExp;
}

/**
 * Built-in token patterns, in order: a match is replaced before the next pattern runs (Anthropic
 * keys before OpenAI's, whose pattern they also match). The look-behinds keep a pattern from
 * starting inside a longer word (`risk-assessment-...` is not an `sk-` key).
 */
const TOKEN_PATTERNS: readonly TokenPattern[] = [
  {
    kind: "private_key",
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  },
  { kind: "anthropic_key", pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openai_key", pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g },
  { kind: "github_token", pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,}/g },
  { kind: "github_token", pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/g },
  { kind: "aws_access_key_id", pattern: /(?<![A-Za-z0-9])AKIA[0-9A-Z]{16}(?![0-9A-Za-z])/g },
  { kind: "slack_token", pattern: /(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}/g },
];

/** `Bearer <token>`: the scheme word stays, the token (8+ token68 characters) goes. */
const BEARER_PATTERN = /(?<![A-Za-z])(Bearer|bearer|BEARER)([ \t]+)[A-Za-z0-9._~+/-]{8,}=*/g;

/**
 * Words that make a key's string values secret, compared with the key split into lower-case words
 * (`accessToken`, `ACCESS_TOKEN`, `x-access-token` all give `access`, `token`). `tokens` is
 * deliberately absent: `max_tokens` and `input_tokens` are counts, not secrets.
 */
const SECRET_KEY_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "secrets",
  "token",
  "authorization",
  "apikey",
  "cookie",
]);

/** Word pairs that make a key secret together: `api_key`, `private_key`, `secret_key`... */
const SECRET_KEY_PAIRS: ReadonlySet<string> = new Set(["api key", "private key", "access key"]);

/**
 * Removes secrets from text and values: the values of listed environment variables (at least
 * {@linkcode MIN_SECRET_LENGTH} characters), well-known token formats (see
 * {@linkcode RedactionKind}), and string values under keys named like secrets. Each is replaced by
 * `[REDACTED:<kind>]`.
 *
 * Redaction is applied to what the run writes; it is a safety net, not a guarantee: a secret
 * transformed by a tool (base64, split across lines) is not recognised.
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * const redactor = new Redactor({ secrets: ["hunter2-but-longer"] });
 * console.assert(
 *   redactor.redactText("password is hunter2-but-longer") === "password is [REDACTED:secret_env]",
 * );
 * ```
 */
export class Redactor {
  readonly #secretPattern: RegExp | null;

  /** @param options See {@linkcode RedactorOptions}. */
  constructor(options: RedactorOptions) {
    const values = new Set<string>();
    for (const secret of options.secrets) {
      for (const candidate of [secret, secret.trim()]) {
        if (candidate.length >= MIN_SECRET_LENGTH) values.add(candidate);
      }
    }
    // Longest first, so that a secret containing another is redacted whole.
    const sorted = [...values].sort((left, right) => right.length - left.length);
    this.#secretPattern = sorted.length === 0
      ? null
      : new RegExp(sorted.map((value) => RegExp.escape(value)).join("|"), "g");
  }

  /**
   * Builds a redactor from environment variable names, reading their values with `env` (names with
   * no value are ignored). The reader is a parameter so that this module never reads `Deno.env`.
   *
   * @param names Variable names, e.g. config `audit.secret_env`.
   * @param env Returns a variable's value, or `undefined`; e.g. `(name) => Deno.env.get(name)`.
   * @example
   * ```ts
   * import { Redactor } from "./redactor.ts";
   * const redactor = Redactor.fromEnvironment(["MY_TOKEN"], () => "s3cr3t-value-123");
   * console.assert(redactor.redactText("s3cr3t-value-123") === "[REDACTED:secret_env]");
   * ```
   */
  static fromEnvironment(
    names: readonly string[],
    env: (name: string) => string | undefined,
  ): Redactor {
    const secrets: string[] = [];
    for (const name of names) {
      const value = env(name);
      if (value !== undefined) secrets.push(value);
    }
    return new Redactor({ secrets });
  }

  /**
   * Redacts secret values and token patterns in `text`.
   *
   * @returns The text with each secret replaced by `[REDACTED:<kind>]`.
   */
  redactText(text: string): string {
    let result = text;
    if (this.#secretPattern !== null) {
      result = result.replace(this.#secretPattern, marker("secret_env"));
    }
    for (const { kind, pattern } of TOKEN_PATTERNS) {
      result = result.replace(pattern, marker(kind));
    }
    return result.replace(BEARER_PATTERN, `$1$2${marker("bearer_token")}`);
  }

  /**
   * Deep-copies `value` with every string redacted by {@linkcode Redactor.redactText}, and every
   * string under a key named like a secret (`password`, `client_secret`, `apiKey`,
   * `Authorization`, `access_token`, ...) replaced by `[REDACTED:key_name]`. Object keys are kept.
   * Arrays stay arrays; `Date`s become ISO strings, `Error`s `{ name, message }`, cycles
   * `"[Circular]"`; other values are copied as they are.
   *
   * @returns A new value; `value` is not changed.
   */
  redactValue(value: unknown): unknown {
    return this.#redact(value, false, new Set());
  }

  #redact(value: unknown, secretKey: boolean, ancestors: Set<object>): unknown {
    if (typeof value === "string") {
      return secretKey && value !== "" ? marker("key_name") : this.redactText(value);
    }
    if (typeof value !== "object" || value === null) return value;
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (ancestors.has(value)) return "[Circular]";
    ancestors.add(value);
    try {
      if (Array.isArray(value)) {
        return value.map((item) => this.#redact(item, secretKey, ancestors));
      }
      if (value instanceof Error) {
        return {
          name: this.redactText(value.name),
          message: this.redactText(value.message),
        };
      }
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        Object.defineProperty(copy, key, {
          value: this.#redact(item, isSecretKey(key), ancestors),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    } finally {
      ancestors.delete(value);
    }
  }
}

function marker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

/** Tells whether a key names a secret, by its words (`apiKey` → `api`, `key`). */
function isSecretKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
  for (const [index, word] of words.entries()) {
    if (SECRET_KEY_WORDS.has(word)) return true;
    const next = words[index + 1];
    if (next !== undefined && SECRET_KEY_PAIRS.has(`${word} ${next}`)) return true;
  }
  return false;
}
