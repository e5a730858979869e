/**
 * The gate of the ripgrep fast path of `fs.grep_files`: an RE2 pattern rewritten into ripgrep's
 * dialect (Rust `regex`) so that ripgrep matches every line the built-in searcher matches (it may
 * match more: ripgrep only rules files out, see `ripgrep_prefilter.ts`). Private to the folder.
 *
 * The built-in searcher decodes a file as UTF-8 (each invalid sequence becomes one U+FFFD) and
 * matches lines with re2js, whose `\d \w \s \b` are ASCII; ripgrep matches the raw bytes with
 * Unicode classes, and an invalid byte is matched by no Unicode class. From those differences:
 *
 * - The pattern must be printable ASCII: its literals then mean the same bytes in both (ASCII bytes
 *   are never part of an invalid sequence), and case folding (`--ignore-case`, `(?i)`) only folds
 *   ASCII letters, whose orbits are the same in both (k, K, U+212A; s, S, U+017F).
 * - What matches "any character but": `.`, `[^…]`, `\D \W \S`, becomes
 *   `(?:<it, case-sensitive>|(?-u:[\x80-\xFF])+)`: a valid character as before, or a run of
 *   non-ASCII bytes (what re2js sees as U+FFFD, or more). Case-sensitive, because re2js folds a
 *   negated class before negating (`(?i)[^k]` refuses U+212A): without folding, it refuses less.
 * - `\d \w \s` become their exact ASCII classes; `\b \B` (ASCII in re2js, Unicode in ripgrep:
 *   `\ba` matches in "éa" for re2js only), `\p \P`, negated POSIX classes, `\A \z \Q \C \n`,
 *   `\x{…}` and octal escapes are refused: the built-in searcher runs alone.
 * - Inside a class, the set operators of Rust (`&&`, `--`, `~~`) and nested `[` are refused;
 *   RE2 reads them as literals.
 * - Syntax RE2 accepts and ripgrep 13 reads differently is spelt out: `(?<name>` as `(?P<name>`,
 *   a `{` that is no repetition and a `}` as escaped literals, an escaped punctuation mark that is
 *   not a Rust metacharacter as the mark itself.
 *
 * Lines and bytes: ripgrep runs with `--crlf` (`$` matches before `\r\n` and `\r`, as the built-in
 * drops a line's final `\r`) and `--encoding none`: it reads the bytes the built-in decodes (with
 * its default, a UTF-16 file with a byte order mark would be transcoded, and lose lines the
 * built-in matches in the same bytes read as UTF-8), so `^` becomes `^` then an optional UTF-8
 * byte order mark, which the built-in's decoder drops from the start of a file.
 *
 * @module
 */

/** Rust metacharacters, which ripgrep 13 allows escaped (any other escaped mark is an error). */
const RUST_META = new Set("\\.+*?()|[]{}^$#&-~");

/** A run of non-ASCII bytes: what re2js may see as one U+FFFD (or more characters). */
const NON_ASCII_BYTES = "(?-u:[\\x80-\\xFF])+";

/** An optional UTF-8 byte order mark, as raw bytes. */
const UTF8_BOM = "(?-u:\\xEF\\xBB\\xBF)?";

/**
 * Flags both dialects read alike in `(?flags)` and `(?flags:…)`; not `m`: `(?-m)^` is the start
 * of a line for re2js, which matches lines one by one, and of the whole file for ripgrep.
 */
const FLAG_GROUP = /^\(\?[isU]*(-[isU]+)?[:)]/;

/** A counted repetition (`{2}`, `{2,}`, `{2,5}`); anything else with `{` is a literal in RE2. */
const REPETITION = /^\{\d+(,\d*)?\}/;

/**
 * Rewrites an RE2 pattern (one re2js compiled) into ripgrep's dialect, or null when it is outside
 * the gate (see the module documentation): then ripgrep might miss a line the built-in finds.
 *
 * @example
 * ```ts
 * import { ripgrepPattern } from "./_ripgrep_pattern.ts";
 * console.assert(ripgrepPattern("process\\.env\\.[A-Z_]+") === "process\\.env\\.[A-Z_]+");
 * console.assert(ripgrepPattern("\\bword\\b") === null);
 * console.assert(ripgrepPattern("café") === null);
 * ```
 */
export function ripgrepPattern(pattern: string): string | null {
  let out = "";
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index] as string;
    if (!isPrintableAscii(char)) return null;
    if (char === "\\") {
      const escape = escapeOutsideClass(pattern, index);
      if (escape === null) return null;
      out += escape.text;
      index = escape.end;
      continue;
    }
    if (char === "[") {
      const klass = characterClass(pattern, index);
      if (klass === null) return null;
      out += klass.text;
      index = klass.end;
      continue;
    }
    if (char === ".") {
      out += anyBut(".");
      index += 1;
      continue;
    }
    if (char === "(") {
      const rest = pattern.slice(index);
      if (rest.startsWith("(?")) {
        if (rest.startsWith("(?P<")) out += "(?P<";
        else if (rest.startsWith("(?<")) out += "(?P<";
        else if (FLAG_GROUP.test(rest)) out += "(?";
        else return null;
        index += rest.startsWith("(?<") ? 3 : rest.startsWith("(?P<") ? 4 : 2;
        continue;
      }
      out += "(";
      index += 1;
      continue;
    }
    if (char === "{") {
      const repetition = REPETITION.exec(pattern.slice(index));
      if (repetition === null) {
        out += "\\{";
        index += 1;
      } else {
        out += repetition[0];
        index += repetition[0].length;
      }
      continue;
    }
    if (char === "^") {
      // ripgrep reads bytes as they are (`--encoding none`); the built-in's decoder drops a
      // leading UTF-8 byte order mark, so a line may also start after one.
      out += `^${UTF8_BOM}`;
      index += 1;
      continue;
    }
    if (char === "}") {
      out += "\\}";
      index += 1;
      continue;
    }
    out += char;
    index += 1;
  }
  return out;
}

/** `(?:<class, case-sensitive>|<non-ASCII bytes>)`: a superset of an RE2 "any but" class. */
function anyBut(klass: string): string {
  return `(?:(?-i:${klass})|${NON_ASCII_BYTES})`;
}

function isPrintableAscii(char: string): boolean {
  const code = char.charCodeAt(0);
  return code >= 0x20 && code <= 0x7e;
}

/** ASCII classes of RE2's Perl escapes, as class members. */
const PERL_MEMBERS: Record<string, string> = {
  d: "0-9",
  w: "0-9A-Za-z_",
  s: "\\t\\n\\f\\r ",
};

/** Control-character escapes both dialects read alike. */
const CONTROL_ESCAPES: Record<string, string> = {
  t: "\\t",
  r: "\\r",
  f: "\\f",
  v: "\\x0B",
  a: "\\x07",
};

/** One escape at `index` (a backslash) as a class member, or null when refused. */
function escapeMember(pattern: string, index: number): { text: string; end: number } | null {
  const next = pattern[index + 1];
  if (next === undefined || !isPrintableAscii(next)) return null;
  if (next in PERL_MEMBERS) return { text: PERL_MEMBERS[next] as string, end: index + 2 };
  if (next in CONTROL_ESCAPES) return { text: CONTROL_ESCAPES[next] as string, end: index + 2 };
  if (next === "x") {
    const hex = /^[0-7][0-9A-Fa-f]/.exec(pattern.slice(index + 2, index + 4));
    return hex === null ? null : { text: `\\x${hex[0]}`, end: index + 4 };
  }
  if (/[A-Za-z0-9]/.test(next)) return null;
  return { text: RUST_META.has(next) ? `\\${next}` : next, end: index + 2 };
}

/** One escape outside a class: the Perl classes and their negations, or a member. */
function escapeOutsideClass(
  pattern: string,
  index: number,
): { text: string; end: number } | null {
  const next = pattern[index + 1];
  if (next === "D" || next === "W" || next === "S") {
    return { text: anyBut(`[^${PERL_MEMBERS[next.toLowerCase()]}]`), end: index + 2 };
  }
  const member = escapeMember(pattern, index);
  if (member === null) return null;
  return {
    text: next !== undefined && next in PERL_MEMBERS ? `[${member.text}]` : member.text,
    end: member.end,
  };
}

/** The class starting at `index` (`[`), or null when refused or not closed. */
function characterClass(pattern: string, index: number): { text: string; end: number } | null {
  let position = index + 1;
  const negated = pattern[position] === "^";
  if (negated) position += 1;
  let members = "";
  // A `]` first is a literal in RE2.
  if (pattern[position] === "]") {
    members += "\\]";
    position += 1;
  }
  while (position < pattern.length) {
    const char = pattern[position] as string;
    if (!isPrintableAscii(char)) return null;
    if (char === "]") {
      const text = negated ? anyBut(`[^${members}]`) : `[${members}]`;
      return { text, end: position + 1 };
    }
    if (char === "\\") {
      const member = escapeMember(pattern, position);
      if (member === null) return null;
      members += member.text;
      position = member.end;
      continue;
    }
    if (char === "[") {
      const posix = /^\[:([a-z]+):\]/.exec(pattern.slice(position));
      if (posix === null) return null;
      members += posix[0];
      position += posix[0].length;
      continue;
    }
    const pair = pattern.slice(position, position + 2);
    if (pair === "&&" || pair === "--" || pair === "~~") return null;
    members += char === "&" || char === "~" ? `\\${char}` : char;
    position += 1;
  }
  return null;
}
