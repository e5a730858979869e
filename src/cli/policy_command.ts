/**
 * `kagent-run policy --config F [--json]`: for every registered tool, the decision and which layer
 * and rule made it, plus the rules that may change it per call (paths, commands).
 *
 * @module
 */

import { preparePolicy } from "../session/mod.ts";
import { discoverSkills, skillRequestFor } from "../skills/mod.ts";
import { telemetryChannel, telemetrySnapshot } from "../telemetry/mod.ts";
import { describeTelemetry } from "./_telemetry_check.ts";
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

/** Help text of the policy command. */
export const POLICY_HELP =
  `Usage: kagent-run policy --config FILE [--workspace DIR] [--json] [--agent-type TYPE]

Explains the effective permission policy: for every registered tool, the decision for a call (allow,
ask, deny), the layer (runtime, sandbox, skill, config, default) and the rule that made it, and the
path rules that can change it per call. --json prints the policy.json snapshot a run would write.
`;

/** Runs the `policy` command. @returns the exit status. */
export function policyCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values } = parseOptions("policy", args, {
      config: { type: "string" },
      workspace: { type: "string" },
      json: { type: "boolean" },
      "agent-type": { type: "string" },
    });
    if (values.help) {
      io.stdout(POLICY_HELP);
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
    const { policy, guard, workerPermissions, commands, skillDirs, network } = prepared;
    // What each skill requests (its allowed-tools) and what loading it would leave the run.
    const catalogue = await discoverSkills(skillDirs);
    const skills = catalogue.skills.map((skill) => {
      const request = skillRequestFor(skill);
      const narrowed = policy.withSkillRequest(request);
      return {
        skill: skill.name,
        requested: skill.allowed_tools.length === 0 ? "(no narrowing)" : skill.allowed_tools,
        // What the entries map to (Claude names to kagent-run tools, Bash(program:*) limits).
        maps_to: request.allowed_tools ?? null,
        commands: (request.allowed_commands ?? []).map((command) =>
          command.argv.join(" ") + (command.prefix ? " …" : "")
        ),
        got: narrowed.tools.filter((tool) => tool.available).map((tool) => tool.tool),
        warnings: skill.warnings,
      };
    });
    if (values.json) {
      io.stdout(
        `${
          JSON.stringify(
            {
              ...policy.snapshot(),
              telemetry: telemetrySnapshot(telemetryChannel(io.env), config.audit),
              skills,
              invalid_skills: catalogue.invalid,
            },
            null,
            2,
          )
        }\n`,
      );
      return EXIT.ok;
    }
    const lines = [
      `Policy ${policy.hash.slice(0, 16)} for config "${config.configPath}"`,
      `  workspace:    ${guard.workspace}`,
      `  read roots:   ${guard.readRoots.join(", ") || "(none besides the workspace)"}`,
      `  write roots:  ${guard.writeRoots.join(", ") || "(none besides the workspace)"}`,
      `  protected:    ${[...guard.protectedPaths, "any .git folder"].join(", ")}`,
      `  sensitive:    ${guard.sensitivePatterns.join(", ")}`,
      `  permissions:  ${
        config.permissionsPath ??
          (config.permissions.rules.length > 0 ? "inline" : "none (runtime defaults only)")
      }`,
      `  tool Worker:  read ${workerPermissions.read.join(", ")}; write ${
        workerPermissions.write.join(", ")
      }; no net, ffi, sys`,
      `  Worker run:   ${
        workerPermissions.run === false
          ? "none (no command tools)"
          : workerPermissions.run.join(", ")
      }`,
      `  Worker env:   ${
        workerPermissions.env === false ? "none" : workerPermissions.env.join(", ") || "none"
      }`,
      `  network:      ${
        network.model.length + network.memory.length + network.mcp.length +
              (network.tools ?? []).length === 0
          ? "none (the process drops its net permission)"
          : [
            ...network.model.map((host) => `model ${host}`),
            ...network.memory.map((host) => `memory ${host}`),
            ...network.mcp.map((host) => `mcp ${host}`),
            ...(network.tools ?? []).map((host) => `net.fetch ${host}`),
          ].join(", ") + ", through the network Worker only"
      }`,
      `  telemetry:    ${describeTelemetry(telemetryChannel(io.env), config.audit)}`,
      ...(commands === null ? [] : [
        `  commands:     ${
          commands.programs.map((program) => `${program.name} (${program.path})`).join(", ")
        }`,
        `  isolation:    ${commands.isolation.effective} (configured "${commands.isolation.configured}": ${commands.isolation.reason})`,
        `                ${isolationInWords(commands.isolation.effective, config)}`,
      ]),
      "",
    ];
    io.stdout(lines.join("\n") + "\n");
    io.stdout(formatTable(
      ["TOOL", "DECISION", "LAYER", "RULE", "PER-CALL RULES", "REASON"],
      policy.tools.map((tool) => [
        tool.tool,
        tool.available ? tool.decision : `${tool.decision} (removed)`,
        tool.layer,
        tool.rule,
        tool.conditional_rules.join(",") || "-",
        tool.reason,
      ]),
    ));
    if (skills.length > 0) {
      io.stdout("\nSkills (loading one narrows the rest of the run; a skill never grants):\n");
      for (const entry of skills) {
        const requested = Array.isArray(entry.requested)
          ? entry.requested.join(" ")
          : entry.requested;
        io.stdout(`  ${entry.skill}: requested ${requested}\n    got ${entry.got.join(", ")}\n`);
        if (entry.commands.length > 0) {
          io.stdout(`    exec.run_command only for ${entry.commands.join(", ")}\n`);
        }
        for (const warning of entry.warnings) io.stdout(`    warning: ${warning}\n`);
      }
    }
    for (const invalid of catalogue.invalid) io.stdout(`  skipped: ${invalid.reason}\n`);
    io.stdout(
      "\nEvery call also passes the path guard first (outside the roots: deny, sandbox layer), protected paths\n" +
        "are never written (deny, sandbox layer), and sensitive paths ask (runtime layer).\n",
    );
    return EXIT.ok;
  });
}

/** What an isolation mode guarantees, in words (README "Security"). */
export function isolationInWords(
  effective: "bwrap" | "none" | "off",
  config: { sandbox: { command_network: boolean }; tools: { git_write: boolean } },
): string {
  if (effective === "off") {
    return "command tools are OFF for this run (no confinement could be had); no command runs";
  }
  if (effective === "none") {
    return "commands run WITHOUT OS confinement: every command call asks, whatever a rule " +
      "allows, and in CI runs only with a grant for its exact argv and folder; what a command " +
      "leaves is killed by its process group, session, call marker and descent after the call, " +
      "and by a watchdog if kagent-run is killed (kill -9), except a process that left the " +
      "session and emptied its environment, or a watchdog killed too; commands reach the network";
  }
  return "every command runs in bubblewrap: only system folders, the programs' folders, the " +
    "roots and the run's folders exist; " +
    (config.tools.git_write
      ? ".git is writable except config, hooks/, commondir, info/, alternates; "
      : ".git is read-only; ") +
    "protected paths read-only, sensitive files masked, " +
    (config.sandbox.command_network ? "host network on; " : "no network; ") +
    "no process outlives its call";
}
