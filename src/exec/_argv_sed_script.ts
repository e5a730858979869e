/**
 * A conservative scanner of sed scripts (GNU sed 4.9 manual, "sed scripts"): finds the commands
 * that run a program (`e`, the `e` flag of `s`) or write a file (`w`, `W`, the `w` flag of `s`).
 *
 * It walks the script command by command: addresses (`3`, `$`, `/re/I`, `\%re%`, `1~2`, `,+3`,
 * `!`), then one command and its arguments, as sed.c compile_program reads them. Text commands
 * (`a`, `i`, `c`) and file names (`r`, `w`, `e`) run to the end of the line, `;` included, as in
 * GNU sed. Whatever it cannot read the way every sed version would (an unknown command, an
 * unterminated regex, a bracket expression holding the delimiter or a backslash, which GNU sed
 * versions read differently) ends the scan with an `unchecked` issue: a scanner that guessed
 * could be led past an `e` command.
 *
 * `r`/`R` (read a file) are not reported: reading is what the program is for. `w` is reported for
 * what it means (a stream editor that writes files), not for where: the file names of `r` and `w`
 * are not checked against the roots here, which the mount profile bounds for any program.
 *
 * @module
 */

import type { FindingKind } from "./argv_analysis.ts";

/** One problem in a script, at a character offset of the script text. */
export interface SedScriptIssue {
  id: string;
  kind: FindingKind;
  offset: number;
  reason: string;
}

/** GNU sed writes these itself instead of opening a file (sed(1): w filename). */
const SPECIAL_OUTPUTS: ReadonlySet<string> = new Set(["/dev/stdout", "/dev/stderr"]);
/** Commands without arguments. */
const PLAIN = new Set([..."=dDgGhHxnNpPzF{}"]);
/** Commands with an optional number (q, Q exit code; l, L line length). */
const NUMBERED = new Set([..."qQlL"]);
/** Flags of `s` besides e and w (sed(1): The "s" Command). */
const S_FLAGS = new Set([..."gpiImM0123456789"]);

class Unreadable extends Error {}

/**
 * Scans `script` and returns its issues (empty when it only reads and prints).
 *
 * @example
 * ```ts
 * import { scanSedScript } from "./_argv_sed_script.ts";
 * scanSedScript("s/a/b/e").map((issue) => issue.kind); // ["code_execution"]
 * ```
 */
export function scanSedScript(script: string): SedScriptIssue[] {
  const issues: SedScriptIssue[] = [];
  let at = 0;
  const peek = () => script[at] ?? "";
  const skipBlanks = () => {
    while (peek() === " " || peek() === "\t") at++;
  };
  const restOfLine = (): string => {
    const end = script.indexOf("\n", at);
    const text = script.slice(at, end === -1 ? script.length : end);
    at = end === -1 ? script.length : end;
    return text;
  };
  const write = (offset: number, name: string) => {
    const file = name.trim();
    if (SPECIAL_OUTPUTS.has(file)) return;
    issues.push({
      id: "argv:sed:write",
      kind: "file_write",
      offset,
      reason: `the script writes the file "${file}" (sed(1): w filename, W filename, s///w)`,
    });
  };
  const execute = (offset: number) =>
    issues.push({
      id: "argv:sed:execute",
      kind: "code_execution",
      offset,
      reason: "the script runs a shell command (sed(1): e command, s///e)",
    });

  /** Reads up to the unescaped `delimiter`; `regex` parts honour bracket expressions. */
  const delimited = (delimiter: string, regex: boolean) => {
    if (delimiter === "" || delimiter === "\n" || delimiter === "\\") {
      throw new Unreadable("a delimiter is missing or is a newline or a backslash");
    }
    while (at < script.length) {
      const char = script[at] ?? "";
      if (char === "\\") {
        at += 2;
        continue;
      }
      if (char === delimiter) {
        at++;
        return;
      }
      if (char === "\n" && regex) throw new Unreadable("a regex runs past the end of its line");
      if (char === "[" && regex) {
        bracket(delimiter);
        continue;
      }
      at++;
    }
    throw new Unreadable("a regex or replacement is not terminated");
  };
  const bracket = (delimiter: string) => {
    const start = at;
    at++;
    if (peek() === "^") at++;
    if (peek() === "]") at++;
    while (at < script.length && peek() !== "]") {
      const char = peek();
      if (char === delimiter || char === "\\" || char === "\n") {
        throw new Unreadable(
          `the bracket expression at offset ${start} holds the delimiter, a backslash or a newline, which sed versions read differently`,
        );
      }
      if (char === "[" && ":.=".includes(script[at + 1] ?? "")) {
        const close = script.indexOf(`${script[at + 1]}]`, at + 2);
        if (close === -1) throw new Unreadable("a character class is not terminated");
        at = close + 2;
        continue;
      }
      at++;
    }
    if (at >= script.length) throw new Unreadable("a bracket expression is not terminated");
    at++;
  };
  const address = (): boolean => {
    const char = peek();
    if (/\d/.test(char)) {
      while (/\d/.test(peek())) at++;
      if (peek() === "~") {
        at++;
        while (/\d/.test(peek())) at++;
      }
      return true;
    }
    if (char === "$") {
      at++;
      return true;
    }
    if (char === "/" || char === "\\") {
      if (char === "\\") at++;
      const delimiter = peek();
      at++;
      delimited(delimiter, true);
      while (peek() === "I" || peek() === "M") at++;
      return true;
    }
    return false;
  };

  try {
    while (at < script.length) {
      while (/[\s;]/.test(peek()) && at < script.length) at++;
      if (at >= script.length) break;
      if (peek() === "#") {
        restOfLine();
        continue;
      }
      if (address()) {
        skipBlanks();
        if (peek() === ",") {
          at++;
          skipBlanks();
          if (peek() === "+" || peek() === "~") {
            at++;
            while (/\d/.test(peek())) at++;
          } else if (!address()) throw new Unreadable("the second address cannot be read");
        }
      }
      skipBlanks();
      while (peek() === "!" || peek() === " " || peek() === "\t") at++;
      const offset = at;
      const command = peek();
      at++;
      if (PLAIN.has(command)) continue;
      if (NUMBERED.has(command)) {
        skipBlanks();
        while (/\d/.test(peek())) at++;
        continue;
      }
      switch (command) {
        case ":":
        case "b":
        case "t":
        case "T":
        case "v":
          skipBlanks();
          while (at < script.length && !/[\s;]/.test(peek())) at++;
          break;
        case "a":
        case "i":
        case "c":
          // The text runs to the first newline that is not escaped.
          while (at < script.length && peek() !== "\n") at += peek() === "\\" ? 2 : 1;
          break;
        case "r":
        case "R":
          restOfLine();
          break;
        case "w":
        case "W":
          skipBlanks();
          write(offset, restOfLine());
          break;
        case "e":
          execute(offset);
          restOfLine();
          break;
        case "y": {
          const delimiter = peek();
          at++;
          delimited(delimiter, false);
          delimited(delimiter, false);
          break;
        }
        case "s": {
          const delimiter = peek();
          at++;
          delimited(delimiter, true);
          delimited(delimiter, false);
          substitutionFlags(offset);
          break;
        }
        default:
          throw new Unreadable(
            command === "" ? "an address has no command" : `"${command}" is not a sed command`,
          );
      }
    }
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    issues.push({
      id: "argv:sed:unparsed-script",
      kind: "unchecked",
      offset: at,
      reason: `the script cannot be fully read: ${error.message} (sed(1): sed scripts)`,
    });
  }
  return issues;

  function substitutionFlags(offset: number): void {
    while (at < script.length) {
      const char = peek();
      if (char === "\n" || char === ";" || char === "}" || char === "#") return;
      if (char === " " || char === "\t" || S_FLAGS.has(char)) {
        at++;
      } else if (char === "e") {
        execute(offset);
        at++;
      } else if (char === "w") {
        at++;
        skipBlanks();
        write(offset, restOfLine());
        return;
      } else {
        throw new Unreadable(`"${char}" is not a flag of the s command`);
      }
    }
  }
}
