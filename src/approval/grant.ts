/**
 * Grants: what a person (or a CI config) approved, as data. A grant names the canonical tool, the
 * normalised target scope it covers — exactly, never "this tool, any target" — and the hash of
 * the effective policy it was made against. `--approve '<grant>'` and `--approvals FILE` (JSON
 * lines) bring grants into a run; a grant made for another policy is refused.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { z } from "zod";
import type { TargetScope } from "../policy/policy_rule.ts";

/** A grant as JSON: `{"tool": "fs.write_file", "scope": ["write:<run>/x"], "policy": "<sha256>"}`. */
export const GrantSchema = z.strictObject({
  tool: z.string().min(1),
  /** Normalised targets, sorted; see {@linkcode normaliseScope}. */
  scope: z.array(z.string().min(1)),
  /** The effective policy's hash (hex sha256, or its first 16 characters or more). */
  policy: z.string().regex(/^[0-9a-f]{16,64}$/),
});

/** A grant. */
export type Grant = z.infer<typeof GrantSchema>;

/**
 * The normalised scope of a call: one string a target, sorted. Paths as `<access>:<real path>`;
 * commands as `command:<program path> <argv[1..] as JSON> in <cwd real path>` (the executable, every
 * argument and the folder). Paths inside the run folder are written `<run>/…` so that a grant
 * survives into the next run.
 *
 * A part that holds a secret (`holdsSecret` says so: a value of `audit.secret_env`, a token) is
 * named by its hash instead, `sha256:<hex of the part's text>`: the argv JSON (`command:<path>
 * sha256:<hex> in <cwd>`), the folder, a path. The grant then never shows the secret, and the
 * next run, computing the same hash for the same call, still recognises it.
 *
 * @param scope The resolved targets of a call.
 * @param runDir The run folder's real path, or null.
 * @param holdsSecret Tells whether a text holds a secret, e.g. one that redaction would change.
 * @returns The sorted scope strings, without duplicates.
 * @example
 * ```ts
 * import { normaliseScope } from "./grant.ts";
 * const scope = normaliseScope({
 *   paths: [],
 *   commands: [{ program: "echo", path: "/usr/bin/echo", argv: ["echo", "s3cr3t-value"],
 *     cwd: { real: "/w" } }],
 * } as unknown as Parameters<typeof normaliseScope>[0], null, (text) => text.includes("s3cr3t"));
 * console.assert(/^command:\/usr\/bin\/echo sha256:[0-9a-f]{64} in \/w$/.test(scope[0] ?? ""));
 * ```
 */
export function normaliseScope(
  scope: TargetScope,
  runDir: string | null,
  holdsSecret: (text: string) => boolean,
): string[] {
  const stable = (path: string) =>
    runDir !== null && (path === runDir || path.startsWith(runDir + "/"))
      ? "<run>" + path.slice(runDir.length)
      : path;
  const shown = (text: string) => holdsSecret(text) ? hashed(text) : text;
  const commandFolders = new Set((scope.commands ?? []).map((command) => command.cwd));
  const entries = [
    ...scope.paths.filter((path) => !commandFolders.has(path)).map((path) =>
      `${path.access}:${shown(stable(path.real))}`
    ),
    ...(scope.commands ?? []).map((command) =>
      `command:${command.path} ${shown(JSON.stringify(command.argv.slice(1)))} in ${
        shown(stable(command.cwd.real))
      }`
    ),
  ];
  return [...new Set(entries)].sort();
}

/** `sha256:<lower-case hex of the UTF-8 text>`. */
function hashed(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

/** Tells whether `grant` covers a call of `tool` on exactly `scope` (a normalised scope). */
export function grantCovers(grant: Grant, tool: string, scope: readonly string[]): boolean {
  return grant.tool === tool && grant.scope.length === scope.length &&
    grant.scope.every((entry, index) => entry === scope[index]);
}

/** Parses one grant; the error says what is wrong. @throws {TypeError} */
export function parseGrant(text: string, source: string): Grant {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(
      `Cannot use grant from ${source}: it is not JSON (${(error as Error).message})`,
    );
  }
  const parsed = GrantSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.join(".") ?? "";
    throw new TypeError(
      `Cannot use grant from ${source}: ${at === "" ? "" : `"${at}" `}${
        issue?.message ?? "is not a grant"
      }`,
    );
  }
  return { ...parsed.data, scope: [...parsed.data.scope].sort() };
}

/** The same grant as one line of JSON (an approvals file line). */
export function formatGrant(grant: Grant): string {
  return JSON.stringify({ tool: grant.tool, scope: grant.scope, policy: grant.policy });
}

/** A shell-quoted `--approve '<grant>'` argument. */
export function approveArgument(grant: Grant): string {
  return `--approve '${formatGrant(grant).replaceAll("'", `'\\''`)}'`;
}
