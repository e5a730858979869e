/**
 * The policy hash, computed from the policy's meaning rather than from where things lie: the
 * run folder, the roots, the workspace, the config's folder, the runs folder and the home folder
 * are written by name (`<run>`, `<read_root:0>`, `<workspace>`, `<config>`, `<runs>`, `<home>`),
 * and each allowlisted program's resolved path by the program's name (`<program:git>`). Two checkouts of a repository at different paths, with the
 * same config and permissions, get the same hash; a grant made in one applies in the other.
 *
 * @module
 */

import { sha256Hex } from "../audit/mod.ts";
import {
  type NamedLocation,
  namedLocations,
  replaceLocations,
  sortLocations,
} from "./named_locations.ts";

/** Folders besides the roots that a policy names (protected paths, memory, tool folders). */
export interface HashedFolders {
  /** The home folder (`<home>`). */
  home?: string | null;
  /** The config file's folder (`<config>`). */
  config?: string;
  /** The runs folder (`<runs>`). */
  runs?: string;
}

/** What the hash needs to know of a policy's inputs. */
export interface HashedInputs {
  workspace: string;
  runDir?: string | undefined;
  folders?: HashedFolders | undefined;
  /** The snapshot's sandbox record: `read_roots`, `write_roots`, `commands.programs`… */
  sandbox: Record<string, unknown>;
}

/**
 * The locations a run's scopes are written with: `<run>`, `<write_root:N>`, `<read_root:N>`,
 * `<workspace>` (from the sandbox record's `read_roots` and `write_roots`), most specific first.
 */
export function scopeLocations(inputs: HashedInputs): NamedLocation[] {
  return namedLocations({
    workspace: inputs.workspace,
    runDir: inputs.runDir ?? null,
    readRoots: stringList(inputs.sandbox.read_roots),
    writeRoots: stringList(inputs.sandbox.write_roots),
  });
}

/**
 * The locations a policy is hashed with: those of {@linkcode scopeLocations}, the folders of
 * {@linkcode HashedFolders}, and the allowlisted programs and interpreters (`<program:name>`).
 */
export function hashLocations(inputs: HashedInputs): NamedLocation[] {
  const commands = inputs.sandbox.commands as Record<string, unknown> | null | undefined;
  const programs = [
    ...programList(commands?.programs),
    ...programList(commands?.interpreters),
  ].map((program) => ({ name: `<program:${program.name}>`, path: program.path }));
  const folders = inputs.folders ?? {};
  const named = (name: string, path: string | null | undefined) =>
    path === undefined || path === null ? [] : [{ name, path }];
  return sortLocations([
    ...scopeLocations(inputs),
    ...named("<config>", folders.config),
    ...named("<runs>", folders.runs),
    ...named("<home>", folders.home),
    ...programs,
  ]);
}

/**
 * The sha256 (hex) of a policy body's JSON with every location written by name.
 *
 * @example
 * ```ts
 * import { meaningHash } from "./policy_hash.ts";
 * const one = meaningHash({ workspace: "/a/repo" }, { workspace: "/a/repo", sandbox: {} });
 * const two = meaningHash({ workspace: "/b/repo" }, { workspace: "/b/repo", sandbox: {} });
 * console.assert(one === two);
 * ```
 */
export function meaningHash(body: unknown, inputs: HashedInputs): string {
  const text = replaceLocations(JSON.stringify(body), hashLocations(inputs));
  return sha256Hex(text);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
}

function programList(value: unknown): { name: string; path: string }[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is { name: string; path: string } =>
    typeof item === "object" && item !== null && typeof item.name === "string" &&
    typeof item.path === "string"
  );
}
