/**
 * The sandbox of one process of a domain: the mount profile of `command_profile.ts` (system
 * folders, programs' folders, roots, protected paths read-only, sensitive files masked, missing
 * protected paths watched), plus the other domains' private folders hidden. Every launcher asks
 * here (commands, skill scripts, declarative tools, MCP servers; ripgrep through
 * {@linkcode readOnlyFolderPlan}); none builds a bubblewrap plan or argv of its own
 * (`tests/confinement_architecture_test.ts`).
 *
 * @module
 */

import type { BwrapPlan } from "./bubblewrap.ts";
import { commandProfile, type ProfileInputs, type ProfileResult } from "./command_profile.ts";
import { type ConfinementDomain, foreignDomainFolders } from "./confinement_domain.ts";
import type { SystemMount } from "./system_mounts.ts";

export type { ProfileInputs, ProfileResult } from "./command_profile.ts";

/** What {@linkcode confinementPlan} builds from. */
export interface ConfinementPlanInputs {
  /** Whose process it is; its private folders are `profile.home` and `profile.tmpDir`. */
  domain: ConfinementDomain;
  /** The run folder (`runs/<id>/`), whose other domains are hidden; null without a run. */
  runDir: string | null;
  /** The mount profile's inputs (see `commandProfile`). */
  profile: ProfileInputs;
}

/**
 * Builds the bubblewrap plan of one process of `domain`: `commandProfile`, then every other
 * domain's folders that the plan would show (they lie in a bound root, e.g. the runs folder inside
 * the workspace) masked by an empty read-only tmpfs. The `watched` paths are what
 * `quarantineCreated` checks after the process (and, for a long-lived one, after each request and
 * when the run closes).
 *
 * @returns The plan and the watched paths, or `ok: false` with the reason (fail closed: the roots
 *   hold more entries than the scan may look at).
 * @example
 * ```ts
 * import { confinementPlan } from "./confinement_plan.ts";
 * const run = await Deno.makeTempDir();
 * await Deno.mkdir(`${run}/domains/mcp-other/home`, { recursive: true });
 * const result = confinementPlan({
 *   domain: { kind: "commands" }, runDir: run,
 *   profile: {
 *     bwrapPath: "/usr/bin/bwrap", system: [], writeRoots: [], readRoots: [run],
 *     protectedPaths: [], writableExceptions: [], programFolders: [], skillDirs: [],
 *     home: `${run}/home`, tmpDir: `${run}/tmp`, sensitiveMatch: () => null, unmasked: [],
 *     gitWrite: false, network: false, processLimit: null, scanExclusions: [],
 *   },
 * });
 * console.assert(result.ok && result.plan.maskedPaths?.some((mask) => mask.path === `${run}/domains`));
 * await Deno.remove(run, { recursive: true });
 * ```
 */
export function confinementPlan(inputs: ConfinementPlanInputs): ProfileResult {
  const result = commandProfile(inputs.profile);
  if (!result.ok || inputs.runDir === null) return result;
  const plan = result.plan;
  const mounted = [...plan.writablePaths, ...(plan.readablePaths ?? [])];
  const hidden = foreignDomainFolders(inputs.runDir, inputs.domain, mounted);
  if (hidden.length > 0) {
    plan.maskedPaths = [
      ...(plan.maskedPaths ?? []),
      ...hidden.map((path) => ({ path, type: "directory" as const })),
    ];
  }
  return result;
}

/** What {@linkcode readOnlyFolderPlan} builds from. */
export interface ReadOnlyFolderInputs {
  /** Absolute path of `bwrap`. */
  bwrapPath: string;
  /** The host's system mounts (`hostSystemMounts()`). */
  system: readonly SystemMount[];
  /** Folders bound read-only: the folder searched, the program's own folders. */
  readablePaths: readonly string[];
}

/**
 * The plan of a fixed program that only reads (ripgrep listing a folder): nothing writable, no
 * network, only `readablePaths` and the system folders exist.
 *
 * @example
 * ```ts
 * import { readOnlyFolderPlan } from "./confinement_plan.ts";
 * const plan = readOnlyFolderPlan({ bwrapPath: "/usr/bin/bwrap", system: [], readablePaths: ["/srv/ws"] });
 * console.assert(plan.writablePaths.length === 0 && plan.network === false);
 * ```
 */
export function readOnlyFolderPlan(inputs: ReadOnlyFolderInputs): BwrapPlan {
  return {
    mode: "bwrap",
    bwrapPath: inputs.bwrapPath,
    system: inputs.system,
    writablePaths: [],
    readablePaths: [...inputs.readablePaths],
    network: false,
  };
}
