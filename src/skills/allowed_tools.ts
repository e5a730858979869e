/**
 * What a skill's `allowed-tools` entries mean in kagent-run. The specification writes them as
 * Claude Code does (`Read Grep Bash(git:*)`); kagent-run also takes its own tool names and
 * patterns (`fs.read_file`, `fs.*`). Each entry becomes tool-name patterns, and a `Bash(…)`
 * pattern also limits `exec.run_command` to that command. An entry kagent-run cannot honour is
 * dropped with a warning: dropping narrows, so a skill never gets more than it named.
 *
 * | entry                                   | kagent-run                                        |
 * | --------------------------------------- | ------------------------------------------------- |
 * | `Read`                                  | `fs.read_file`                                    |
 * | `Write`                                 | `fs.write_file`                                   |
 * | `Edit`, `MultiEdit`                     | `fs.edit_file`                                    |
 * | `Glob`, `LS`                            | `fs.list_files`                                   |
 * | `Grep`                                  | `fs.grep_files`                                   |
 * | `Bash`, `Bash(*)`                       | `exec.run_command`, any command                   |
 * | `Bash(git:*)`, `Bash(git *)`            | `exec.run_command`, only `git …`                  |
 * | `Bash(git diff:*)`                      | `exec.run_command`, only `git diff …`             |
 * | `Bash(npm test)`                        | `exec.run_command`, only exactly `npm test`       |
 * | `mcp__server__tool`, `mcp__server`      | `mcp.server.tool`, `mcp.server.*`                 |
 * | `fs.read_file`, `fs.*`, `*`             | itself (a tool-name pattern)                      |
 *
 * @module
 */

import picomatch from "picomatch";
import type { SkillRequest } from "../policy/mod.ts";

/** One command a skill may run (the policy's `SkillCommand`). */
type SkillCommand = NonNullable<SkillRequest["allowed_commands"]>[number];

/** Claude Code tool names and the kagent-run tools they stand for. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  Read: ["fs.read_file"],
  Write: ["fs.write_file"],
  Edit: ["fs.edit_file"],
  MultiEdit: ["fs.edit_file"],
  Glob: ["fs.list_files"],
  LS: ["fs.list_files"],
  Grep: ["fs.grep_files"],
  Bash: ["exec.run_command"],
};

/** The tool a `Bash(…)` entry limits. */
export const COMMAND_TOOL = "exec.run_command";

/** What a skill's allowed-tools entries map to. */
export interface MappedAllowedTools {
  /** Tool-name patterns (picomatch), deduplicated, in entry order. */
  tools: string[];
  /**
   * Commands `exec.run_command` is limited to; empty when no entry limits it (or when an entry
   * such as `Bash`, `exec.*` or `*` allows it without limit).
   */
  commands: SkillCommand[];
  /** One sentence per entry that was dropped, e.g. `allowed-tools entry "Task" is not known: …`. */
  warnings: string[];
}

/** Characters of a kagent-run tool-name pattern. */
const OWN_PATTERN = /^[A-Za-z0-9_.*-]+$/;
/** `mcp__server` or `mcp__server__tool`, as Claude Code names MCP tools. */
const CLAUDE_MCP = /^mcp__([A-Za-z0-9_-]+?)(?:__([A-Za-z0-9_.-]+))?$/;
/** `Name(specifier)`. */
const WITH_SPECIFIER = /^([A-Za-z]+)\((.*)\)$/s;
/** Characters a shell would read as more than a word: not allowed in a command specifier. */
const SHELL_SYNTAX = /["'`$\\;|&<>(){}\[\]!?~#]/;

/**
 * Splits an `allowed-tools` string into entries: on whitespace and commas outside parentheses, so
 * that `Read, Grep, Bash(git diff:*)` gives three entries.
 *
 * @param value The string as written.
 * @returns the entries, without empty ones.
 * @example
 * ```ts
 * import { splitAllowedTools } from "./allowed_tools.ts";
 * console.log(splitAllowedTools("Read, Bash(git diff:*)")); // ["Read", "Bash(git diff:*)"]
 * ```
 */
export function splitAllowedTools(value: string): string[] {
  const entries: string[] = [];
  let current = "";
  let depth = 0;
  for (const character of value) {
    if (character === "(") depth += 1;
    if (character === ")" && depth > 0) depth -= 1;
    if (depth === 0 && (character === "," || /\s/.test(character))) {
      if (current !== "") entries.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  if (current !== "") entries.push(current);
  return entries;
}

/**
 * Maps allowed-tools entries to tool-name patterns and command limits (see the table above).
 *
 * @param entries The entries as written, e.g. `["Read", "Bash(git:*)", "fs.*"]`.
 * @returns the patterns, the `exec.run_command` limits, and a warning per dropped entry.
 * @example
 * ```ts
 * import { mapAllowedTools } from "./allowed_tools.ts";
 * const mapped = mapAllowedTools(["Read", "Bash(git:*)"]);
 * console.log(mapped.tools); // ["fs.read_file", "exec.run_command"]
 * console.log(mapped.commands); // [{ tool: "exec.run_command", argv: ["git"], prefix: true }]
 * ```
 */
export function mapAllowedTools(entries: readonly string[]): MappedAllowedTools {
  const tools = new Set<string>();
  const commands: SkillCommand[] = [];
  const warnings: string[] = [];
  // A plain entry for the command tool (`Bash`, `exec.*`, `*`) allows every command, so the
  // limits of `Bash(git:*)` entries beside it do not apply.
  let commandsUnlimited = false;
  for (const entry of entries) {
    const mapped = mapEntry(entry);
    if (typeof mapped === "string") {
      warnings.push(`allowed-tools entry "${clip(entry)}" ${mapped}: it is dropped`);
      continue;
    }
    for (const tool of mapped.tools) tools.add(tool);
    if (mapped.command !== null) commands.push(mapped.command);
    else if (mapped.tools.some((tool) => picomatch.isMatch(COMMAND_TOOL, tool))) {
      commandsUnlimited = true;
    }
  }
  return {
    tools: [...tools],
    commands: commandsUnlimited ? [] : dedupe(commands),
    warnings,
  };
}

/** One entry: its tools and command limit, or why it is dropped. */
function mapEntry(entry: string): { tools: string[]; command: SkillCommand | null } | string {
  const claude = CLAUDE_TOOL_NAMES[entry];
  if (claude !== undefined && Object.hasOwn(CLAUDE_TOOL_NAMES, entry)) {
    return { tools: [...claude], command: null };
  }
  const mcp = CLAUDE_MCP.exec(entry);
  if (mcp !== null) {
    return { tools: [`mcp.${mcp[1]}.${mcp[2] ?? "*"}`], command: null };
  }
  const specified = WITH_SPECIFIER.exec(entry);
  if (specified !== null) {
    const [, name = "", specifier = ""] = specified;
    if (name !== "Bash") {
      return Object.hasOwn(CLAUDE_TOOL_NAMES, name)
        ? `limits "${name}" in a way kagent-run does not apply (only Bash(command) patterns are)`
        : "names a tool kagent-run does not know";
    }
    return bashEntry(specifier.trim());
  }
  if (OWN_PATTERN.test(entry) && (entry.includes(".") || entry.includes("*"))) {
    return { tools: [entry], command: null };
  }
  return "names a tool kagent-run does not know (see the allowed-tools table in the README)";
}

/** `Bash(…)`: `*` any command; `git:*` or `git *` a prefix; `npm test` that exact command. */
function bashEntry(specifier: string): { tools: string[]; command: SkillCommand | null } | string {
  if (specifier === "*") return { tools: [COMMAND_TOOL], command: null };
  let prefix = false;
  let words = specifier;
  if (words.endsWith(":*")) {
    prefix = true;
    words = words.slice(0, -2);
  } else if (/\s\*$/.test(words)) {
    prefix = true;
    words = words.slice(0, -1);
  }
  const argv = words.split(/\s+/).filter((word) => word !== "");
  if (argv.length === 0) return "names no command";
  if (argv.some((word) => word.includes("*") || word.includes(":") || SHELL_SYNTAX.test(word))) {
    return "has a command pattern kagent-run does not apply (use Bash(program:*), " +
      "Bash(program subcommand:*) or an exact command)";
  }
  return { tools: [COMMAND_TOOL], command: { tool: COMMAND_TOOL, argv, prefix } };
}

function dedupe(commands: SkillCommand[]): SkillCommand[] {
  const seen = new Set<string>();
  return commands.filter((command) => {
    const key = JSON.stringify(command);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Shortens a value for a message and strips control characters. */
function clip(text: string): string {
  // deno-lint-ignore no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > 80 ? `${clean.slice(0, 77)}…` : clean;
}
