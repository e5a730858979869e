/**
 * Grants from `--approve` and `--approvals` are checked against the run's policy hash before the
 * run starts: a grant made for another policy stops the run (exit 2).
 *
 * @module
 */

import type { AuditRecorder } from "../audit/mod.ts";
import type { Grant } from "../approval/mod.ts";
import { ConfigError, type LoadedConfig } from "../config/mod.ts";

/**
 * Checks that every grant was made for this run's policy.
 *
 * @param grants The grants, with where each came from (for the message).
 * @param policyHash The run's policy hash (a grant holds a prefix of it).
 * @throws {ConfigError} `config_invalid` for the first grant of another policy, after recording the
 *   reason in `logs/errors.jsonl` and closing the recorder.
 * @example
 * ```ts ignore
 * await checkGrants(options.grants ?? [], policy.hash, recorder, config);
 * ```
 */
export async function checkGrants(
  grants: readonly { grant: Grant; source: string }[],
  policyHash: string,
  recorder: AuditRecorder,
  config: LoadedConfig,
): Promise<void> {
  for (const { grant, source } of grants) {
    if (policyHash.startsWith(grant.policy)) continue;
    const message = `Cannot use the grant for "${grant.tool}" from ${source}: it was made for ` +
      `policy "${grant.policy.slice(0, 16)}", and this run's policy is ` +
      `"${policyHash.slice(0, 16)}" (the config or permissions changed); re-run ` +
      `without it and use the grant the new run prints`;
    await recorder.error({ source: "approval", message });
    await recorder.close();
    throw new ConfigError({ code: "config_invalid", file: config.configPath, key: null, message });
  }
}
