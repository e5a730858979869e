/**
 * The declarative command tool format: one JSON file a tool in a configured tool folder
 * (`tools.dirs`, default `$KAGENT_HOME/tools`, never the workspace). Exactly these fields; unknown
 * fields are errors.
 *
 * ```json
 * {
 *   "name": "repo.count_lines", "description": "Counts lines of a file",
 *   "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
 *   "permission": "readonly", "tags": ["repo"],
 *   "command_type": "exec", "command": "wc", "args": ["-l", "{{path}}"],
 *   "working_dir": ".", "env_allowlist": [], "timeout_ms": 10000,
 *   "stdout_limit_bytes": 65536, "stderr_limit_bytes": 16384
 * }
 * ```
 *
 * Shell mode (`"command_type": "shell"`) runs `command` as an sh script; each bare `{{field}}` is
 * filled in as one single-quoted word, and a placeholder anywhere it could not stay one word
 * (inside quotes, `$(…)`, backticks, a here-document or a comment, after `\` or `$`, as a command
 * name) stops the load (see `shell_template.ts`). A tool that runs its input as code — an
 * interpreter or a shell with a templated argument (`sh -c {{text}}`) — must be tagged `dangerous`
 * (see `input_as_code.ts`).
 *
 * @module
 */

import { z } from "zod";

/** A declarative tool file as written. */
export const DeclarativeToolFileSchema = z.strictObject({
  name: z.string().min(1).describe("Canonical dotted name, e.g. repo.count_lines"),
  description: z.string().min(1).max(2048),
  input_schema: z.record(z.string(), z.unknown()).describe(
    "JSON Schema of the input object (the supported subset)",
  ),
  permission: z.enum(["readonly", "write"]),
  tags: z.array(z.string().min(1)).describe(
    '"dangerous" (required for a tool that runs its input as code) keeps the tool off unless a ' +
      'permissions rule names it exactly and makes every call ask; "write" marks a write tool',
  ),
  command_type: z.enum(["exec", "shell"]).describe(
    '"exec": command and args are argv, each {{field}} substituted in its own element; "shell": ' +
      "command is an sh script, every bare substitution single-quoted, none inside quotes, " +
      '$(…), backticks, here-documents or comments (needs the "write" or "dangerous" tag)',
  ),
  command: z.string().min(1).describe("Program (exec: an allowlisted name) or sh script (shell)"),
  args: z.array(z.string()).describe("exec: further argv elements; shell: positional parameters"),
  working_dir: z.string().min(1).describe("Working folder relative to the workspace"),
  env_allowlist: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).describe(
    "Environment names this tool's command gets (within the run's allowlist)",
  ),
  timeout_ms: z.int().min(1),
  stdout_limit_bytes: z.int().min(64),
  stderr_limit_bytes: z.int().min(64),
  annotations: z.strictObject({
    risk: z.int().min(0).max(4).optional().describe(
      "0 Safe, 1 Low, 2 Medium, 3 High, 4 Critical. Default: 1 readonly, 3 write, 4 dangerous",
    ),
    read_only: z.boolean().optional().describe('Only with "permission": "readonly"'),
    destructive: z.boolean().optional().describe(
      "true turns the tool off unless a permissions rule names it exactly",
    ),
    idempotent: z.boolean().optional(),
    open_world: z.boolean().optional().describe("The command reaches outside the sandbox"),
    category: z.string().min(1).max(64).optional(),
    requires_confirmation: z.boolean().optional().describe("Every call asks"),
  }).optional().describe(
    'Behaviour hints, read by "smart" permissions mode (a read-only, closed-world tool within ' +
      "smart_max_risk runs unasked where it would ask). Undeclared hints are derived from " +
      "permission and tags, as before. A dangerous tool cannot lower its risk below 4, drop its " +
      "confirmation or claim read-only.",
  ),
}).superRefine((file, context) => {
  const declared = file.annotations;
  if (declared === undefined) return;
  const issue = (key: string, message: string) =>
    context.addIssue({ code: "custom", path: ["annotations", key], message, input: declared });
  if (declared.read_only === true && file.permission !== "readonly") {
    issue("read_only", 'needs "permission": "readonly"');
  }
  if (file.tags.includes("dangerous")) {
    if (declared.read_only === true) issue("read_only", "a dangerous tool is never read-only");
    if (declared.requires_confirmation === false) {
      issue("requires_confirmation", "a dangerous tool always asks for confirmation");
    }
    if (declared.risk !== undefined && declared.risk < 4) {
      issue("risk", "a dangerous tool has risk 4");
    }
  }
});

/** A declarative tool file after validation, with where it came from. */
export type DeclarativeToolFile = z.infer<typeof DeclarativeToolFileSchema> & { source: string };
