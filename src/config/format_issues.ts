/**
 * Turns zod issues into the sentences users read: `key "rules[2].decision" must be one of "allow",
 * "ask", "deny"`. Reached from outside through `mod.ts` or the light door `base/mod.ts`.
 *
 * @module
 */

import type { z } from "zod";

/** One problem, ready for a message: the dotted key (or `null` for the whole file) and the text. */
export interface IssueText {
  /** `a.b[0].c`, or `null` when the problem is the whole document. */
  key: string | null;
  /** `key "a.b[0].c" must be a string`, or `the file must be an object`. */
  text: string;
}

/**
 * Formats a path as users write keys: `sandbox.write_roots[0]`; keys that are not identifiers are
 * quoted in brackets (`labels["a b"]`).
 *
 * @param path Path segments; numbers are array indexes.
 * @param prefix Segments put before `path` (the key of an inline object, for example).
 * @returns The dotted key, or `null` for an empty path.
 */
export function formatKey(
  path: readonly PropertyKey[],
  prefix: readonly PropertyKey[] = [],
): string | null {
  const all = [...prefix, ...path];
  if (all.length === 0) return null;
  let text = "";
  for (const segment of all) {
    if (typeof segment === "number") text += `[${segment}]`;
    else {
      const name = String(segment);
      if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) text += text === "" ? name : `.${name}`;
      else text += `[${JSON.stringify(name)}]`;
    }
  }
  return text;
}

/**
 * Formats every zod issue of a failed parse, in zod's order. An unknown-keys issue gives one text a
 * key; a union that failed gives the texts of the branch that came closest.
 *
 * @param issues From `safeParse(...).error.issues`.
 * @param input The value that was parsed, to tell a missing key from a wrong type.
 * @param prefix Segments put before every path (e.g. `["permissions"]` for an inline object).
 */
export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): IssueText[] {
  return issues.flatMap((issue) => formatIssue(issue, input, prefix, []));
}

function formatIssue(
  issue: z.core.$ZodIssue,
  input: unknown,
  prefix: readonly PropertyKey[],
  base: readonly PropertyKey[],
): IssueText[] {
  const path = [...base, ...issue.path];
  const subject = (segments: readonly PropertyKey[]): IssueText["key"] =>
    formatKey(segments, prefix);
  const text = (key: string | null, reason: string): IssueText => ({
    key,
    text: key === null ? `the file ${reason}` : `key "${key}" ${reason}`,
  });
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((name) => text(subject([...path, name]), "is not a known key"));
    case "invalid_type": {
      const key = subject(path);
      if (isMissing(input, path)) return [text(key, required(input, path, prefix))];
      return [text(key, `must be ${describeType(issue.expected)}`)];
    }
    case "invalid_value": {
      // A key left out (a typo beside it, say) is missing, not a wrong value.
      if (isMissing(input, path)) return [text(subject(path), required(input, path, prefix))];
      return [text(subject(path), `must be ${oneOf(issue.values)}`)];
    }
    case "too_small":
      return [text(subject(path), describeBound(issue.origin, "least", issue.minimum, issue))];
    case "too_big":
      return [text(subject(path), describeBound(issue.origin, "most", issue.maximum, issue))];
    case "invalid_union": {
      if (issue.discriminator !== undefined) {
        const values = "options" in issue && Array.isArray(issue.options) ? issue.options : [];
        const reason = values.length > 0 ? `must be ${oneOf(values)}` : "has an unknown value";
        return [
          text(subject(path), isMissing(input, path) ? required(input, path, prefix) : reason),
        ];
      }
      return formatUnion(issue.errors, input, prefix, path);
    }
    case "invalid_format":
    case "custom":
      // These carry messages written in house style where the schema defines them.
      return [text(subject(path), issue.message)];
    default:
      return [text(subject(path), "is not valid")];
  }
}

/**
 * A union failed: when every branch failed on the type of the value itself, list the types;
 * otherwise the value had the right type for some branch, so report that branch's issues.
 */
function formatUnion(
  branches: readonly (readonly z.core.$ZodIssue[])[],
  input: unknown,
  prefix: readonly PropertyKey[],
  path: readonly PropertyKey[],
): IssueText[] {
  const closest = branches.find((branch) =>
    !branch.every((issue) => issue.code === "invalid_type" && issue.path.length === 0)
  );
  if (closest !== undefined) {
    return closest.flatMap((issue) => formatIssue(issue, input, prefix, path));
  }
  const key = formatKey(path, prefix);
  if (isMissing(input, path)) {
    return [{ key, text: `key "${key}" ${required(input, path, prefix)}` }];
  }
  const types = branches.flatMap((branch) =>
    branch.flatMap((issue) => issue.code === "invalid_type" ? [describeType(issue.expected)] : [])
  );
  const reason = `must be ${[...new Set(types)].join(" or ")}`;
  return [{ key, text: key === null ? `the file ${reason}` : `key "${key}" ${reason}` }];
}

/**
 * `is required`, and when the object holding the missing key has a key one or two edits away
 * (`decison` for `decision`), `is required: "rules[0].decison" is not a known key, did you mean
 * "decision"`.
 */
function required(
  input: unknown,
  path: readonly PropertyKey[],
  prefix: readonly PropertyKey[],
): string {
  const name = path.at(-1);
  let parent: unknown = input;
  for (const segment of path.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null) return "is required";
    parent = (parent as Record<PropertyKey, unknown>)[segment];
  }
  if (typeof name !== "string" || typeof parent !== "object" || parent === null) {
    return "is required";
  }
  const typo = Object.keys(parent).find((key) => key !== name && editDistance(key, name) <= 2);
  if (typo === undefined) return "is required";
  const typed = formatKey([...path.slice(0, -1), typo], prefix);
  return `is required: "${typed}" is not a known key, did you mean "${name}"`;
}

/** Levenshtein distance with adjacent swaps counted as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 64 || b.length > 64) return 3;
  const rows: number[][] = Array.from(
    { length: a.length + 1 },
    (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  let current: unknown = input;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return false;
    if (!Object.hasOwn(current, segment)) return true;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current === undefined;
}

function describeType(expected: string): string {
  switch (expected) {
    case "int":
      return "an integer";
    case "array":
    case "object":
      return `an ${expected}`;
    case "string":
    case "number":
    case "boolean":
      return `a ${expected}`;
    default:
      return `of type "${expected}"`;
  }
}

function oneOf(values: readonly unknown[]): string {
  const listed = values.map((value) => JSON.stringify(value)).join(", ");
  return values.length === 1 ? listed : `one of ${listed}`;
}

function describeBound(
  origin: string,
  side: "least" | "most",
  limit: number | bigint,
  issue: { inclusive?: boolean },
): string {
  const inclusive = issue.inclusive !== false;
  if (
    side === "least" && inclusive && Number(limit) === 1 &&
    (origin === "array" || origin === "string")
  ) {
    return "must not be empty";
  }
  switch (origin) {
    case "array":
    case "set":
      return `must have at ${side} ${limit} ${limit === 1 ? "item" : "items"}`;
    case "string":
      return `must have at ${side} ${limit} ${limit === 1 ? "character" : "characters"}`;
    default:
      if (inclusive) return `must be at ${side} ${limit}`;
      return `must be ${side === "least" ? "greater" : "less"} than ${limit}`;
  }
}
