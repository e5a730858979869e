/**
 * Redaction of secrets from everything the run writes: logs, results and artifacts.
 *
 * @module
 */

import {
  isSecretKey,
  MAX_TOKEN_MATCH_CHARS,
  MIN_REDACTED_TEXT_CHARS,
  type RedactionKind,
} from "./_secret_patterns.ts";
import { mask, merge, PATTERN_STAGES, type Stage, type StageSpan } from "./_redaction_stages.ts";
import { deeperThanMarker, MAX_VALUE_DEPTH } from "../result/mod.ts";

export { MAX_TOKEN_MATCH_CHARS, type RedactionKind };

/** Options of {@linkcode Redactor}. */
export interface RedactorOptions {
  /**
   * Secret values to redact wherever they appear. Values shorter than
   * {@linkcode MIN_SECRET_LENGTH} characters are ignored.
   */
  secrets: readonly string[];
}

/**
 * One stretch of text to replace: `text.slice(start, end)` becomes `replacement`. Offsets are in
 * UTF-16 code units.
 */
export interface RedactionSpan {
  /** First code unit replaced. */
  start: number;
  /** Code unit just after the last one replaced. */
  end: number;
  /** `[REDACTED:<kind>]`. */
  replacement: string;
}

/**
 * A redaction that can be applied to a text seen in pieces (a stream): called as a function it
 * redacts a whole text; {@linkcode StreamRedaction.spans} says where each replacement falls, so a
 * caller can cut a text where no secret crosses the cut; {@linkcode StreamRedaction.maxMatchChars}
 * bounds how long one replaced stretch can be, so a piece that ends that far before the end of
 * what is known cannot hold the start of an unfinished secret. Made by
 * {@linkcode Redactor.forStreams}.
 */
export interface StreamRedaction {
  /** Redacts `text` whole, like {@linkcode Redactor.redactText}. */
  (text: string): string;
  /** Longest stretch one replacement covers, in UTF-16 code units. */
  readonly maxMatchChars: number;
  /** Where the replacements of `text` fall, sorted, not overlapping; see {@linkcode Redactor.spans}. */
  readonly spans: (text: string) => RedactionSpan[];
}

/**
 * Shortest secret value redacted, in characters. A short value such as `abc` or `true` would also
 * redact ordinary words and numbers everywhere, making logs unreadable while protecting nothing
 * (such a value is guessable anyway).
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Removes secrets from text and values: the values of listed environment variables (at least
 * {@linkcode MIN_SECRET_LENGTH} characters), well-known token formats (see
 * {@linkcode RedactionKind}), and string values under keys named like secrets. Each is replaced by
 * `[REDACTED:<kind>]`.
 *
 * Redaction is applied to what the run writes; it is a safety net, not a guarantee: a secret
 * transformed by a tool (base64, split across lines) is not recognised, except Basic credentials,
 * which are decoded (see {@linkcode RedactionKind}).
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
  readonly #longestSecret: number;
  /**
   * Secret values, private keys, the token patterns, URL credentials, bearer tokens, Basic
   * credentials, `Authorization: token` values, then JWTs: applied in this order.
   */
  readonly #stages: readonly Stage[];
  /**
   * Every stage's pattern as one alternation: it finds something in a text exactly when some stage
   * would (each stage masks only what an earlier one found), so a text it does not match is left
   * as it is after one pass instead of one a stage. Null when the engine refuses to compile the
   * alternation (very long secrets make it "too large"): every text then goes through the stages.
   */
  readonly #anyStage: RegExp | null;
  /** Redacted forms of short texts seen before (names, ids, paths recur in every record). */
  readonly #texts = new Map<string, string>();
  /**
   * The last few long texts redacted, with their results: a call's output is redacted when shaped,
   * then again inside its display and its audit record (three times for a listing of 573
   * entries; issue 16). Compared whole (`===`), which is far cheaper than the stages.
   */
  readonly #recentLong: { text: string; redacted: string }[] = [];
  /** {@linkcode isSecretKey} of the keys seen before. */
  readonly #secretKeys = new Map<string, boolean>();

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
    this.#longestSecret = sorted[0]?.length ?? 0;
    const secretPattern = sorted.length === 0
      ? null
      : new RegExp(sorted.map((value) => RegExp.escape(value)).join("|"), "g");
    const secretStage: Stage[] = secretPattern === null
      ? []
      : [{ kind: "secret_env", pattern: secretPattern, keep: () => 0 }];
    this.#stages = [...secretStage, ...PATTERN_STAGES];
    const sources = this.#stages.flatMap((stage) => stage.sources ?? [stage.pattern.source]);
    this.#anyStage = compiledOrNull(sources.map((source) => `(?:${source})`).join("|"));
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
   * Longest stretch of text one replacement covers, in UTF-16 code units: the longest secret value,
   * or {@linkcode MAX_TOKEN_MATCH_CHARS}, whichever is longer.
   */
  get maxMatchChars(): number {
    return Math.max(this.#longestSecret, MAX_TOKEN_MATCH_CHARS);
  }

  /**
   * Redacts secret values and token patterns in `text`.
   *
   * @returns The text with each secret replaced by `[REDACTED:<kind>]`.
   */
  redactText(text: string): string {
    if (text.length < MIN_REDACTED_TEXT_CHARS) return text;
    if (text.length > CACHED_TEXT_CHARS) return this.#redactLong(text);
    let redacted = this.#texts.get(text);
    if (redacted === undefined) {
      redacted = applySpans(text, this.spans(text));
      if (this.#texts.size >= CACHED_TEXTS) this.#texts.clear();
      this.#texts.set(text, redacted);
    }
    return redacted;
  }

  #redactLong(text: string): string {
    for (const recent of this.#recentLong) if (recent.text === text) return recent.redacted;
    const redacted = applySpans(text, this.spans(text));
    if (text.length <= RECENT_LONG_TEXT_CHARS) {
      this.#recentLong.unshift({ text, redacted });
      if (this.#recentLong.length > RECENT_LONG_TEXTS) this.#recentLong.pop();
    }
    return redacted;
  }

  /**
   * Where {@linkcode Redactor.redactText} replaces text, in order: secret values first, then each
   * token pattern in turn on what the earlier ones left (a replaced stretch is never part of a
   * later match, except of a private key block, which then swallows it). Spans are sorted and do
   * not overlap; each is at most {@linkcode Redactor.maxMatchChars} long.
   *
   * @example
   * ```ts
   * import { Redactor } from "./redactor.ts";
   * const spans = new Redactor({ secrets: ["hunter2-but-longer"] }).spans("pw hunter2-but-longer");
   * console.assert(spans[0]?.start === 3 && spans[0]?.end === 21);
   * ```
   */
  spans(text: string): RedactionSpan[] {
    if (text.length < MIN_REDACTED_TEXT_CHARS) return [];
    if (this.#anyStage !== null && !this.#anyStage.test(text)) return [];
    const found: StageSpan[] = [];
    let masked = text;
    for (const [index, stage] of this.#stages.entries()) {
      const { kind, pattern, keep } = stage;
      const spans: StageSpan[] = [];
      for (const match of masked.matchAll(pattern)) {
        if (stage.accept !== undefined && !stage.accept(match)) continue;
        // A kept prefix (`Bearer `) is part of the span, so that no cut falls between the two.
        const kept = match[0].slice(0, keep(match));
        const end = match.index + match[0].length;
        const found = stage.kindOf?.(match) ?? kind;
        spans.push({ start: match.index, end, replacement: kept + marker(found), stage: index });
      }
      if (spans.length === 0) continue;
      for (const span of spans) found.push(span);
      masked = mask(masked, spans);
    }
    return merge(found);
  }

  /**
   * This redactor as a {@linkcode StreamRedaction}, for output read in pieces (command streams).
   *
   * @example
   * ```ts
   * import { Redactor } from "./redactor.ts";
   * const redact = new Redactor({ secrets: ["hunter2-but-longer"] }).forStreams();
   * console.assert(redact("hunter2-but-longer") === "[REDACTED:secret_env]");
   * console.assert(redact.maxMatchChars >= 18);
   * ```
   */
  forStreams(): StreamRedaction {
    return Object.assign((text: string) => this.redactText(text), {
      maxMatchChars: this.maxMatchChars,
      spans: (text: string) => this.spans(text),
    });
  }

  /**
   * Deep-copies `value` with every string redacted by {@linkcode Redactor.redactText}, and every
   * string under a key named like a secret (`password`, `client_secret`, `apiKey`,
   * `Authorization`, `access_token`, ...) replaced by `[REDACTED:key_name]`. Object keys are kept.
   * Arrays stay arrays; `Date`s become ISO strings, `Error`s `{ name, message }`, cycles
   * `"[Circular]"`; an array or object nested deeper than `MAX_VALUE_DEPTH` (256) levels becomes
   * `"[nested deeper than 256 levels]"` (whatever it held is left out, secrets included: the copy
   * never recurses deeper); other values are copied as they are.
   *
   * @returns A new value; `value` is not changed.
   */
  redactValue(value: unknown): unknown {
    return this.#redact(value, false, new Set(), 0);
  }

  #redact(value: unknown, secretKey: boolean, ancestors: Set<object>, depth: number): unknown {
    if (typeof value === "string") {
      return secretKey && value !== "" ? marker("key_name") : this.redactText(value);
    }
    if (typeof value !== "object" || value === null) return value;
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (ancestors.has(value)) return "[Circular]";
    if (depth >= MAX_VALUE_DEPTH) return deeperThanMarker();
    ancestors.add(value);
    try {
      if (Array.isArray(value)) {
        return value.map((item) => this.#redact(item, secretKey, ancestors, depth + 1));
      }
      if (value instanceof Error) {
        return {
          name: this.redactText(value.name),
          message: this.redactText(value.message),
        };
      }
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const redacted = this.#redact(item, this.#isSecretKey(key), ancestors, depth + 1);
        // Assigning "__proto__" would set the prototype: that key becomes an own property instead.
        if (key === "__proto__") {
          Object.defineProperty(copy, key, {
            value: redacted,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else {
          copy[key] = redacted;
        }
      }
      return copy;
    } finally {
      ancestors.delete(value);
    }
  }

  #isSecretKey(key: string): boolean {
    let secret = this.#secretKeys.get(key);
    if (secret === undefined) {
      secret = isSecretKey(key);
      if (this.#secretKeys.size >= CACHED_TEXTS) this.#secretKeys.clear();
      this.#secretKeys.set(key, secret);
    }
    return secret;
  }
}

/** Longest text whose redacted form is kept for reuse, in UTF-16 code units. */
const CACHED_TEXT_CHARS = 256;
/** Most texts (and keys) kept for reuse; the cache starts again empty when full. */
const CACHED_TEXTS = 1024;
/** How many recent long texts are kept with their redacted form. */
const RECENT_LONG_TEXTS = 4;
/** Longest text kept among the recent ones, in UTF-16 code units (1 Mi: a few MiB at most held). */
const RECENT_LONG_TEXT_CHARS = 1 << 20;

/**
 * `text.slice(from, to)` with each span inside it replaced. A span that crosses `from` is replaced
 * whole (its replacement is kept, the text before `from` is not); spans must not cross `to`.
 *
 * @param text The text the spans were found in.
 * @param spans Sorted, not overlapping, e.g. from {@linkcode Redactor.spans}.
 * @param from First code unit kept; default 0.
 * @param to Code unit after the last one kept; default the text's length.
 * @returns The redacted stretch.
 * @example
 * ```ts
 * import { applySpans } from "./redactor.ts";
 * const spans = [{ start: 2, end: 5, replacement: "[X]" }];
 * console.assert(applySpans("a secret b", spans, 0, 6) === "a [X]r");
 * ```
 */
export function applySpans(
  text: string,
  spans: readonly RedactionSpan[],
  from = 0,
  to: number = text.length,
): string {
  let result = "";
  let position = from;
  for (const span of spans) {
    if (span.end <= from) continue;
    if (span.start >= to) break;
    result += text.slice(position, span.start) + span.replacement;
    position = span.end;
  }
  return result + text.slice(position, to);
}

function marker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

/**
 * The pattern, compiled now (V8 compiles on first use: a pattern too large fails there), or null
 * when the engine refuses it. The prefilter is only a shortcut, so null costs time, never safety.
 */
function compiledOrNull(source: string): RegExp | null {
  try {
    const pattern = new RegExp(source);
    pattern.test("");
    return pattern;
  } catch {
    return null;
  }
}
