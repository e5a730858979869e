/**
 * The regular expressions of `fs.grep_files`: RE2 syntax, matched in time linear in the line
 * (the `re2js` engine), so that no pattern can stall a search the way `(a+)+$` stalls a
 * backtracking engine. What RE2 cannot express is refused with the reason and the RE2 form to use.
 * Private to the folder.
 *
 * @module
 */

import { RE2JS, RE2JSSyntaxException } from "re2js";

/** A compiled pattern: finds the first match in one line. */
export interface LinePattern {
  /** UTF-16 index of the first match in `line`, or -1 when the line does not match. */
  search(line: string): number;
}

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
  return {
    search(line) {
      // `test` is about twice as fast as a matcher; the position is needed for matching lines only.
      if (!compiled.test(line)) return -1;
      return matcher.resetMatcherInput(line).find() ? matcher.start() : -1;
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
