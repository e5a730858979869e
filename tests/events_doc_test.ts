// docs/EVENTS.md against the AuditEvent union: every event type has a section, and each section's
// table lists exactly that event's fields. FIELDS below is checked by the compiler: a field
// missing from it, or one the union does not have, fails `deno check`.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import {
  AUDIT_EVENT_TYPES,
  type AuditEventFields,
  type AuditEventType,
} from "../src/audit/audit_event.ts";
import { repository } from "./_cli_helpers.ts";

type FieldNames = { [T in AuditEventType]: { [K in keyof AuditEventFields<T>]-?: true } };

const toolEnded = {
  tool_call_id: true,
  tool: true,
  provider: true,
  ok: true,
  summary: true,
  error_type: true,
  duration_ms: true,
  policy: true,
  artifacts: true,
} as const;
const approval = { tool_call_id: true, tool: true, rule: true, scope: true } as const;
const childAgent = {
  tool_call_id: true,
  child_run_id: true,
  agent_id: true,
  definition: true,
  agent_type: true,
  depth: true,
} as const;
const hook = {
  hook: true,
  hook_event: true,
  tool: true,
  tool_call_id: true,
  decision: true,
  reason: true,
  duration_ms: true,
} as const;

const FIELDS: FieldNames = {
  "run.started": {
    task: true,
    model: true,
    config: true,
    workspace: true,
    run_dir: true,
    policy_hash: true,
    tools: true,
  },
  "run.resumed": {
    segment: true,
    previous_manifest_sha256: true,
    previous_end_reason: true,
    resumed_after_turn: true,
    rerun: true,
    task: true,
    policy_hash: true,
  },
  "run.completed": {
    end_reason: true,
    turns: true,
    calls: true,
    denied: true,
    failed: true,
    skipped: true,
    duration_ms: true,
    final_text: true,
    error: true,
    error_code: true,
    error_details: true,
    usage: true,
    replay: true,
    chains: true,
    signing: true,
  },
  "skill_catalogue.recorded": { skills: true, invalid: true },
  "command_tools.disabled": { reason: true },
  "mcp_server.started": {
    server: true,
    transport: true,
    name: true,
    version: true,
    protocol_version: true,
    offered: true,
    registered: true,
    refused: true,
    confinement: true,
  },
  "mcp_server.skipped": { server: true, reason: true },
  "mcp_server.tools_changed": { server: true, count: true },
  "network_boundary.measured": {
    model_hosts: true,
    memory_hosts: true,
    mcp_hosts: true,
    tool_hosts: true,
    tool_worker_net: true,
    main_thread_net: true,
  },
  "system_prompt.recorded": {
    path: true,
    sections: true,
    bytes: true,
    sha256: true,
    skills: true,
    instructions: true,
  },
  "memory_context.updated": {
    source: true,
    tool_call_id: true,
    added: true,
    count: true,
    bytes: true,
    sha256: true,
    artifact: true,
    cut: true,
  },
  "instruction_file.registered": {
    tool_call_id: true,
    path: true,
    bytes: true,
    sha256: true,
    artifact: true,
    cut: true,
  },
  "model.responded": {
    turn: true,
    provider: true,
    tool_calls: true,
    text: true,
    usage: true,
    stop: true,
    max_tokens: true,
    first_token_ms: true,
    request_id: true,
    provider_content: true,
  },
  "model.retried": { turn: true, provider: true, reason: true, max_tokens: true },
  "tool.started": { tool_call_id: true, tool: true },
  "tool.completed": toolEnded,
  "tool.failed": toolEnded,
  "tool.denied": toolEnded,
  "tool.skipped": {
    tool_call_id: true,
    tool: true,
    provider: true,
    ok: true,
    executed: true,
    summary: true,
    error_type: true,
    duration_ms: true,
    details: true,
  },
  "command.swept": { tool_call_id: true, killed: true },
  "mcp_server.sandbox_violation": { server: true, quarantined: true, found: true },
  "skill.loaded": {
    skill: true,
    requested: true,
    commands: true,
    got: true,
    removed: true,
    policy_hash: true,
  },
  "hook.completed": hook,
  "hook.failed": hook,
  "approval.requested": { ...approval, approver: true },
  "approval.granted": { ...approval, source: true, approver: true },
  "approval.denied": { ...approval, approver: true, reason: true },
  "approval.failed": { ...approval, reason: true },
  "agent.started": childAgent,
  "agent.completed": {
    ...childAgent,
    end_reason: true,
    turns: true,
    usage: true,
    calls: true,
    denied: true,
    failed: true,
    duration_ms: true,
    error: true,
  },
  "task.step_claimed": {
    task_id: true,
    step_id: true,
    fencing_token: true,
    lease_until: true,
    machine: true,
    agent_id: true,
  },
  "task.step_reported": {
    task_id: true,
    step_id: true,
    fencing_token: true,
    state: true,
    accepted: true,
    refused: true,
    lease_lost: true,
  },
};

/** The field names of each `### <type>` section's table, in order. */
function documentedFields(markdown: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of markdown.split("\n")) {
    const heading = /^### (\S+)$/.exec(line);
    if (heading !== null) {
      current = [];
      sections.set(heading[1] ?? "", current);
      continue;
    }
    if (line.startsWith("## ")) current = null;
    const row = /^\| `([a-z0-9_]+)` +\|/.exec(line);
    if (current !== null && row !== null) current.push(row[1] ?? "");
  }
  return sections;
}

const markdown = await Deno.readTextFile(nodePath.join(repository, "docs/EVENTS.md"));

Deno.test("docs/EVENTS.md has a section for every event type and for nothing else", () => {
  assert.deepEqual([...documentedFields(markdown).keys()].sort(), [...AUDIT_EVENT_TYPES].sort());
});

Deno.test("docs/EVENTS.md lists exactly the fields of each event type", () => {
  const documented = documentedFields(markdown);
  for (const type of AUDIT_EVENT_TYPES) {
    assert.deepEqual(
      [...(documented.get(type) ?? [])].sort(),
      Object.keys(FIELDS[type]).sort(),
      `the fields of ${type}`,
    );
  }
});
