/**
 * Grants: what a person (or a CI config) approved, as data. A grant names the canonical tool, the
 * normalised target scope it covers — exactly, never "this tool, any target" — and the hash of
 * the effective policy it was made against. `--approve '<grant>'` and `--approvals FILE` (JSON
 * lines) bring grants into a run; a grant made for another policy is refused.
 *
 * @module
 */

import { sha256Hex } from "../audit/mod.ts";
import { z } from "zod";
import type { TargetScope } from "../policy/mod.ts";
import { type NamedLocation, writeArgument, writePath } from "../policy/mod.ts";

/**
 * A grant as JSON: `{"tool": "fs.write_file", "scope": ["write:<workspace>/x"], "policy":
 * "<sha256>"}`.
 */
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
 * The normalised scope of a call: one string a target, sorted, written so that it means the same
 * in every checkout of the repository (a grant printed on one machine applies on another, at
 * another path). Paths as `<access>:<location>`, relative to the named location that holds them
 * (`write:<workspace>/src/a.ts`, `read:<read_root:0>/x`, `write:<run>/deliverables/r.md`; a
 * path outside every location stays absolute); commands as `command:<program> <argv[1..] as JSON>
 * in <folder>`, the program by its allowlisted name (`git`, or the path the config names),
 * every argument, absolute ones written from their location too (`<workspace>/a.txt`,
 * `--file=<workspace>/a`; an argument that starts with `<` or `\` gets a `\` in front, so that
 * no written form stands for two calls), and the folder; hosts as `host:<hostname>:<port>`
 * (`net.fetch`: a grant covers one host, whatever the path).
 *
 * A part that holds a secret (`holdsSecret` says so: a value of `audit.secret_env`, a token) is
 * named by its hash instead, `sha256:<hex of the part's written text>`: the argv JSON
 * (`command:<program> sha256:<hex> in <folder>`), the folder, a path. The grant then never shows
 * the secret, and the next run, computing the same hash for the same call, still recognises it.
 *
 * @param scope The resolved targets of a call.
 * @param locations The run's named locations, most specific first (`EffectivePolicy.locations`);
 *   none writes every path absolute.
 * @param holdsSecret Tells whether a text holds a secret, e.g. one that redaction would change.
 * @returns The sorted scope strings, without duplicates.
 * @example
 * ```ts
 * import { normaliseScope } from "./grant.ts";
 * import { namedLocations } from "../policy/named_locations.ts";
 * const scope = normaliseScope({
 *   paths: [],
 *   commands: [{ program: "echo", path: "/usr/bin/echo", argv: ["echo", "s3cr3t-value"],
 *     cwd: { real: "/w/sub" } }],
 * } as unknown as Parameters<typeof normaliseScope>[0], namedLocations({ workspace: "/w" }),
 *   (text) => text.includes("s3cr3t"));
 * console.assert(/^command:echo sha256:[0-9a-f]{64} in <workspace>\/sub$/.test(scope[0] ?? ""));
 * ```
 */
export function normaliseScope(
  scope: TargetScope,
  locations: readonly NamedLocation[],
  holdsSecret: (text: string) => boolean,
): string[] {
  const shown = (text: string) => holdsSecret(text) ? hashed(text) : text;
  const commandFolders = new Set((scope.commands ?? []).map((command) => command.cwd));
  const entries = [
    ...scope.paths.filter((path) => !commandFolders.has(path)).map((path) =>
      `${path.access}:${shown(writePath(path.real, locations))}`
    ),
    ...(scope.commands ?? []).map((command) => {
      const argv = command.argv.slice(1).map((argument) => writeArgument(argument, locations));
      return `command:${command.program} ${shown(JSON.stringify(argv))} in ${
        shown(writePath(command.cwd.real, locations))
      }`;
    }),
    ...(scope.hosts ?? []).map((host) => `host:${host.scope}`),
  ];
  return [...new Set(entries)].sort();
}

/**
 * The scope of a call that names no target (an MCP tool, `memory.write_memory`): its arguments,
 * as `arguments:sha256:<hex>` of their canonical JSON (object keys sorted at every level), so a
 * grant covers exactly that call — never "this tool, any arguments" — and shows none of them.
 *
 * @example
 * ```ts
 * import { argumentScope } from "./grant.ts";
 * const one = argumentScope({ b: 1, a: { d: [1, 2], c: "x" } });
 * console.assert(one === argumentScope({ a: { c: "x", d: [1, 2] }, b: 1 }));
 * console.assert(one !== argumentScope({ a: { c: "y", d: [1, 2] }, b: 1 }));
 * console.assert(one.startsWith("arguments:sha256:"));
 * ```
 */
export function argumentScope(args: Record<string, unknown>): string {
  return `arguments:${hashed(canonicalJson(args))}`;
}

/** JSON with object keys sorted at every level (arrays keep their order). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([one], [other]) => (one < other ? -1 : one > other ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`)}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** `sha256:<lower-case hex of the UTF-8 text>`. */
function hashed(text: string): string {
  return `sha256:${sha256Hex(text)}`;
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
  return `--approve ${shellQuote(formatGrant(grant), true)}`;
}

/**
 * One word for a POSIX shell: as it is when it holds only characters no shell reads specially,
 * otherwise in single quotes (a `'` inside written `'\''`).
 *
 * @param word The word.
 * @param always Quote even a plain word. @default false
 * @example
 * ```ts
 * import { shellQuote } from "./grant.ts";
 * console.assert(shellQuote("agent.jsonc") === "agent.jsonc");
 * console.assert(shellQuote("it's done") === "'it'\\''s done'");
 * ```
 */
export function shellQuote(word: string, always = false): string {
  if (!always && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
