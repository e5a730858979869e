/**
 * The regular expressions of `fs.grep_files`: RE2 syntax, matched in time linear in the line
 * (the `re2js` engine), so that no pattern can stall a search the way `(a+)+$` stalls a
 * backtracking engine. What RE2 cannot express is refused with the reason and the RE2 form to use.
 * Private to the folder.
 *
 * @module
 */

import { RE2JS, RE2JSSyntaxException } from "re2js";

/** A compiled pattern: finds the first match in one line, and rules files out cheaply. */
export interface LinePattern {
  /** UTF-16 index of the first match in `line`, or -1 when the line does not match. */
  search(line: string): number;
  /**
   * The byte-level literal prefilter: false when `bytes` (a whole file, UTF-8) cannot hold a
   * matching line because a literal every match contains is absent (found with the native
   * `Uint8Array.prototype.indexOf` on its least common byte, no decoding). True when it may match, or when the pattern has no literal.
   */
  mayMatchBytes(bytes: Uint8Array): boolean;
  /**
   * False when no line of `text` (a whole file, decoded) can match: the pattern is run once over
   * the whole text in multi-line mode (`^` and `$` at line breaks). True when a line may match,
   * or when the test would not be exact for this pattern and text (`\A`, `\z`, a `(?-m)` group;
   * `$` in a text with carriage returns, which lines lose before matching).
   */
  mayMatchText(text: string): boolean;
}

/** Texts longer than this (UTF-16 units) skip the whole-text test: lines are matched directly. */
const WHOLE_TEXT_TEST_LIMIT = 1 << 20;

/** What a match needs in the bytes of a file: a literal, all of several, any of several. */
type Requirement =
  | { kind: "anything" }
  | { kind: "literal"; bytes: Uint8Array; anchor: number }
  | { kind: "all" | "any"; parts: Requirement[] };

/**
 * Bytes by how common they are in source code and prose, most common first: the literal search
 * jumps between occurrences of the literal's least common byte.
 */
const COMMON_BYTES = new TextEncoder().encode(" etaoinsrlcdhup\nmfgy.b,w_();=\"'v/kx-:{}\t0");

/** Index in `literal` of its least common byte. */
function anchorOf(literal: Uint8Array): number {
  let best = 0;
  let bestRank = -1;
  for (let index = 0; index < literal.byteLength; index += 1) {
    const found = COMMON_BYTES.indexOf(literal[index] as number);
    const rank = found === -1 ? COMMON_BYTES.byteLength : COMMON_BYTES.byteLength - 1 - found;
    if (rank > bestRank) {
      best = index;
      bestRank = rank;
    }
  }
  return best;
}

/**
 * Tells whether `literal` occurs in `haystack`: the native `Uint8Array.prototype.indexOf` finds
 * each occurrence of the literal's anchor byte (its least common one), and the bytes around it are
 * compared.
 */
function containsLiteral(haystack: Uint8Array, literal: Uint8Array, anchor: number): boolean {
  const anchorByte = literal[anchor] as number;
  const last = haystack.byteLength - literal.byteLength + anchor;
  let position = haystack.indexOf(anchorByte, anchor);
  while (position !== -1 && position <= last) {
    const start = position - anchor;
    let index = 0;
    while (index < literal.byteLength && haystack[start + index] === literal[index]) index += 1;
    if (index === literal.byteLength) return true;
    position = haystack.indexOf(anchorByte, position + 1);
  }
  return false;
}

/**
 * The literals re2js itself found every match must contain (its `Prefilter` tree: type 0 none,
 * 1 one literal, 2 all of, 3 any of). Read defensively: anything unexpected means "anything",
 * which only turns the prefilter off.
 */
function requirementOf(node: unknown, depth = 0): Requirement {
  if (typeof node !== "object" || node === null || depth > 64) return { kind: "anything" };
  const { type, str, subs } = node as { type?: unknown; str?: unknown; subs?: unknown };
  // U+FFFD also stands for invalid bytes once decoded: its UTF-8 form may be absent.
  if (type === 1 && typeof str === "string" && str.length > 0 && !str.includes("\ufffd")) {
    const bytes = ENCODER.encode(str);
    return { kind: "literal", bytes, anchor: anchorOf(bytes) };
  }
  if ((type === 2 || type === 3) && Array.isArray(subs) && subs.length > 0) {
    const parts = subs.map((sub) => requirementOf(sub, depth + 1));
    if (type === 3 && parts.some((part) => part.kind === "anything")) return { kind: "anything" };
    const kept = parts.filter((part) => part.kind !== "anything");
    if (kept.length === 0) return { kind: "anything" };
    return { kind: type === 2 ? "all" : "any", parts: kept };
  }
  return { kind: "anything" };
}

function holds(requirement: Requirement, haystack: Uint8Array): boolean {
  switch (requirement.kind) {
    case "anything":
      return true;
    case "literal":
      return containsLiteral(haystack, requirement.bytes, requirement.anchor);
    case "all":
      return requirement.parts.every((part) => holds(part, haystack));
    case "any":
      return requirement.parts.some((part) => holds(part, haystack));
  }
}

const ENCODER = new TextEncoder();

/** Why a pattern was refused: the reason to show after `Cannot search for "<pattern>": `. */
export interface PatternProblem {
  reason: string;
}

/**
 * Compiles `pattern` in RE2 syntax (`(?i)`, `\d`, `\w`, `\b`, `\p{L}`, `[[:alpha:]]`, `(?P<name>…)`
 * and `(?<name>…)` groups, counted repetitions up to 1000).
 *
 * @param caseSensitive false matches letters in either case (like a leading `(?i)`).
 * @returns the pattern, or the problem: backreferences (`\1`, `\k<name>`), lookahead and lookbehind,
 * atomic groups and possessive quantifiers, `\u` and `\c` escapes, and syntax errors, each with the
 * RE2 form to use instead where there is one.
 * @example
 * ```ts
 * import { compileLinePattern } from "./_line_pattern.ts";
 * const pattern = compileLinePattern("b+", true);
 * if ("search" in pattern) console.assert(pattern.search("abb") === 1);
 * ```
 */
export function compileLinePattern(
  pattern: string,
  caseSensitive: boolean,
): LinePattern | PatternProblem {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) return { reason: explain(error) };
    return { reason: `it is not a valid RE2 regular expression (${String(error)})` };
  }
  const matcher = compiled.matcher("");
  const flags = (caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE) | RE2JS.MULTILINE;
  // `\A`, `\z` and a group turning multi-line off mean something else in a whole text.
  const wholeTextExact = !/\\[Az]|\(\?[A-Za-z]*-[A-Za-z]*m/.test(pattern);
  const whole = wholeTextExact ? RE2JS.compile(pattern, flags) : null;
  const endAnchor = pattern.includes("$");
  const requirement = requirementOf(
    (compiled as unknown as { re2Input?: { prefilter?: unknown } }).re2Input?.prefilter,
  );
  return {
    search(line) {
      // `test` is about twice as fast as a matcher; the position is needed for matching lines only.
      if (!compiled.test(line)) return -1;
      return matcher.resetMatcherInput(line).find() ? matcher.start() : -1;
    },
    mayMatchBytes(bytes) {
      if (requirement.kind === "anything") return true;
      return holds(requirement, bytes);
    },
    mayMatchText(text) {
      if (whole === null || text.length > WHOLE_TEXT_TEST_LIMIT) return true;
      if (endAnchor && text.includes("\r")) return true;
      return whole.test(text);
    },
  };
}

/** RE2 is the engine: say what it does not support and what to write instead. */
function explain(error: RE2JSSyntaxException): string {
  const description = error.getDescription();
  const near = error.getPattern() ?? "";
  const unsupported = (what: string, instead: string) =>
    `${what} ${near === "" ? "" : `("${near}") `}is not supported: patterns use RE2 syntax, ` +
    `which matches in time linear in the line; ${instead}`;
  if (/^\\[1-9]/.test(near) || near.startsWith("\\k")) {
    return unsupported(
      "a backreference",
      'repeat the group\'s pattern instead, e.g. "(ab)(ab)" for "(ab)\\1", or search for the ' +
        "first part and read the lines found",
    );
  }
  if (near.startsWith("(?=") || near.startsWith("(?!")) {
    return unsupported(
      "lookahead",
      'match the text that follows as part of the pattern instead, e.g. "foo bar" for ' +
        '"foo(?= bar)", or "foo([^b]|$)" for "foo(?!b)"',
    );
  }
  if (near.startsWith("(?<=") || near.startsWith("(?<!")) {
    return unsupported(
      "lookbehind",
      'match the text before as part of the pattern instead, e.g. "\\$[0-9]+" for ' +
        '"(?<=\\$)[0-9]+", or "(^|[^x])y" for "(?<!x)y"',
    );
  }
  if (near.startsWith("(?>")) {
    return unsupported("an atomic group", 'use a plain group instead, e.g. "(?:a+)"');
  }
  if (description.includes("nested repetition") && /^[*+?}]\+$/.test(near.slice(-2))) {
    return unsupported(
      "a possessive quantifier",
      'use the plain quantifier instead, e.g. "a+" for "a++" (RE2 never backtracks)',
    );
  }
  if (near.startsWith("\\u")) {
    return unsupported(
      "a \\u escape",
      'write the code point as "\\x{00e9}" (hexadecimal in braces) or the character itself',
    );
  }
  if (near.startsWith("\\c")) {
    return unsupported("a \\c escape", 'write the control character as "\\x01" (hexadecimal)');
  }
  return `it is not a valid RE2 regular expression (${description}${
    near === "" ? "" : `: "${near}"`
  })`;
}
