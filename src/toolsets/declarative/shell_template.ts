/**
 * Reads a shell-mode script (`command_type: "shell"`) the way sh(1) will, to tell where each
 * `{{field}}` placeholder stands and which commands its input can reach. Nothing is run.
 *
 * A placeholder is rendered as one single-quoted word (`'it'\''s'`), which is safe only where sh
 * reads a bare word. So a placeholder is refused (the script does not load) when it stands:
 * - inside single quotes, double quotes, `$'…'`, backticks, `$(…)`, `${…}` or `$((…))` — the
 *   quotes would close the surrounding quotes, or the text is parsed again (backticks);
 * - in a here-document body or its delimiter — the body is not parsed for quotes;
 * - in a comment — a newline in the value would end the comment;
 * - right after a backslash or a `$` — `\'` and `$'` change what the quote means;
 * - as a command name — the input would choose the program.
 *
 * Every simple command is reported (those inside `$(…)` and backticks too) with whether its
 * arguments can carry input: a placeholder, or a parameter expansion (`"$1"`, `$x`), since the
 * tool's `args` become the positional parameters and variables can hold placeholders.
 *
 * @module
 */

import { Scanner, ShellTemplateRefusal } from "./_shell_scanner.ts";

/** One simple command of a script. */
export interface ShellCommandUse {
  /** The command name with quotes removed (`eval`), or as written when it is computed. */
  name: string;
  /** The name holds an expansion or a substitution: the program is chosen when the script runs. */
  computed: boolean;
  /** Its arguments, in order (redirections left out). */
  arguments: readonly ShellArgument[];
}

/** One argument of a {@linkcode ShellCommandUse}. */
export interface ShellArgument {
  /** It holds a placeholder or an expansion, so the input can reach it. */
  carriesInput: boolean;
  /** It starts with a literal `NAME=` (an assignment to a name the script chose). */
  assignment: boolean;
}

/** What {@linkcode analyzeShellTemplate} found: the commands, or why the script cannot load. */
export type ShellTemplateAnalysis =
  | { ok: true; commands: ShellCommandUse[] }
  | { ok: false; reason: string };

/**
 * Analyses a shell-mode script.
 *
 * @param script The `command` of a shell-mode tool file, placeholders unfilled.
 * @returns The commands of the script, or the first placeholder that stands where it cannot be
 * quoted, with where it stands.
 * @example
 * ```ts
 * import { analyzeShellTemplate } from "./shell_template.ts";
 * const bare = analyzeShellTemplate("echo {{text}}");
 * console.assert(bare.ok && bare.commands[0]?.name === "echo");
 * console.assert(!analyzeShellTemplate("echo '{{text}}'").ok);
 * ```
 */
export function analyzeShellTemplate(script: string): ShellTemplateAnalysis {
  const scanner = new Scanner(script);
  try {
    scanner.script(null);
    return { ok: true, commands: scanner.commands };
  } catch (error) {
    if (error instanceof ShellTemplateRefusal) return { ok: false, reason: error.message };
    throw error;
  }
}
