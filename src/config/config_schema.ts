/**
 * The config file format (ARCHITECTURE §4), as zod schemas. These describe the file as written:
 * every key is optional, nothing is defaulted or resolved here (loading does
 * that), so the same schemas publish the JSON Schema.
 *
 * @module
 */

import { z } from "zod";
import { PermissionsFileSchema } from "./permissions_schema.ts";

const pathString = (description: string) => z.string().min(1).describe(description);

/** `sandbox`: extra roots and sensitive patterns. */
export const SandboxConfigSchema = z.strictObject({
  read_roots: z.array(pathString("A read-only root; must exist.")).optional().describe(
    "Extra read-only roots besides the workspace. Default: [].",
  ),
  write_roots: z.array(pathString("A writable root inside the workspace.")).optional().describe(
    "Writable roots, each inside the workspace (the workspace itself is always writable). " +
      "Default: [].",
  ),
  sensitive_paths: z.array(z.string().min(1)).optional().describe(
    "Glob patterns added to the runtime's sensitive paths (never read or written). Default: [].",
  ),
});

/** `model` with `provider: "script"`: replays a JSONL plan, no network. */
export const ScriptModelConfigSchema = z.strictObject({
  provider: z.literal("script"),
  script: pathString("Path of the JSONL script to replay; must exist."),
});

/**
 * `model`: which model drives the agent, a union on `provider`. Only `"script"` for now; `"openai"`
 * and `"anthropic"` come next.
 */
export const ModelConfigSchema = z.discriminatedUnion("provider", [ScriptModelConfigSchema])
  .describe("The model that proposes tool calls. Optional: tools run without one.");

/** `agent`: loop settings. */
export const AgentConfigSchema = z.strictObject({
  max_turns: z.int().min(1).max(1000).optional().describe(
    "Model turns before the run stops. " +
      "Default: 50.",
  ),
});

/** `limits`: sizes in bytes (and nesting levels). All positive integers. */
export const LimitsConfigSchema = z.strictObject({
  max_argument_bytes: z.int().min(1).optional().describe(
    "Largest tool-call argument JSON, in bytes. Default: 1048576.",
  ),
  max_argument_depth: z.int().min(1).optional().describe(
    "Deepest nesting of tool-call arguments. Default: 32.",
  ),
  max_output_bytes: z.int().min(1).optional().describe(
    "Largest output kept inline in a result, in bytes; above it an artifact is written. " +
      "Default: 65536.",
  ),
  max_artifact_bytes: z.int().min(1).optional().describe(
    "Largest artifact stored, in bytes; above it the artifact is cut. Default: 104857600.",
  ),
});

/** `audit`: what the run folder must never contain. */
export const AuditConfigSchema = z.strictObject({
  secret_env: z.array(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      error: "must be an environment variable name (letters, digits and underscores)",
    }),
  ).optional().describe(
    "Environment variables whose values are redacted everywhere; added to the defaults " +
      "(ANTHROPIC_API_KEY, OPENAI_API_KEY, GITHUB_TOKEN, GH_TOKEN, AWS_SECRET_ACCESS_KEY, " +
      "AWS_SESSION_TOKEN).",
  ),
});

/** A whole config file as written. Unknown keys are errors at every level. */
export const ConfigFileSchema = z.strictObject({
  $schema: z.string().optional().describe("JSON Schema of this file, for editors; ignored."),
  workspace: pathString(
    "The sandbox root: read and written by tools. Must be an existing directory. " +
      "Default: the config file's folder.",
  ).optional(),
  runs_dir: pathString(
    'Folder holding one folder per run. Default: "runs" beside the config file.',
  ).optional(),
  sandbox: SandboxConfigSchema.optional(),
  permissions: z.union([
    pathString("Path of a permissions.json file."),
    PermissionsFileSchema,
  ]).optional().describe(
    "Permission rules: a path to a permissions.json file, or the same object inline. " +
      "Default: no rules from the config.",
  ),
  model: ModelConfigSchema.optional(),
  task: z.string().optional().describe("The task given to the agent."),
  agent: AgentConfigSchema.optional(),
  limits: LimitsConfigSchema.optional(),
  audit: AuditConfigSchema.optional(),
});

/** A config file as written (the input of {@linkcode ConfigFileSchema}). */
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** `model` as written. */
export type ModelConfigInput = z.infer<typeof ModelConfigSchema>;
