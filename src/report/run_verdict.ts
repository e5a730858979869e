/**
 * The verdict a report shows at its top, from the run verifier.
 *
 * @module
 */

import { notChecked, type ReportVerdict } from "./report_verdict.ts";

/**
 * Verifies the run folder `runDir` and says what was found, for the top of its report.
 *
 * @returns The verdict; never throws (a verifier fault is a `not_checked` verdict saying why).
 */
export function runVerdict(_runDir: string): Promise<ReportVerdict> {
  return Promise.resolve(notChecked("this build has no run verifier yet (kagent-run verify)"));
}
