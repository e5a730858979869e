/**
 * `kagent-run call <tool> '<json args>' --config F`: one call through the whole pipeline, its
 * ToolResult JSON on stdout. Exit 0 ok, 1 tool error or denial, 2 usage or config error, 3 the
 * call ended `approval_required` (the grant that allows it is printed).
 *
 * @module
 */

import { programWords } from "./launch_form.ts";
import { countResults } from "../runtime/mod.ts";
import { assembleRun } from "../assembly/mod.ts";
import { checkTelemetryHosts } from "./_telemetry_check.ts";
import {
  APPROVAL_HELP,
  APPROVAL_OPTIONS,
  approverFor,
  type CommandIo,
  EXIT,
  grantsFromOptions,
  guarded,
  loadConfigFromOptions,
  openNetworkBoundary,
  parseOptions,
  printPendingGrants,
  UsageError,
} from "./_common.ts";
import { cliRunServices } from "./_run_services.ts";

/** Help text of the call command. */
export const CALL_HELP =
  `Usage: kagent-run call <tool> '<json arguments>' --config FILE [--workspace DIR]

Runs one tool call through the whole pipeline (lookup, schema, policy, sandbox, audit) and prints
its ToolResult as JSON. The call is recorded in a new run folder like any other.

${APPROVAL_HELP}

Example:
  kagent-run call fs.read_file '{"path": "README.md", "max_lines": 5}' --config agent.jsonc

Exit status:
    0  the call succeeded
    1  a tool error or a denial
    2  usage or configuration error; nothing ran
    3  approval required: re-run with the printed grant (--approve or --approvals)
`;

/** Runs the `call` command. @returns the exit status. */
export function callCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("call", args, {
      config: { type: "string" },
      workspace: { type: "string" },
      "mcp-config": { type: "string" },
      ...APPROVAL_OPTIONS,
    });
    if (values.help) {
      io.stdout(CALL_HELP);
      return EXIT.ok;
    }
    const [tool, json = "{}", ...extra] = positionals;
    if (tool === undefined) {
      throw new UsageError(
        `Cannot call a tool: name one, e.g. kagent-run call fs.read_file '{"path": "README.md"}'`,
      );
    }
    if (extra.length > 0) {
      throw new UsageError(
        `Cannot call "${tool}": unexpected argument "${
          extra[0]
        }" (quote the JSON arguments as one argument)`,
      );
    }
    const config = await loadConfigFromOptions(values);
    checkTelemetryHosts(config, io);
    const gateway = await openNetworkBoundary(config, io, { model: false });
    let session;
    try {
      ({ session } = await assembleRun(
        config,
        cliRunServices(io, gateway, approverFor(values, io)),
        {
          // One tool call, no agent loop.
          task: null,
          warmTools: [tool],
          grants: await grantsFromOptions(values),
          replayCommand: [...programWords(), "call", ...args],
        },
      ));
    } catch (error) {
      gateway?.close();
      throw error;
    }
    try {
      const result = await session.runtime.call({ id: "call-1", name: tool, arguments: json });
      await session.recorder.event("run.completed", {
        end_reason: "completed",
        ...countResults([result]),
        duration_ms: result.duration_ms,
      });
      io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      printPendingGrants(
        session.approvals.pending,
        io,
        (grants) => session.approvals.replayFor(grants),
      );
      if (result.ok) return EXIT.ok;
      return result.error?.type === "approval_required" ? EXIT.approvalRequired : EXIT.failed;
    } finally {
      await session.close();
      gateway?.close();
    }
  });
}
