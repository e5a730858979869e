/**
 * `kagent-run tools --config F [--json]`: the run's effective tool set with annotations; a table (on
 * a terminal and in a pipe), JSON with `--json`.
 *
 * @module
 */

import { preparePolicy } from "../session/mod.ts";
import { describeTool, RISK_LEVEL_NAMES } from "../tools/mod.ts";
import { formatTable } from "./_table.ts";
import {
  agentTypeOption,
  type CommandIo,
  EXIT,
  guarded,
  loadConfigFromOptions,
  openNetworkBoundary,
  parseOptions,
} from "./_common.ts";

/** Help text of the tools command. */
export const TOOLS_HELP =
  `Usage: kagent-run tools --config FILE [--workspace DIR] [--json] [--all] [--agent-type TYPE]

Lists the tools of the run's effective tool set: name, permission, risk, tags and the tool-level
policy decision. A table, on a terminal and in a pipe alike; JSON with --json. --all includes tools the
policy removed.
`;

/** Runs the `tools` command. @returns the exit status. */
export function toolsCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values } = parseOptions("tools", args, {
      config: { type: "string" },
      workspace: { type: "string" },
      "mcp-config": { type: "string" },
      json: { type: "boolean" },
      "agent-type": { type: "string" },
      all: { type: "boolean" },
    });
    if (values.help) {
      io.stdout(TOOLS_HELP);
      return EXIT.ok;
    }
    const config = await loadConfigFromOptions(values);
    // HTTP MCP servers are asked for their tools through the network Worker, as in a run.
    const gateway = await openNetworkBoundary(config, io, { model: false, memory: false });
    let prepared;
    try {
      prepared = await preparePolicy(config, {
        env: io.env,
        agentType: agentTypeOption(values),
        ...(gateway === null ? {} : { mcpFetch: gateway.fetchFor("mcp") }),
      });
    } finally {
      gateway?.close();
    }
    const { registry, policy } = prepared;
    const tools = registry.list()
      .map((registered) => ({
        ...describeTool(registered.definition),
        policy: policy.toolPolicy(registered.definition.name),
      }))
      .filter((tool) => values.all || tool.policy?.available);
    if (values.json) {
      io.stdout(`${JSON.stringify(tools, null, 2)}\n`);
      return EXIT.ok;
    }
    io.stdout(formatTable(
      ["TOOL", "PERMISSION", "RISK", "DECISION", "TAGS", "DESCRIPTION"],
      tools.map((tool) => [
        tool.name,
        tool.permission,
        `${tool.annotations.risk_level} ${RISK_LEVEL_NAMES[tool.annotations.risk_level]}`,
        tool.policy?.available ? tool.policy.decision : "removed",
        tool.tags.join(","),
        (tool.description.split(/(?<=\.)\s/)[0] ?? "").slice(0, 60),
      ]),
    ));
    return EXIT.ok;
  });
}
