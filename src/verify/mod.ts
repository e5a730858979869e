/**
 * Verifying a run folder after the fact: the logs' hash chains, their cross-references, the seal
 * (`manifest.json`) and its signature, every artifact. Reads files only; sits right above the
 * audit, whose chain and manifest definitions it checks against.
 *
 * @example
 * ```ts ignore
 * import { verifyRun } from "./mod.ts";
 * const report = await verifyRun("runs/20261123T120000Z-abcdef", { key: Deno.env.get("KEY") });
 * if (report.verdict !== "verified") console.log(report.problems);
 * ```
 *
 * @module
 */

export { verifyRun } from "./verify_run.ts";
export { type VerifyReport, type VerifyVerdict } from "./verify_report.ts";
