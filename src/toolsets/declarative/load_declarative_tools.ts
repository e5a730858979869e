/**
 * Loads declarative command tools from the configured folders (`tools.dirs`).
 *
 * @module
 */

import * as nodePath from "node:path";
import { ConfigError, formatIssues } from "../../config/base/mod.ts";
import { type DeclarativeToolFile, DeclarativeToolFileSchema } from "./declarative_tool_file.ts";
import { inputAsCodeReason } from "./input_as_code.ts";
import { analyzeShellTemplate } from "./shell_template.ts";
import { templateFields } from "./template.ts";

/**
 * Reads every `*.json` file of each folder, in name order. A folder that does not exist is skipped
 * (the default `$KAGENT_HOME/tools` usually does not).
 *
 * @throws {ConfigError} `tool_invalid` naming the file, the key and the reason: not JSON, an unknown
 * or missing field, shell mode without the "write" or "dangerous" tag, a `{{field}}` the input
 * schema does not declare, a shell-mode placeholder that cannot be quoted where it stands (inside
 * quotes, `$(…)`, backticks, a here-document, a comment; as a command name), a tool that runs its
 * input as code (`sh -c {{text}}`, see `input_as_code.ts`) without the "dangerous" tag.
 */
export async function loadDeclarativeTools(
  dirs: readonly string[],
): Promise<DeclarativeToolFile[]> {
  const tools: DeclarativeToolFile[] = [];
  for (const dir of dirs) {
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    for (const name of names.sort()) tools.push(await loadOne(nodePath.join(dir, name)));
  }
  return tools;
}

async function loadOne(file: string): Promise<DeclarativeToolFile> {
  const fail = (key: string | null, reason: string) =>
    new ConfigError({
      code: "tool_invalid",
      file,
      key,
      message: `Cannot load tool "${file}": ${key === null ? "" : `key "${key}" `}${reason}`,
    });
  let value: unknown;
  try {
    value = JSON.parse(await Deno.readTextFile(file));
  } catch (error) {
    throw fail(null, `is not valid JSON (${(error as Error).message})`);
  }
  const parsed = DeclarativeToolFileSchema.safeParse(value);
  if (!parsed.success) {
    const [first] = formatIssues(parsed.error.issues, value);
    throw new ConfigError({
      code: "tool_invalid",
      file,
      key: first?.key ?? null,
      message: `Cannot load tool "${file}": ${first?.text ?? "it is not a valid tool definition"}`,
    });
  }
  const tool = parsed.data;
  if (
    tool.command_type === "shell" && !tool.tags.includes("write") &&
    !tool.tags.includes("dangerous")
  ) {
    throw fail("tags", 'must include "write" or "dangerous" for command_type "shell"');
  }
  if (tool.command_type === "shell" && tool.permission !== "write") {
    throw fail("permission", 'must be "write" for command_type "shell"');
  }
  const properties = (tool.input_schema.properties ?? {}) as Record<string, unknown>;
  for (
    const [key, text] of [
      ["command", tool.command],
      ...tool.args.map((arg, index) => [`args[${index}]`, arg]),
    ]
  ) {
    for (const field of templateFields(text as string)) {
      if (!(field in properties)) {
        throw fail(key as string, `uses "{{${field}}}", which input_schema does not declare`);
      }
    }
  }
  if (tool.command_type === "exec" && templateFields(tool.command).length > 0) {
    throw fail("command", "must be a fixed program name in exec mode (no templates)");
  }
  const script = tool.command_type === "shell" ? analyzeShellTemplate(tool.command) : null;
  if (script !== null && !script.ok) throw fail("command", script.reason);
  const runsInput = inputAsCodeReason(tool, script?.ok ? script.commands : []);
  if (runsInput !== null && !tool.tags.includes("dangerous")) {
    throw fail(
      "tags",
      `must include "dangerous": ${runsInput}, so the model's input would run as code; add ` +
        '"dangerous" to "tags" (the tool is then off unless a permissions rule names it exactly, ' +
        "and every call asks), or give it a fixed script and fixed arguments and let the script " +
        "read the input as JSON from standard input",
    );
  }
  return { ...tool, source: file };
}
