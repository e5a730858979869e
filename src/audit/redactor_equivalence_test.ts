// The redactor skips short texts, runs one combined pattern before the stages, and reuses the
// redacted forms of short texts and the answers for keys. It must redact exactly what the plain
// algorithm did: this file keeps that algorithm (the redactor of commit c372363, unchanged) as
// the reference and compares both on random records with planted secrets.
import assert from "node:assert/strict";
import {
  AUTHORIZATION_TOKEN_PATTERN,
  BASIC_CREDENTIALS_PATTERN,
  BEARER_PATTERN,
  isBasicCredential,
  isSecretKey,
  LATE_TOKEN_PATTERNS,
  MIN_REDACTED_TEXT_CHARS,
  PRIVATE_KEY_PATTERN,
  type RedactionKind,
  TOKEN_PATTERNS,
  type TokenPattern,
  URL_CREDENTIALS_PATTERN,
} from "./_secret_patterns.ts";
import { applySpans, MIN_SECRET_LENGTH, type RedactionSpan, Redactor } from "./redactor.ts";

interface Stage {
  kind: RedactionKind;
  kindOf?: (match: RegExpExecArray) => RedactionKind;
  pattern: RegExp;
  keep: (match: RegExpExecArray) => number;
  accept?: (match: RegExpExecArray) => boolean;
}
interface StageSpan extends RedactionSpan {
  stage: number;
}

/** The reference: every stage on every text, every key checked, nothing reused. */
class ReferenceRedactor {
  readonly #stages: readonly Stage[];
  constructor(secrets: readonly string[]) {
    const values = new Set<string>();
    for (const secret of secrets) {
      for (const candidate of [secret, secret.trim()]) {
        if (candidate.length >= MIN_SECRET_LENGTH) values.add(candidate);
      }
    }
    const sorted = [...values].sort((left, right) => right.length - left.length);
    const secretPattern = sorted.length === 0
      ? null
      : new RegExp(sorted.map((value) => RegExp.escape(value)).join("|"), "g");
    const none = () => 0;
    this.#stages = [
      ...(secretPattern === null
        ? []
        : [{ kind: "secret_env" as const, pattern: secretPattern, keep: none }]),
      { ...PRIVATE_KEY_PATTERN, keep: none },
      tokenStage(TOKEN_PATTERNS),
      { kind: "url_credentials", pattern: URL_CREDENTIALS_PATTERN, keep: () => 3 },
      {
        kind: "bearer_token",
        pattern: BEARER_PATTERN,
        keep: (match: RegExpExecArray) => (match[1]?.length ?? 0) + (match[2]?.length ?? 0),
      },
      // Added with issue 23: Basic credentials decoded, `Authorization: token` values.
      {
        kind: "basic_credentials",
        pattern: BASIC_CREDENTIALS_PATTERN,
        keep: (match: RegExpExecArray) => (match[1]?.length ?? 0) + (match[2]?.length ?? 0),
        accept: (match: RegExpExecArray) => isBasicCredential(match[3] ?? ""),
      },
      {
        kind: "authorization_token",
        pattern: AUTHORIZATION_TOKEN_PATTERN,
        keep: (match: RegExpExecArray) => match[1]?.length ?? 0,
      },
      ...LATE_TOKEN_PATTERNS.map(({ kind, pattern }) => ({ kind, pattern, keep: none })),
    ];
  }
  redactText(text: string): string {
    return applySpans(text, this.spans(text));
  }
  spans(text: string): RedactionSpan[] {
    const found: StageSpan[] = [];
    let masked = text;
    for (const [index, stage] of this.#stages.entries()) {
      const { kind, pattern, keep } = stage;
      const spans: StageSpan[] = [];
      for (const match of masked.matchAll(pattern)) {
        if (stage.accept !== undefined && !stage.accept(match)) continue;
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
        return { name: this.redactText(value.name), message: this.redactText(value.message) };
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

function tokenStage(patterns: readonly TokenPattern[]): Stage {
  const source = patterns.map(({ pattern }, index) => `(?<t${index}>${pattern.source})`).join("|");
  return {
    kind: patterns[0]?.kind ?? "secret_env",
    pattern: new RegExp(source, "g"),
    keep: () => 0,
    kindOf: (match) => {
      const groups = match.groups ?? {};
      const index = patterns.findIndex((_, position) => groups[`t${position}`] !== undefined);
      return patterns[index]?.kind ?? "secret_env";
    },
  };
}

function mask(text: string, spans: readonly StageSpan[]): string {
  let result = "";
  let from = 0;
  for (const span of spans) {
    result += text.slice(from, span.start) + "\0".repeat(span.end - span.start);
    from = span.end;
  }
  return result + text.slice(from);
}

function merge(found: StageSpan[]): RedactionSpan[] {
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

function marker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let value = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const SECRETS = ["hunter2-but-longer", "s3cr3t-value-123", " padded-secret-99 ", "short"];
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

Deno.test("Redactor redacts exactly what the plain algorithm does on random records with planted secrets", () => {
  const next = random(20261123);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const word = (length: number, alphabet = ALPHANUMERIC) =>
    Array.from({ length }, () => pick([...alphabet])).join("");
  const planted = (): string =>
    pick([
      () => pick(SECRETS),
      () => `sk-ant-${word(20 + Math.floor(next() * 30), `${ALPHANUMERIC}_-`)}`,
      () => `sk-${word(18 + Math.floor(next() * 10))}`,
      () => `gh${pick([..."pousr"])}_${word(34 + Math.floor(next() * 6))}`,
      () => `github_pat_${word(22)}`,
      () => `glpat-${word(20)}`,
      () => `AKIA${word(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`,
      () => `xoxb-${word(12)}`,
      () => `npm_${word(36)}`,
      () => `pypi-AgE${word(50)}`,
      () => `AIza${word(35)}`,
      () => `${pick(["sk", "rk"])}_${pick(["live", "test"])}_${word(20)}`,
      () => `https://${word(4)}:${word(1 + Math.floor(next() * 8))}@example.com/x`,
      () => `://${word(1)}:${word(1)}@`,
      () =>
        `${pick(["Bearer", "bearer", "BEARER"])}${pick([" ", "\t", "  "])}${
          word(6 + Math.floor(next() * 6))
        }`,
      () =>
        `eyJ${word(8 + Math.floor(next() * 4))}.eyJ${word(8 + Math.floor(next() * 4))}.${word(4)}`,
      () => `-----BEGIN RSA PRIVATE KEY-----\n${word(20)}\n-----END RSA PRIVATE KEY-----`,
      () => `-----BEGIN PRIVATE KEY-----\n${word(10)}`,
      () =>
        `${pick(["Basic", "basic", "BASIC"])} ${
          btoa(`${word(4)}:${word(4 + Math.floor(next() * 8))}`)
        }`,
      () => `${pick(["basic", "Basic"])} ${word(8 + Math.floor(next() * 8))}`,
      () => btoa(`x-access-token:ghs_${word(20 + Math.floor(next() * 20))}`),
      () =>
        `${pick(["Authorization", "AUTHORIZATION"])}: ${pick(["token", "Token"])} ${
          word(6 + Math.floor(next() * 6))
        }`,
    ])();
  const text = (): string => {
    const parts: string[] = [];
    const count = Math.floor(next() * 5);
    for (let index = 0; index < count; index++) {
      parts.push(
        next() < 0.35
          ? planted()
          : word(Math.floor(next() * 12), `${ALPHANUMERIC} :/@._-\n\u00e9\u{1F600}`),
      );
    }
    return parts.join(pick(["", " ", "=", "\n", ":"]));
  };
  const keys = ["path", "password", "apiKey", "Authorization", "access_token", "tool", "api_key"];
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth > 3 || roll < 0.45) return text();
    if (roll < 0.55) return pick([null, 42, true, ""]);
    if (roll < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const record: Record<string, unknown> = {};
    for (let index = Math.floor(next() * 5); index > 0; index--) {
      record[next() < 0.6 ? pick(keys) : word(1 + Math.floor(next() * 8))] = value(depth + 1);
    }
    return record;
  };
  const fast = new Redactor({ secrets: SECRETS });
  const reference = new ReferenceRedactor(SECRETS);
  let redacted = 0;
  for (let round = 0; round < 3000; round++) {
    const record = value(0);
    const expected = reference.redactValue(record);
    // Twice: the second time the short texts and the keys come from the reuse caches.
    assert.deepEqual(fast.redactValue(record), expected, JSON.stringify(record));
    assert.deepEqual(fast.redactValue(record), expected, JSON.stringify(record));
    const sample = text();
    assert.deepEqual(fast.spans(sample), reference.spans(sample), JSON.stringify(sample));
    assert.equal(fast.redactText(sample), reference.redactText(sample), JSON.stringify(sample));
    if (JSON.stringify(expected).includes("[REDACTED:")) redacted += 1;
  }
  assert.ok(redacted > 1000, `only ${redacted} records held a planted secret`);
});

Deno.test("Redactor leaves a text shorter than MIN_REDACTED_TEXT_CHARS as it is, and redacts one that long", () => {
  const redactor = new Redactor({ secrets: [] });
  // Near miss: the shortest text a pattern finds something in is redacted.
  const shortest = "://u:p@";
  assert.equal(shortest.length, MIN_REDACTED_TEXT_CHARS);
  assert.equal(redactor.redactText(shortest), "://[REDACTED:url_credentials]@");
  assert.equal(redactor.redactText(shortest.slice(1)), shortest.slice(1));
  const reference = new ReferenceRedactor([]);
  const next = random(7);
  for (let round = 0; round < 20_000; round++) {
    const length = Math.floor(next() * MIN_REDACTED_TEXT_CHARS);
    const text = Array.from({ length }, () => ":/@u-p_ Bk"[Math.floor(next() * 10)]).join("");
    assert.equal(reference.redactText(text), text, JSON.stringify(text));
  }
});

Deno.test("Redactor keeps a __proto__ key as an own property, as the plain algorithm does", () => {
  const record = JSON.parse('{"__proto__": {"password": "hunter2-but-longer"}, "note": "ok"}');
  const redacted = new Redactor({ secrets: SECRETS }).redactValue(record);
  assert.deepEqual(redacted, new ReferenceRedactor(SECRETS).redactValue(record));
  assert.equal(Object.getPrototypeOf(redacted), Object.prototype);
  assert.equal(
    JSON.stringify(redacted),
    '{"__proto__":{"password":"[REDACTED:key_name]"},"note":"ok"}',
  );
});
