/**
 * The scanner behind `analyzeShellTemplate` (shell_template.ts): one pass over an sh script that
 * follows quotes, substitutions, here-documents and comments, refuses a placeholder wherever it
 * does not stand as a bare word at the top level, and records every simple command.
 *
 * @module
 */

import type { ShellCommandUse } from "./shell_template.ts";

/** Words that start or end compound commands: the command name is the word after them. */
const RESERVED = new Set("! { } if then else elif fi do done while until esac time".split(" "));
/** Compound commands whose following words name no command (`for x in …`, `case x in`). */
const NO_COMMAND = new Set(["for", "case", "select", "function"]);
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/y;
const NAME_CHARACTER = /[A-Za-z0-9_]/;
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** A here-document waiting for its body: `expands` when its delimiter was not quoted. */
interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
  expands: boolean;
}

interface Word {
  raw: string;
  literal: string;
  placeholder: boolean;
  expansion: boolean;
}

/** A placeholder stands where it cannot be quoted; the message is the reason. */
export class ShellTemplateRefusal extends Error {}

/** Reads one script; `script(null)` fills `commands` or throws {@linkcode ShellTemplateRefusal}. */
export class Scanner {
  readonly commands: ShellCommandUse[] = [];
  #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** A placeholder starting at `at`, or null. */
  #placeholder(at: number): string | null {
    PLACEHOLDER.lastIndex = at;
    return PLACEHOLDER.exec(this.#text)?.[0] ?? null;
  }

  #refuse(at: number, where: string): never {
    const found = this.#placeholder(at) ?? "{{…}}";
    throw new ShellTemplateRefusal(
      `has "${found}" ${where}, where single quotes cannot keep its value one literal word; ` +
        "put the placeholder alone as a bare word (it is single-quoted when filled) or pass the " +
        'value as an "args" element and use "$1"',
    );
  }

  /** Refuses a placeholder anywhere before `end` (the text of a nested construct). */
  #refuseInside(start: number, end: number, where: string): void {
    for (let at = start; at < end; at++) {
      if (this.#placeholder(at) !== null) this.#refuse(at, where);
    }
  }

  /**
   * Commands until `closing` (`)` of `$(…)`) or the end. Placeholders stand bare only at the top.
   */
  script(closing: ")" | null): void {
    const top = closing === null;
    const text = this.#text;
    let words: Word[] = [];
    let word = null as Word | null;
    let redirectTarget = false;
    let parentheses = 0;
    let cases = 0;
    const heredocs: Heredoc[] = [];
    const current = (): Word =>
      word ??= { raw: "", literal: "", placeholder: false, expansion: false };
    const commandPosition = () =>
      words.every((each) => RESERVED.has(each.raw) || ASSIGNMENT.test(each.raw));
    const endWord = () => {
      if (word === null) return;
      if (redirectTarget) {
        redirectTarget = false;
      } else {
        if (commandPosition() && word.raw === "case") cases++;
        if (commandPosition() && word.raw === "esac" && cases > 0) cases--;
        words.push(word);
      }
      word = null;
    };
    const endCommand = () => {
      endWord();
      this.#command(words);
      words = [];
    };
    while (this.#at < text.length) {
      const at = this.#at;
      const character = text[at] as string;
      if (this.#placeholder(at) !== null) {
        if (!top) this.#refuse(at, "inside $(…)");
        const placeholder = this.#placeholder(at) as string;
        const target = current();
        target.raw += placeholder;
        target.placeholder = true;
        this.#at += placeholder.length;
        continue;
      }
      if (character === "\\") {
        if (text[at + 1] === "\n") {
          this.#at += 2;
          continue;
        }
        if (this.#placeholder(at + 1) !== null) this.#refuse(at + 1, "right after a backslash");
        const target = current();
        target.raw += text.slice(at, at + 2);
        target.literal += text[at + 1] ?? "";
        this.#at += 2;
        continue;
      }
      if (character === "#" && word === null) {
        const end = text.indexOf("\n", at);
        const stop = end === -1 ? text.length : end;
        this.#refuseInside(at, stop, "inside a comment");
        this.#at = stop;
        continue;
      }
      if (character === "\n") {
        endCommand();
        this.#at++;
        for (const heredoc of heredocs.splice(0)) this.#heredocBody(heredoc);
        continue;
      }
      if (character === " " || character === "\t") {
        endWord();
        this.#at++;
        continue;
      }
      if (character === "<" || character === ">") {
        if (word !== null && /^[0-9]+$/.test(word.raw)) word = null;
        endWord();
        redirectTarget = this.#redirection(heredocs);
        continue;
      }
      if (character === "&" && text[at + 1] === ">") {
        endWord();
        this.#at++;
        continue;
      }
      if (character === ")" && !top && parentheses === 0 && cases === 0) {
        endCommand();
        this.#at++;
        return;
      }
      if (";&|()".includes(character)) {
        if (character === "(" && !top) parentheses++;
        if (character === ")" && !top && parentheses > 0) parentheses--;
        endCommand();
        this.#at++;
        continue;
      }
      this.#wordPart(current());
    }
    endCommand();
  }

  /** One quoted or substituted part of a word, or one plain character. */
  #wordPart(target: Word): void {
    const text = this.#text;
    const at = this.#at;
    const character = text[at] as string;
    if (character === "'") {
      const end = text.indexOf("'", at + 1);
      const stop = end === -1 ? text.length : end;
      this.#refuseInside(at + 1, stop, "inside single quotes");
      target.raw += text.slice(at, stop + 1);
      target.literal += text.slice(at + 1, stop);
      this.#at = stop + 1;
      return;
    }
    if (character === '"') {
      this.#at++;
      this.#doubleQuoted(target);
      return;
    }
    if (character === "`") {
      this.#backticks(target);
      return;
    }
    if (character === "$") {
      this.#dollar(target, "");
      return;
    }
    target.raw += character;
    target.literal += character;
    this.#at++;
  }

  /** After an opening `"`, up to and past the closing one. */
  #doubleQuoted(target: Word): void {
    const text = this.#text;
    const start = this.#at - 1;
    const before = target.raw;
    while (this.#at < text.length && text[this.#at] !== '"') {
      const at = this.#at;
      if (this.#placeholder(at) !== null) this.#refuse(at, "inside double quotes");
      const character = text[at] as string;
      if (character === "\\") {
        if (this.#placeholder(at + 1) !== null) this.#refuse(at + 1, "inside double quotes");
        target.literal += '$`"\\\n'.includes(text[at + 1] ?? "")
          ? text[at + 1]
          : text.slice(at, at + 2);
        this.#at += 2;
      } else if (character === "`") {
        this.#backticks(target, "inside double quotes");
      } else if (character === "$") {
        this.#dollar(target, "inside double quotes");
      } else {
        target.literal += character;
        this.#at++;
      }
    }
    this.#at++;
    target.raw = before + text.slice(start, this.#at);
  }

  /** A `$` expansion: `$name`, `$1`, `${…}`, `$(…)`, `$((…))`, `$'…'`, `$"…"`. */
  #dollar(target: Word, where: string): void {
    const text = this.#text;
    const at = this.#at;
    if (this.#placeholder(at + 1) !== null) this.#refuse(at + 1, "right after $");
    const next = text[at + 1] ?? "";
    const start = at;
    if (text.startsWith("$((", at)) {
      this.#at = this.#balanced(at + 3, "(", ")", 2, where || "inside $((…))");
      target.expansion = true;
    } else if (next === "(") {
      this.#at = at + 2;
      this.script(")");
      target.expansion = true;
    } else if (next === "{") {
      this.#at = this.#balanced(at + 2, "{", "}", 1, where || "inside ${…}");
      target.expansion = true;
    } else if (next === "'" && where === "") {
      let end = at + 2;
      while (end < text.length && text[end] !== "'") end += text[end] === "\\" ? 2 : 1;
      this.#refuseInside(at + 2, Math.min(end, text.length), "inside $'…' quotes");
      this.#at = end + 1;
      target.literal += text.slice(at + 2, end);
    } else if (next === '"' && where === "") {
      target.raw += "$";
      this.#at = at + 2;
      this.#doubleQuoted(target);
      return;
    } else if (NAME_CHARACTER.test(next) && !/[0-9]/.test(next)) {
      let end = at + 1;
      while (end < text.length && NAME_CHARACTER.test(text[end] as string)) end++;
      this.#at = end;
      target.expansion = true;
    } else if (next !== "" && SPECIAL_PARAMETER.test(next)) {
      this.#at = at + 2;
      target.expansion = true;
    } else {
      this.#at = at + 1;
      target.literal += "$";
    }
    target.raw += text.slice(start, this.#at);
  }

  /**
   * Skips a nested construct from `from` up to the `close` that brings `depth` open ones to zero
   * (nesting `open`), single quotes respected; refuses a placeholder inside. @returns the index
   * after that `close`.
   */
  #balanced(from: number, open: string, close: string, depth: number, where: string): number {
    const text = this.#text;
    let at = from;
    while (at < text.length) {
      if (this.#placeholder(at) !== null) this.#refuse(at, where);
      const character = text[at] as string;
      if (character === "\\") {
        at += 2;
      } else if (character === "'") {
        const end = text.indexOf("'", at + 1);
        if (end !== -1) this.#refuseInside(at, end, where);
        at = end === -1 ? text.length : end + 1;
      } else if (text.startsWith(close, at)) {
        depth--;
        at += close.length;
        if (depth === 0) return at;
      } else if (text.startsWith(open, at)) {
        depth++;
        at += open.length;
      } else {
        at++;
      }
    }
    return at;
  }

  /** A backtick substitution: its text is read again by sh, so it is analysed as a script. */
  #backticks(target: Word, where = "inside backticks"): void {
    const text = this.#text;
    const start = this.#at;
    let inner = "";
    let at = start + 1;
    while (at < text.length && text[at] !== "`") {
      if (this.#placeholder(at) !== null) this.#refuse(at, where);
      if (text[at] === "\\" && "$`\\".includes(text[at + 1] ?? "")) {
        if (this.#placeholder(at + 1) !== null) this.#refuse(at + 1, where);
        inner += text[at + 1];
        at += 2;
      } else {
        inner += text[at];
        at++;
      }
    }
    this.#at = at + 1;
    const nested = new Scanner(inner);
    nested.script(null);
    this.commands.push(...nested.commands);
    target.raw += text.slice(start, this.#at);
    target.expansion = true;
  }

  /**
   * A redirection operator at `#at`; a `<<` here-document's delimiter is read here and its body
   * queued for the next newline. @returns whether a target word follows (not for `<<`).
   */
  #redirection(heredocs: Heredoc[]): boolean {
    const text = this.#text;
    const operator = /^(<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)/.exec(text.slice(this.#at))?.[0] ?? "<";
    this.#at += operator.length;
    if (operator !== "<<" && operator !== "<<-") return true;
    while (text[this.#at] === " " || text[this.#at] === "\t") this.#at++;
    const start = this.#at;
    while (this.#at < text.length && !/[\s;&|()<>]/.test(text[this.#at] as string)) {
      if (text[this.#at] === "'" || text[this.#at] === '"') {
        const end = text.indexOf(text[this.#at] as string, this.#at + 1);
        this.#at = end === -1 ? text.length : end + 1;
      } else {
        this.#at++;
      }
    }
    this.#refuseInside(start, this.#at, "in a here-document delimiter");
    const written = text.slice(start, this.#at);
    const delimiter = written.replace(/['"\\]/g, "");
    heredocs.push({ delimiter, stripTabs: operator === "<<-", expands: delimiter === written });
    return false;
  }

  /**
   * Reads a here-document body (from `#at`, after the newline) through its delimiter line: a
   * placeholder in it is refused; the `$(…)` and backticks of an expanding body are analysed.
   */
  #heredocBody(heredoc: Heredoc): void {
    const text = this.#text;
    let end = this.#at;
    let next = text.length;
    while (end < text.length) {
      const newline = text.indexOf("\n", end);
      const stop = newline === -1 ? text.length : newline;
      const line = text.slice(end, stop);
      if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line) === heredoc.delimiter) {
        next = stop + 1;
        break;
      }
      end = stop + 1;
    }
    end = Math.min(end, text.length);
    this.#refuseInside(this.#at, end, "inside a here-document");
    const ignored: Word = { raw: "", literal: "", placeholder: false, expansion: false };
    while (heredoc.expands && this.#at < end) {
      const character = text[this.#at];
      if (character === "\\") this.#at += 2;
      else if (character === "$") this.#dollar(ignored, "inside a here-document");
      else if (character === "`") this.#backticks(ignored, "inside a here-document");
      else this.#at++;
    }
    this.#at = next;
  }

  /** Records one simple command, or refuses a placeholder as its name. */
  #command(words: readonly Word[]): void {
    let index = 0;
    while (
      index < words.length &&
      (RESERVED.has((words[index] as Word).raw) || ASSIGNMENT.test((words[index] as Word).raw))
    ) index++;
    const name = words[index];
    if (name === undefined || NO_COMMAND.has(name.raw)) return;
    if (name.placeholder) {
      throw new ShellTemplateRefusal(
        `has "${
          /\{\{[^}]*\}\}/.exec(name.raw)?.[0]
        }" as a command name, so the input would choose the program; name the program in the script`,
      );
    }
    this.commands.push({
      name: name.expansion ? name.raw : name.literal,
      computed: name.expansion,
      arguments: words.slice(index + 1).map((word) => ({
        carriesInput: word.placeholder || word.expansion,
        assignment: ASSIGNMENT.test(word.raw),
      })),
    });
  }
}
