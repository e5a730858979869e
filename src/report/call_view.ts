/**
 * One tool call as a report shows it, from its `logs/tools.jsonl` record, its ending event, its
 * `logs/errors.jsonl` line and its `approval.*` events; and the edit or command it made.
 *
 * @module
 */

import type { RunRecord } from "./run_reading.ts";
import { type DisplayBlock, readDisplayBlocks } from "../result/mod.ts";
import {
  linkablePath,
  numberField,
  recordField,
  recordsField,
  stringField,
  stringsField,
  timeField,
} from "./_fields.ts";

/** How a call ended. */
export type CallStatus = "completed" | "failed" | "denied" | "skipped";

/** A link to a file of the run folder. */
export interface RunLink {
  /** Path relative to the run folder (checked by `linkablePath`). */
  path: string;
  /** What the file is, e.g. `output (40960 bytes)`. */
  label: string;
}

/** One tool call. */
export interface CallView {
  /** 1-based position in `logs/tools.jsonl`; the report's anchors use it, never the raw id. */
  number: number;
  id: string;
  tool: string;
  status: CallStatus;
  /** The model turn that asked for it, or null. */
  turn: number | null;
  /** Milliseconds from the run's start to the call's start, or null. */
  start_ms: number | null;
  duration_ms: number | null;
  summary: string;
  error_type: string | null;
  /** The policy decision: `allow` | `ask` | `deny`, with rule, layer and reason. */
  decision: { decision: string; rule: string; layer: string; reason: string } | null;
  /** Who let it run, in words (`rule "git-read-only"`, `alice at the terminal (allow_once)`). */
  approval: string | null;
  /** The call's scope as grants name it. */
  scope: string[];
  /** The `approval.*` events of the call, in words, in order. */
  approval_events: string[];
  /** False for a call that never ran (skipped, aborted, an unusable turn). */
  executed: boolean;
  /** The arguments text as the model sent it (redacted), or null when kept as an artifact. */
  arguments: string | null;
  /** The output as the model received it, or null when kept as an artifact. */
  output: string | null;
  /** The arguments, output and whole-output artifacts. */
  links: RunLink[];
  /** A command's exit code and signal (null for other tools). */
  exit_code: number | null;
  signal: string | null;
  /** Whether the record is a command's (it carries `exit_code`). */
  is_command: boolean;
  /** The parsed arguments as recorded (long strings summarised), or null. */
  params: RunRecord | null;
  /**
   * What the call showed a person (`result.display`), checked again as read (unknown block types
   * kept as `{type, data}`); `[]` for runs recorded before display blocks.
   */
  display: DisplayBlock[];
}

/** An edit a call made, as a unified diff. */
export interface EditView {
  call: number;
  tool: string;
  path: string;
  /** `edited`, `written` or `deleted`. */
  kind: "edited" | "written" | "deleted";
  /** The unified diff (edits: as the tool returned it; writes: the content as added lines). */
  diff: string | null;
  /** Where the whole text is when it is not inline. */
  link: RunLink | null;
}

/** A command a call ran. */
export interface CommandView {
  call: number;
  tool: string;
  /** The command as text, e.g. `git log --oneline -5`. */
  command: string;
  ok: boolean;
  exit_code: number | null;
  signal: string | null;
  /** The head and tail of the output (at most {@linkcode EXCERPT_LINES} lines). */
  excerpt: string | null;
  links: RunLink[];
}

/** Lines of an output excerpt: the first 20 and the last 10. */
export const EXCERPT_LINES = { head: 20, tail: 10 } as const;

/** Most lines of a written file's content shown as a diff. */
export const MAX_DIFF_LINES = 200;

const DENIED_TYPES = new Set([
  "tool_not_available",
  "permission_denied",
  "path_outside_sandbox",
  "approval_required",
  "approval_denied",
  "hook_denied",
  "sensitive_path",
]);

/** What else is known about a call, besides its tool record. */
export interface CallContext {
  startTime: number | null;
  turn: number | null;
  event: RunRecord | null;
  error: RunRecord | null;
  approvals: RunRecord[];
}

/**
 * How the call recorded as `record` (a `logs/tools.jsonl` line) ended: the type of its ending
 * event (`tool.completed` → `completed`…) when there is one, else from the record itself.
 *
 * @param record The call's tool record.
 * @param event Its `tool.completed`/`failed`/`denied`/`skipped` event, or null.
 */
export function callStatus(record: RunRecord, event: RunRecord | null): CallStatus {
  const result = recordField(record.result);
  const errorType = stringField(result?.error_type);
  const eventType = stringField(event?.type);
  const status = eventType !== null && eventType.startsWith("tool.")
    ? eventType.slice(5)
    : record.executed === false
    ? "skipped"
    : result?.ok === true
    ? "completed"
    : errorType !== null && DENIED_TYPES.has(errorType)
    ? "denied"
    : "failed";
  return ["completed", "failed", "denied", "skipped"].includes(status)
    ? status as CallStatus
    : "failed";
}

/** The view of the call recorded as `record`, the `number`th of `logs/tools.jsonl`. */
export function callView(record: RunRecord, number: number, context: CallContext): CallView {
  const result = recordField(record.result);
  const errorType = stringField(result?.error_type);
  const executed = record.executed !== false;
  const status = callStatus(record, context.event);
  const policy = recordField(record.policy);
  const approval = recordField(record.approval);
  const start = timeField(record.ts_start);
  const links: RunLink[] = [];
  const argumentsLink = artifactLink(record.arguments_artifact, "arguments");
  if (argumentsLink !== null) links.push(argumentsLink);
  const outputLink = artifactLink(result?.output_artifact, "output as the model received it");
  if (outputLink !== null) links.push(outputLink);
  for (const artifact of recordsField(result?.artifacts)) {
    const link = artifactLink(artifact, "whole output");
    if (link !== null) links.push(link);
  }
  return {
    number,
    id: stringField(record.tool_call_id) ?? "",
    tool: stringField(record.tool) ?? "",
    status,
    turn: context.turn,
    start_ms: start === null || context.startTime === null ? null : start - context.startTime,
    duration_ms: numberField(record.duration_ms),
    summary: stringField(result?.summary) ?? "",
    error_type: errorType,
    decision: policy === null ? null : {
      decision: stringField(policy.decision) ?? "",
      rule: stringField(policy.rule) ?? "",
      layer: stringField(policy.layer) ?? "",
      reason: stringField(policy.reason) ?? "",
    },
    approval: approvalText(approval),
    scope: stringsField(approval?.scope),
    approval_events: context.approvals.map(approvalEventText),
    executed,
    arguments: stringField(record.arguments),
    output: stringField(result?.output),
    links,
    exit_code: numberField(record.exit_code),
    signal: stringField(record.signal),
    is_command: "exit_code" in record,
    params: recordField(record.params),
    display: readDisplayBlocks(result?.display),
  };
}

/**
 * The edit a successful file-writing call made, or null for any other call.
 *
 * @param texts Artifact texts by path (`RunFiles.texts`), for arguments or diffs kept as artifacts.
 */
export function editOf(call: CallView, texts: ReadonlyMap<string, string>): EditView | null {
  if (call.status !== "completed") return null;
  const path = stringField(call.params?.path) ?? "";
  const base = { call: call.number, tool: call.tool, path };
  if (call.tool === "fs.edit_file") {
    const link = call.links.find((link) => link.label.startsWith("output")) ?? null;
    const output = call.output ?? (link === null ? null : texts.get(link.path) ?? null);
    const diff = output !== null && /^(---|Index:|===)/.test(output) ? output : null;
    return { ...base, kind: "edited", diff, link };
  }
  if (call.tool === "fs.write_file") {
    const link = call.links.find((link) => link.label.startsWith("arguments")) ?? null;
    const content = writtenContent(
      call.arguments ?? (link === null ? null : texts.get(link.path) ?? null),
    );
    return {
      ...base,
      kind: "written",
      diff: content === null ? null : addedLinesDiff(path, content),
      link,
    };
  }
  if (call.tool === "fs.delete_file") return { ...base, kind: "deleted", diff: null, link: null };
  return null;
}

/** The command a command call ran, or null for any other call. */
export function commandOf(call: CallView): CommandView | null {
  if (!call.is_command && call.tool !== "exec.run_command" && call.tool !== "skills.run_script") {
    return null;
  }
  const argv = stringsField(call.params?.argv);
  const script = stringField(call.params?.script);
  const command = argv.length > 0
    ? argv.map(shellWord).join(" ")
    : script !== null
    ? [`${stringField(call.params?.skill) ?? "?"}/${script}`, ...stringsField(call.params?.args)]
      .map(shellWord).join(" ")
    : call.arguments ?? "";
  return {
    call: call.number,
    tool: call.tool,
    command,
    ok: call.status === "completed",
    exit_code: call.exit_code,
    signal: call.signal,
    excerpt: call.output === null ? null : excerpt(call.output),
    links: call.links,
  };
}

/** The first {@linkcode EXCERPT_LINES}.head and last .tail lines of a text, each cut at 300. */
export function excerpt(text: string): string {
  const lines = text.replace(/\n$/, "").split("\n").map((line) =>
    line.length > 300 ? `${line.slice(0, 300)}…` : line
  );
  const { head, tail } = EXCERPT_LINES;
  if (lines.length <= head + tail) return lines.join("\n");
  const hidden = lines.length - head - tail;
  return [...lines.slice(0, head), `[… ${hidden} lines …]`, ...lines.slice(-tail)].join("\n");
}

function artifactLink(value: unknown, what: string): RunLink | null {
  const artifact = recordField(value);
  const path = linkablePath(artifact?.ref);
  if (path === null) return null;
  const bytes = numberField(artifact?.bytes);
  return { path, label: bytes === null ? what : `${what} (${bytes} bytes)` };
}

function approvalText(approval: RunRecord | null): string | null {
  if (approval === null) return null;
  switch (approval.by) {
    case "rule":
      return `rule "${stringField(approval.rule) ?? "?"}"`;
    case "grant":
      return "a grant given to the run (--approve or --approvals)";
    case "session_grant":
      return "an earlier allow-for-session answer";
    case "terminal":
      return `${stringField(approval.approver) ?? "someone"} at the terminal (${
        stringField(approval.choice) ?? "?"
      })`;
    default:
      return stringField(approval.by);
  }
}

function approvalEventText(event: RunRecord): string {
  const rule = stringField(event.rule) ?? "?";
  switch (event.type) {
    case "approval.requested": {
      const approver = stringField(event.approver);
      return `asked by rule "${rule}"; ${
        approver === null ? "nobody could approve in this run" : `asked ${approver}`
      }`;
    }
    case "approval.granted": {
      const approver = stringField(event.approver);
      return `granted (${stringField(event.source) ?? "?"})${
        approver === null ? "" : ` by ${approver}`
      }`;
    }
    case "approval.denied":
      return `denied by ${stringField(event.approver) ?? "?"}: ${stringField(event.reason) ?? ""}`;
    default:
      return `approval failed: ${stringField(event.reason) ?? ""}`;
  }
}

function writtenContent(argumentsText: string | null): string | null {
  if (argumentsText === null) return null;
  try {
    return stringField(recordField(JSON.parse(argumentsText))?.content);
  } catch {
    return null;
  }
}

function addedLinesDiff(path: string, content: string): string {
  const lines = content.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, MAX_DIFF_LINES).map((line) => `+${line}`);
  if (lines.length > MAX_DIFF_LINES) {
    shown.push(`[diff truncated: ${lines.length - MAX_DIFF_LINES} more lines]`);
  }
  return [`+++ ${path}`, `@@ -0,0 +1,${lines.length} @@`, ...shown].join("\n");
}

/** A word as a shell would need it: bare when plain, else JSON-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word);
}
