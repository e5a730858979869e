/**
 * Builds a tool from a declarative tool file, for both threads: the main thread registers it and
 * decides on its command; the Worker runs it.
 *
 * Protocol: the validated input goes to the command's stdin as JSON; stdout that parses as a JSON
 * object with a boolean `ok` is taken as the tool result (`summary`, `output`, `data`, `error`),
 * other stdout is the output as text; stderr is kept (and logged) like any command's; an exit code
 * other than 0 is a tool error (`exit_nonzero`).
 *
 * A tool tagged `dangerous` (required by the loader for one that runs its input as code, see
 * `input_as_code.ts`) is a write tool whose every call asks (`requires_confirmation`), whatever its
 * file says: the policy keeps it off unless a permissions rule names it exactly, and an allow rule
 * then still asks. An exec-mode tool with a templated argument is resolved like a request's command
 * (not `declared`), so a program whose real binary is a shell (an allowlisted name linked to
 * `bash`) is seen as unrestricted execution and asks too.
 *
 * @module
 */

import { resolveCommand } from "../../exec/mod.ts";
import type { RiskLevel, ToolDefinition } from "../../tools/mod.ts";
import { failure, isErrorType, success, type ToolOutcome } from "../../result/mod.ts";
import { runPrepared } from "../exec/run_prepared.ts";
import type { DeclarativeToolFile } from "./declarative_tool_file.ts";
import { fillArgv, fillShell, templateFields } from "./template.ts";

/** The argv a declarative tool runs for `input`. @throws {TypeError} on a non-scalar substitution. */
export function declarativeArgv(
  file: DeclarativeToolFile,
  input: Record<string, unknown>,
): string[] {
  if (file.command_type === "exec") return [file.command, ...fillArgv(file.args, input)];
  return ["sh", "-c", fillShell(file.command, input), file.name, ...fillArgv(file.args, input)];
}

/**
 * Whether the program was chosen by the tool file alone: shell mode (its script is checked at load
 * time) or exec mode with fixed arguments. Otherwise the resolved program is judged as unrestricted
 * execution like a request's (`resolveCommand` without `declared`).
 */
function programDeclared(file: DeclarativeToolFile): boolean {
  return file.command_type === "shell" ||
    file.args.every((arg) => templateFields(arg).length === 0);
}

/**
 * A call's arguments as the object they are: the registry validated them against the file's
 * `input_schema`, whose top level the registry requires to be `"type": "object"` (schema_subset.ts).
 */
function objectArguments(args: unknown): Record<string, unknown> {
  return args as Record<string, unknown>;
}

/** The tool for a declarative file. Its command must be allowlisted (`commands`; `sh` for shell mode). */
export function declarativeTool(file: DeclarativeToolFile): ToolDefinition {
  const dangerous = file.tags.includes("dangerous");
  const readonly = file.permission === "readonly" && !dangerous;
  const declared = programDeclared(file);
  return {
    name: file.name,
    description: file.description,
    input_schema: file.input_schema,
    permission: readonly ? "readonly" : "write",
    tags: [...new Set([...file.tags, "declarative"])],
    annotations: {
      read_only: file.annotations?.read_only ?? readonly,
      destructive: file.annotations?.destructive ?? false,
      idempotent: file.annotations?.idempotent ?? readonly,
      open_world: file.annotations?.open_world ?? false,
      risk_level: (file.annotations?.risk ?? (dangerous ? 4 : readonly ? 1 : 3)) as RiskLevel,
      category: file.annotations?.category ?? "declarative",
      requires_confirmation: file.annotations?.requires_confirmation ?? dangerous,
    },
    targets: (
      args,
    ) => [{
      kind: "command",
      argv: declarativeArgv(file, objectArguments(args)),
      cwd: file.working_dir,
      declared,
    }],
    handler: async (args, context) => {
      if (context.exec === undefined) {
        return failure(
          "internal_error",
          `Cannot run tool "${file.name}": command tools are not enabled`,
        );
      }
      let argv: string[];
      try {
        argv = declarativeArgv(file, objectArguments(args));
      } catch (error) {
        return failure(
          "invalid_arguments",
          `Cannot run tool "${file.name}": ${(error as Error).message}`,
        );
      }
      const resolution = await resolveCommand(
        argv,
        file.working_dir,
        context.guard,
        context.exec.programs,
        { declared },
      );
      if (!resolution.ok) {
        return failure(resolution.error.type, resolution.error.message, resolution.error.details);
      }
      const outcome = await runPrepared(resolution.command, context, {
        timeoutMs: file.timeout_ms,
        toolMaxTimeoutMs: file.timeout_ms,
        stdoutLimitBytes: file.stdout_limit_bytes,
        stderrLimitBytes: file.stderr_limit_bytes,
        stdin: JSON.stringify(args),
        environmentNames: file.env_allowlist,
        // The label is the kernel's too: a readonly tool's command gets every root read-only.
        readOnly: readonly,
      });
      if (!outcome.ok) return outcome;
      // The command's process group, left for the runtime to kill, stays with the answer.
      const answer = fromStdout(file.name, outcome);
      return outcome.processGroupId === undefined
        ? answer
        : { ...answer, processGroupId: outcome.processGroupId };
    },
  };
}

/** Reads a ToolResult-shaped JSON object from a successful command's stdout, if it is one. */
function fromStdout(name: string, outcome: ToolOutcome): ToolOutcome {
  const data = outcome.data as { stdout?: { text?: string; truncated?: boolean } } | null;
  const text = data?.stdout?.text ?? "";
  if (data?.stdout?.truncated || !text.trimStart().startsWith("{")) return outcome;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return outcome;
  }
  if (
    typeof value !== "object" || value === null ||
    typeof (value as { ok?: unknown }).ok !== "boolean"
  ) return outcome;
  const result = value as {
    ok: boolean;
    summary?: unknown;
    output?: unknown;
    data?: unknown;
    error?: { type?: unknown; message?: unknown };
  };
  const summary = typeof result.summary === "string" ? result.summary : `${name} completed`;
  const output = typeof result.output === "string" ? result.output : "";
  const artifacts = outcome.artifacts ?? [];
  if (result.ok) return { ...success(summary, output, result.data ?? null), artifacts };
  const type = isErrorType(result.error?.type) ? result.error.type : "exit_nonzero";
  const message = typeof result.error?.message === "string"
    ? result.error.message
    : `Tool "${name}" reported a failure`;
  return { ...failure(type, message, { reported_by: "tool" }), artifacts };
}
