/**
 * The hash chain of a run's JSONL logs (`events.jsonl`, `logs/tools.jsonl`, `logs/errors.jsonl`):
 * what a record's `seq` and `prev` are, so that the writer and the verifier compute them the same
 * way.
 *
 * - `seq`: the record's position in its file, 1 for the first line.
 * - `prev`: the sha256 (lower-case hex) of the previous line's exact bytes (UTF-8, without its
 *   `\n`); for `seq` 1, the file's anchor ({@linkcode chainAnchor}).
 *
 * Both are the last two members of the line, `…,"seq":3,"prev":"ab…"}`, appended to the record as
 * serialised, so a record's own fields keep their order.
 *
 * @module
 */

import { sha256Hex } from "./sha256.ts";

/** The chain format's name, part of every anchor. */
export const CHAIN_FORMAT = "kagent-run/audit-chain@1";

/** One end of a chain: the last record's `seq` (0 when empty) and its line's sha256 (the anchor). */
export interface ChainLink {
  /** The record's `seq`; 0 for a file without records. */
  seq: number;
  /** sha256 (hex) of the record's line; the anchor for a file without records. */
  hash: string;
}

/** The chained logs, by their path inside the run folder (`/`-separated). */
export const CHAINED_LOGS = ["events.jsonl", "logs/tools.jsonl", "logs/errors.jsonl"] as const;

/** One chained log's path inside the run folder. */
export type ChainedLog = (typeof CHAINED_LOGS)[number];

/**
 * The `prev` of a file's first record: sha256 (hex) of the UTF-8 text
 * `kagent-run/audit-chain@1\n<run id>\n<policy hash>\n<file>`, where the policy hash is the `hash`
 * of the run's `policy.json` (the empty string for a run that failed before its policy existed) and
 * `<file>` the log's path inside the run folder (`events.jsonl`, `logs/tools.jsonl`,
 * `logs/errors.jsonl`). A chain therefore cannot be moved to another run, another policy or another
 * file.
 *
 * @param runId The run id (the run folder's name).
 * @param policyHash `policy.json`'s `hash`; null or "" when there is none.
 * @param file The log's path inside the run folder.
 * @returns 64 lower-case hex characters.
 * @example
 * ```ts
 * import { chainAnchor } from "./audit_chain.ts";
 * const anchor = chainAnchor("20260101-000000-abcd", "f00d", "events.jsonl");
 * console.assert(/^[0-9a-f]{64}$/.test(anchor));
 * ```
 */
export function chainAnchor(runId: string, policyHash: string | null, file: string): string {
  return sha256Hex(`${CHAIN_FORMAT}\n${runId}\n${policyHash ?? ""}\n${file}`);
}

/**
 * The sha256 (hex) of a line's bytes, as the next record's `prev` names it.
 *
 * @param line The line without its `\n`, as text (UTF-8 encoded here) or bytes.
 * @example
 * ```ts
 * import { lineHash } from "./audit_chain.ts";
 * console.assert(lineHash("{}") === lineHash(new TextEncoder().encode("{}")));
 * ```
 */
export function lineHash(line: string | Uint8Array): string {
  return sha256Hex(line);
}

/**
 * Appends `seq` and `prev` to a serialised record: `{"a":1}` → `{"a":1,"seq":2,"prev":"…"}`.
 *
 * @param serialised A JSON object as `JSON.stringify` writes it (starts with `{`, ends with `}`).
 * @param seq The record's position in its file, from 1.
 * @param prev The previous line's hash, or the anchor.
 * @throws {TypeError} When `serialised` is not an object's text.
 * @example
 * ```ts
 * import { chainLine } from "./audit_chain.ts";
 * console.assert(chainLine("{}", 1, "ab") === '{"seq":1,"prev":"ab"}');
 * ```
 */
export function chainLine(serialised: string, seq: number, prev: string): string {
  if (!serialised.startsWith("{") || !serialised.endsWith("}")) {
    throw new TypeError("Cannot chain the record: it is not a JSON object");
  }
  const members = `"seq":${seq},"prev":"${prev}"`;
  return serialised === "{}" ? `{${members}}` : `${serialised.slice(0, -1)},${members}}`;
}
