/**
 * The redactor's stages: how several token patterns run as one, how a stage masks what an earlier
 * one found, and how the spans of all stages are joined.
 *
 * @module
 */

import {
  AUTHORIZATION_TOKEN_PATTERN,
  BASIC_CREDENTIALS_PATTERN,
  BEARER_PATTERN,
  isBasicCredential,
  LATE_TOKEN_PATTERNS,
  PRIVATE_KEY_PATTERN,
  type RedactionKind,
  TOKEN_PATTERNS,
  type TokenPattern,
  URL_CREDENTIALS_PATTERN,
} from "./_secret_patterns.ts";

/** A stretch to replace (as `RedactionSpan` in redactor.ts, repeated here to keep the import one-way). */
export interface Span {
  start: number;
  end: number;
  replacement: string;
}

/** One pass of the redactor: a pattern and how its matches are replaced. */
export interface Stage {
  kind: RedactionKind;
  /** The kind of a match, when the stage finds several (default: `kind`). */
  kindOf?: (match: RegExpExecArray) => RedactionKind;
  pattern: RegExp;
  /** Code units at the start of a match that are not replaced. */
  keep: (match: RegExpExecArray) => number;
  /** Tells whether a match is a secret (default: every match is). */
  accept?: (match: RegExpExecArray) => boolean;
  /** The patterns the stage joins, for the redactor's prefilter (default: `pattern` alone). */
  sources?: readonly string[];
}

/** A span with the stage that found it. */
export interface StageSpan extends Span {
  /** Index of the stage that found it: a later stage swallowed what it overlaps. */
  stage: number;
}

/**
 * One stage for many token patterns: an alternation of them, each in a named group (`t0`, `t1`…)
 * that tells the match's kind. At one place the earlier pattern wins, as the regular expression
 * tries alternatives in order; a pass finds the leftmost match, so a token is never searched for
 * inside another one.
 */
export function tokenStage(patterns: readonly TokenPattern[]): Stage {
  const source = patterns.map(({ pattern }, index) => `(?<t${index}>${pattern.source})`).join("|");
  return {
    kind: patterns[0]?.kind ?? "secret_env",
    pattern: new RegExp(source, "g"),
    sources: patterns.map(({ pattern }) => pattern.source),
    keep: () => 0,
    kindOf: (match) => {
      const groups = match.groups ?? {};
      const index = patterns.findIndex((_, position) => groups[`t${position}`] !== undefined);
      return patterns[index]?.kind ?? "secret_env";
    },
  };
}

/**
 * `text` with each span's code units replaced by NUL: the same length, so offsets stay valid, and a
 * character no token pattern takes (as a `[REDACTED:…]` marker's brackets), so later patterns see
 * the stretch as replaced.
 */
export function mask(text: string, spans: readonly StageSpan[]): string {
  let result = "";
  let from = 0;
  for (const span of spans) {
    result += text.slice(from, span.start) + "\0".repeat(span.end - span.start);
    from = span.end;
  }
  return result + text.slice(from);
}

/** Sorts spans and joins overlapping ones; the later stage names the kind (it swallowed the rest). */
export function merge(found: StageSpan[]): Span[] {
  found.sort((left, right) => left.start - right.start || right.end - left.end);
  const merged: StageSpan[] = [];
  for (const span of found) {
    const last = merged.at(-1);
    if (last !== undefined && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      if (span.stage > last.stage) {
        last.replacement = span.replacement;
        last.stage = span.stage;
      }
    } else {
      merged.push({ ...span });
    }
  }
  return merged.map(({ start, end, replacement }) => ({ start, end, replacement }));
}

/** The scheme word and the blanks after it: what a `Bearer`/`Basic` stage keeps. */
const schemeWord = (match: RegExpExecArray) => (match[1]?.length ?? 0) + (match[2]?.length ?? 0);

/**
 * The stages after the secret values, in the order they run: private keys, the token patterns, URL
 * credentials, bearer tokens, Basic credentials (decoded, kept only when they hold a password),
 * `Authorization: token` values, then JWTs.
 */
export const PATTERN_STAGES: readonly Stage[] = [
  { ...PRIVATE_KEY_PATTERN, keep: () => 0 },
  tokenStage(TOKEN_PATTERNS),
  { kind: "url_credentials", pattern: URL_CREDENTIALS_PATTERN, keep: () => 3 },
  { kind: "bearer_token", pattern: BEARER_PATTERN, keep: schemeWord },
  {
    kind: "basic_credentials",
    pattern: BASIC_CREDENTIALS_PATTERN,
    keep: schemeWord,
    accept: (match) => isBasicCredential(match[3] ?? ""),
  },
  {
    kind: "authorization_token",
    pattern: AUTHORIZATION_TOKEN_PATTERN,
    keep: (match) => match[1]?.length ?? 0,
  },
  ...LATE_TOKEN_PATTERNS.map(({ kind, pattern }) => ({ kind, pattern, keep: () => 0 })),
];
