/**
 * What the redactor looks for (`redactor.ts`): the kinds of secret, the built-in token patterns
 * (each bounded by {@linkcode MAX_TOKEN_MATCH_CHARS}), and the words that make a key's values
 * secret.
 *
 * @module
 */

/**
 * Why a value was redacted, shown as `[REDACTED:<kind>]`:
 *
 * - `secret_env`: the value of a listed environment variable (config `audit.secret_env`).
 * - `private_key`: a PEM private key block (`-----BEGIN RSA PRIVATE KEY-----`, `OPENSSH`, `EC`,
 *   `ENCRYPTED`, `PGP PRIVATE KEY BLOCK`...); an unterminated block is redacted to the end.
 * - `anthropic_key`, `openai_key`: `sk-ant-...` and `sk-...` API keys (`sk-proj-`, `sk-svcacct-`).
 * - `github_token`: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` tokens and `github_pat_` tokens.
 * - `gitlab_token`: `glpat-`, `gldt-`, `glrt-`, `glptt-`, `glcbt-`, `glft-` tokens.
 * - `aws_access_key_id`: `AKIA` (long-term) or `ASIA` (temporary) and 16 upper-case letters or
 *   digits.
 * - `slack_token`: `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-` tokens.
 * - `npm_token`: `npm_` and 36 or more letters or digits.
 * - `pypi_token`: `pypi-AgE...` upload tokens (pypi.org and test.pypi.org macaroons).
 * - `google_api_key`: `AIza` and 35 letters, digits, `_` or `-`.
 * - `stripe_key`: `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` keys.
 * - `url_credentials`: the `user:password` of a URL (`https://user:password@host/...`, as
 *   `git remote -v` prints a CI checkout's remote).
 * - `bearer_token`: the token after `Bearer ` (the word is kept).
 * - `basic_credentials`: the base64 after `Basic ` (any case; the word is kept) when it decodes to
 *   `user:password` with a password of a token's length (see
 *   {@linkcode isBasicCredential}), as `actions/checkout` persists the job's token in
 *   `.git/config` (`AUTHORIZATION: basic <base64 of x-access-token:ghs_…>`); and that base64 of
 *   `x-access-token:…` wherever it appears, without the word.
 * - `authorization_token`: the credentials of an `Authorization: token <value>` header (GitHub's
 *   scheme; the header name and the word are kept).
 * - `jwt`: a JSON Web Token, `eyJ<header>.eyJ<payload>.<signature>` (base64url).
 * - `key_name`: a string under a key named like a secret (`password`, `api_key`, `Authorization`...).
 *
 * Hex strings (git object names, sha256 digests), UUIDs and ordinary words are never token
 * patterns: every pattern needs its prefix, and starts and ends at a word boundary.
 */
export type RedactionKind =
  | "secret_env"
  | "private_key"
  | "anthropic_key"
  | "openai_key"
  | "github_token"
  | "gitlab_token"
  | "aws_access_key_id"
  | "slack_token"
  | "npm_token"
  | "pypi_token"
  | "google_api_key"
  | "stripe_key"
  | "url_credentials"
  | "bearer_token"
  | "basic_credentials"
  | "authorization_token"
  | "jwt"
  | "key_name";

/**
 * Longest text one built-in token pattern matches, in UTF-16 code units (16 Ki: longer than any
 * real API key, and than a PEM private key of RSA 16384 bits). A longer run of token characters is
 * redacted for its first part only. Streams are redacted in pieces that overlap by at least this
 * much (see `Redactor.maxMatchChars`), so the bound is also what a stream holds back.
 */
export const MAX_TOKEN_MATCH_CHARS = 16 * 1024;

/** Longest token body a pattern repeats (the prefix and the PEM lines fit in the rest). */
const BODY = MAX_TOKEN_MATCH_CHARS - 256;

/**
 * Shortest text any pattern here (or a secret value, at least 8 characters) can find something
 * in, in UTF-16 code units: a URL's credentials, `://u:p` followed by `@`, need 7. A shorter text
 * holds nothing to redact, so the redactor returns it as it is without running a pattern.
 */
export const MIN_REDACTED_TEXT_CHARS = 7;

/** A token format and the kind it is redacted as. */
export interface TokenPattern {
  kind: RedactionKind;
  pattern: RegExp;
}

/**
 * PEM private key blocks, found first (a block's lines are full of token characters). An
 * unterminated block is redacted to the end of the text or {@linkcode MAX_TOKEN_MATCH_CHARS},
 * whichever comes first.
 */
export const PRIVATE_KEY_PATTERN: TokenPattern = {
  kind: "private_key",
  pattern: new RegExp(
    `-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]{0,${BODY}}?-----END ` +
      `[A-Z0-9 ]{0,64}PRIVATE KEY(?: BLOCK)?-----|[\\s\\S]{0,${BODY}})`,
    "g",
  ),
};

/**
 * Built-in token patterns, in order of preference where two match at the same place (Anthropic
 * keys before OpenAI's, whose pattern they also match). They run as one alternation (one pass over
 * the text, the leftmost match winning; see `tokenStage` in `redactor.ts`). The look-behinds keep a
 * pattern from starting inside a longer word (`risk-assessment-...` is not an `sk-` key). Every
 * pattern matches at most {@linkcode MAX_TOKEN_MATCH_CHARS} code units. No pattern may hold a
 * capturing group.
 */
export const TOKEN_PATTERNS: readonly TokenPattern[] = [
  {
    kind: "anthropic_key",
    pattern: new RegExp(`(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,${BODY}}`, "g"),
  },
  {
    kind: "openai_key",
    pattern: new RegExp(`(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,${BODY}}`, "g"),
  },
  {
    kind: "github_token",
    pattern: new RegExp(`(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,${BODY}}`, "g"),
  },
  {
    kind: "github_token",
    pattern: new RegExp(`(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,${BODY}}`, "g"),
  },
  {
    kind: "gitlab_token",
    pattern: new RegExp(
      `(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|ft)-[A-Za-z0-9_-]{20,${BODY}}`,
      "g",
    ),
  },
  {
    kind: "aws_access_key_id",
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])/g,
  },
  {
    kind: "slack_token",
    pattern: new RegExp(`(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,${BODY}}`, "g"),
  },
  {
    kind: "npm_token",
    pattern: new RegExp(`(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36,${BODY}}`, "g"),
  },
  {
    kind: "pypi_token",
    pattern: new RegExp(`(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50,${BODY}}`, "g"),
  },
  {
    kind: "google_api_key",
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
  },
  {
    // `x-access-token:` in base64 (15 bytes, so its 20 characters never depend on what follows):
    // the Basic credentials of a GitHub Actions job token, found without the `basic` before them.
    kind: "basic_credentials",
    pattern: new RegExp(
      `(?<![A-Za-z0-9+/])eC1hY2Nlc3MtdG9rZW46[A-Za-z0-9+/]{20,${BODY}}={0,2}`,
      "g",
    ),
  },
  {
    kind: "stripe_key",
    pattern: new RegExp(
      `(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[0-9A-Za-z]{20,${BODY}}`,
      "g",
    ),
  },
];

/**
 * `://user:password@` in a URL: the `://` stays (a literal start keeps the scan fast; a
 * look-behind for the scheme in the token alternation made every pass three times slower).
 */
export const URL_CREDENTIALS_PATTERN = /:\/\/[^\s/?#@:]{1,256}:[^\s/?#@]{1,4096}(?=@)/g;

/** Longest JWT header and signature a pattern repeats (a 4096-bit RSA signature is 683). */
const JWT_EDGE = 1024;
/** Longest JWT payload a pattern repeats: the three parts and two dots stay under the bound. */
const JWT_PAYLOAD = BODY - 2 * JWT_EDGE - 16;

/**
 * Patterns applied after bearer tokens, so that `Bearer <jwt>` stays a bearer token (the scheme
 * word kept) and a JWT anywhere else is still found. A JWT cut before its signature (or whose
 * payload runs past the bound) is redacted as far as it goes.
 */
export const LATE_TOKEN_PATTERNS: readonly TokenPattern[] = [
  {
    kind: "jwt",
    pattern: new RegExp(
      `(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,${JWT_EDGE}}\\.eyJ[A-Za-z0-9_-]{8,${JWT_PAYLOAD}}` +
        `(?:\\.[A-Za-z0-9_-]{0,${JWT_EDGE}})?`,
      "g",
    ),
  },
];

/** `Bearer <token>`: the scheme word stays, the token (8+ token68 characters) goes. */
export const BEARER_PATTERN = new RegExp(
  `(?<![A-Za-z])(Bearer|bearer|BEARER)([ \\t]{1,64})[A-Za-z0-9._~+/-]{8,${BODY}}={0,64}`,
  "g",
);

/**
 * `Basic <base64>` (the scheme word in any case): the word and the blanks stay, the base64 goes
 * when {@linkcode isBasicCredential} says it holds a password. Capturing groups: the word, the
 * blanks, the base64.
 */
export const BASIC_CREDENTIALS_PATTERN = new RegExp(
  `(?<![A-Za-z])([Bb][Aa][Ss][Ii][Cc])([ \t]{1,64})([A-Za-z0-9+/]{8,${BODY}}={0,2})`,
  "g",
);

/**
 * `Authorization: token <value>` (GitHub's scheme; any case): the header name, the word and the
 * blanks stay, the value (8+ token68 characters, a digit among them, so that "token required" in
 * prose stays) goes. Capturing group: what stays.
 */
export const AUTHORIZATION_TOKEN_PATTERN = new RegExp(
  `(?<![A-Za-z])([Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]["']?[ \t]{0,64}[:=]` +
    `[ \t]{0,64}["']?[Tt][Oo][Kk][Ee][Nn][ \t]{1,64})(?=[A-Za-z._~+/-]{0,256}[0-9])` +
    `[A-Za-z0-9._~+/-]{8,${BODY}}={0,64}`,
  "g",
);

/**
 * Shortest password that makes Basic credentials secret, in characters: the shortest secret value
 * the redactor takes, and shorter than every token shape (a GitHub token has 40).
 */
export const MIN_BASIC_PASSWORD_CHARS = 8;

const basicDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Tells whether a base64 text (standard alphabet, padding optional) is Basic credentials worth
 * redacting: it decodes to UTF-8 text without control characters, `user:password`, whose password
 * has at least {@linkcode MIN_BASIC_PASSWORD_CHARS} characters (every token shape does). Ordinary base64 (an image, a digest, `basic authentication` in
 * prose) decodes to no such text.
 *
 * @example
 * ```ts
 * import { isBasicCredential } from "./_secret_patterns.ts";
 * console.assert(isBasicCredential(btoa("x-access-token:ghs_0123456789abcdef")));
 * console.assert(!isBasicCredential(btoa("user:pw")) && !isBasicCredential("authentication"));
 * ```
 */
export function isBasicCredential(encoded: string): boolean {
  const body = encoded.replace(/=+$/, "");
  if (body.length % 4 === 1) return false;
  let text: string;
  try {
    const binary = atob(body + "=".repeat((4 - (body.length % 4)) % 4));
    text = basicDecoder.decode(Uint8Array.from(binary, (character) => character.charCodeAt(0)));
  } catch {
    return false;
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return false;
  const colon = text.indexOf(":");
  return colon >= 0 && text.length - colon - 1 >= MIN_BASIC_PASSWORD_CHARS;
}

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

/** Tells whether a key names a secret, by its words (`apiKey` → `api`, `key`). */
export function isSecretKey(key: string): boolean {
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
