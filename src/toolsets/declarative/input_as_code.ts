/**
 * Tells whether a declarative tool runs the model's input as code: a shell in all but name. Such a
 * tool must carry the `dangerous` tag, which the policy turns off unless a permissions rule names
 * the tool exactly, and which makes every call ask (see `declarative_tool.ts`).
 *
 * Exec mode (`command` + `args`): a program that runs whatever it is told (a shell, interpreter,
 * exec wrapper, build tool… — anything `analyzeArgv` reports as `unrestricted_execution`) runs the
 * input as code when an argument holds a `{{field}}` (`sh -c {{text}}`, `python3 -c {{code}}`,
 * `env {{program}}`). It is exempt only when it is a shell or an interpreter whose arguments are all
 * fixed and start with the script (a file, or program text such as awk's) rather than an option:
 * with no argument, or `-c`, `-s`, `-`, the program would read its code from standard input, where
 * the input goes as JSON (`sh` runs `{"text":"$(…)"}`); exec wrappers such as `xargs` read more
 * arguments from it.
 *
 * Shell mode (`command_type: "shell"`): when input reaches the script (a placeholder, or a
 * templated `args` element that becomes a positional parameter), every simple command whose
 * arguments can carry it (a placeholder or an expansion such as `"$1"`) is checked like exec mode,
 * plus the shell's own builtins that run text or define names: `eval`, `.`, `source`, `trap`,
 * `alias`, `let`, `export`, `read`… A command whose name is computed (`"$@"`, `$cmd`) counts too.
 *
 * @module
 */

import { analyzeArgv } from "../../exec/mod.ts";
import type { DeclarativeToolFile } from "./declarative_tool_file.ts";
import type { ShellCommandUse } from "./shell_template.ts";
import { templateFields } from "./template.ts";

/** Shell builtins that run their arguments as code (beyond `eval`, `exec`, `command`). */
const CODE_BUILTINS: ReadonlyMap<string, string> = new Map([
  [".", "it runs the file its argument names"],
  ["source", "it runs the file its argument names"],
  ["trap", "it runs its first argument when a signal arrives"],
  ["alias", "it defines commands"],
  ["builtin", "it runs the builtin its argument names (eval included)"],
  ["enable", "it loads builtins from a shared library (bash enable -f)"],
  ["fc", "it runs commands from the history"],
  ["hash", "it maps a command name to any file (bash hash -p)"],
  ["let", "it evaluates arithmetic, where bash runs $(…) in array subscripts"],
  ["[[", "it evaluates arithmetic, where bash runs $(…) in array subscripts"],
]);

/** Shell builtins whose arguments name variables (bash runs $(…) in a name's array subscript). */
const NAME_BUILTINS = new Set([
  "export",
  "readonly",
  "declare",
  "typeset",
  "local",
  "unset",
  "read",
  "mapfile",
  "readarray",
  "getopts",
]);

/** The parts of a tool file that decide: its mode, command and args (placeholders unfilled). */
export interface ToolShape {
  command_type: DeclarativeToolFile["command_type"];
  command: string;
  args: readonly string[];
}

/**
 * Why `tool` runs its input as code, or null when it does not.
 *
 * @param tool The tool file's mode, command and args (placeholders unfilled).
 * @param shellCommands For shell mode: the script's commands from `analyzeShellTemplate`.
 * @returns A reason to put after "so", naming the program and the argument; null when exempt.
 * @example
 * ```ts
 * import { inputAsCodeReason } from "./input_as_code.ts";
 * const shell = { command_type: "exec", command: "sh", args: ["-c", "{{text}}"] } as const;
 * console.assert(inputAsCodeReason(shell, []) !== null);
 * const echo = { command_type: "exec", command: "echo", args: ["{{text}}"] } as const;
 * console.assert(inputAsCodeReason(echo, []) === null);
 * ```
 */
export function inputAsCodeReason(
  tool: ToolShape,
  shellCommands: readonly ShellCommandUse[],
): string | null {
  const templated = tool.args.findIndex((arg) => templateFields(arg).length > 0);
  if (tool.command_type === "exec") {
    const finding = unrestricted(tool.command);
    if (finding === null) return null;
    if (templated !== -1) {
      return `"${tool.command}" runs whatever its arguments say (${finding.reason}) and ` +
        `args[${templated}] fills in the input`;
    }
    const first = tool.args[0];
    const scriptFirst = (finding.id === "argv:shell" || finding.id === "argv:interpreter") &&
      first !== undefined && !first.startsWith("-");
    if (scriptFirst) return null;
    return `"${tool.command}" runs whatever it is told (${finding.reason}) and its args do not ` +
      "start with a fixed script, so standard input (the input as JSON) or an option decides what " +
      "it runs";
  }
  if (templated === -1 && templateFields(tool.command).length === 0) return null;
  for (const command of shellCommands) {
    const reason = shellCommandReason(command);
    if (reason !== null) return `the script's command "${command.name}" ${reason}`;
  }
  return null;
}

function shellCommandReason(command: ShellCommandUse): string | null {
  const carried = command.arguments.findIndex((argument) => argument.carriesInput);
  if (command.computed) return "is chosen when the script runs, from values the input can set";
  if (carried === -1) return null;
  const finding = unrestricted(command.name);
  if (finding !== null) {
    return `runs whatever its arguments say (${finding.reason}), and argument ${
      carried + 1
    } can carry the input`;
  }
  const builtin = CODE_BUILTINS.get(command.name);
  if (builtin !== undefined) return `gets the input as argument ${carried + 1}: ${builtin}`;
  const named = command.arguments.findIndex((argument) =>
    argument.carriesInput && !argument.assignment
  );
  if (NAME_BUILTINS.has(command.name) && named !== -1) {
    return `gets the input as argument ${named + 1}, a variable name (bash runs $(…) in a ` +
      "name's array subscript, and the name may be PATH or BASH_ENV)";
  }
  if (command.name === "printf" && command.arguments[0]?.carriesInput) {
    return "gets the input as its format (bash printf -v assigns to a variable it names)";
  }
  return null;
}

function unrestricted(program: string) {
  return analyzeArgv([program]).find((finding) => finding.kind === "unrestricted_execution") ??
    null;
}
