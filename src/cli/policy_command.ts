/**
 * `kagent-run policy --config F [--json]`: for every registered tool, the decision and which layer
 * and rule made it, plus the rules that may change it per call (paths, commands).
 *
 * @module
 */

import * as nodePath from "node:path";
import { scanTree } from "../exec/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import { preparePolicy, type SessionRun } from "../session/mod.ts";
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
path rules that can change it per call. The hash printed is the one a run's grants name. --json
prints the policy as a run computes it (policy.json's layers, tools and hash), the run folder written
as <run>, with the skills' requests and the telemetry settings added.
`;

/** Runs the `policy` command. @returns the exit status. */
export function policyCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values } = parseOptions("policy", args, {
      config: { type: "string" },
      workspace: { type: "string" },
      "mcp-config": { type: "string" },
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
    // The policy as a run computes it: with a run folder (a stand-in, removed at once), whose
    // paths the hash writes as <run>, so the printed hash is the one a run's grants name.
    const preview = await Deno.makeTempDir({ prefix: "kagent-run-policy-" });
    const realPreview = await Deno.realPath(preview);
    let prepared;
    try {
      const run: SessionRun = {
        dir: preview,
        workspace: nodePath.join(preview, "workspace"),
        deliverables: nodePath.join(preview, "deliverables"),
        artifacts: nodePath.join(preview, "artifacts"),
      };
      for (const folder of [run.workspace, run.deliverables, run.artifacts]) {
        await Deno.mkdir(folder);
      }
      prepared = await preparePolicy(config, {
        env: io.env,
        agentType: agentTypeOption(values),
        ...(gateway === null ? {} : { mcpFetch: gateway.fetchFor("mcp") }),
      }, run);
    } finally {
      gateway?.close();
      await Deno.remove(preview, { recursive: true }).catch(() => {});
    }
    /** The stand-in run folder written as `<run>`, as the hash writes it. */
    const named = (text: string) =>
      text.replaceAll(realPreview, "<run>").replaceAll(preview, "<run>");
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
          named(JSON.stringify(
            {
              ...policy.snapshot(),
              telemetry: telemetrySnapshot(telemetryChannel(io.env), config.audit),
              skills,
              invalid_skills: catalogue.invalid,
              readable_through_git: readableThroughGit(guard),
            },
            null,
            2,
          ))
        }\n`,
      );
      return EXIT.ok;
    }
    const lines = [
      `Policy ${policy.hash} for config "${config.configPath}" (the hash grants name)`,
      `  workspace:    ${guard.workspace}`,
      `  read roots:   ${guard.readRoots.join(", ") || "(none besides the workspace)"}`,
      `  write roots:  ${guard.writeRoots.join(", ") || "(none besides the workspace)"}`,
      `  protected:    ${
        [
          ...guard.protectedPaths,
          "any .git folder (a new one, at any depth, is quarantined)",
          "the folder core.hooksPath names",
        ].join(", ")
      }`,
      `  sensitive:    ${guard.sensitivePatterns.join(", ")}`,
      `  readable through git (tracked, so not masked for commands): ${
        describeTracked(readableThroughGit(guard))
      }`,
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
    io.stdout(named(lines.join("\n") + "\n"));
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

/** What an isolation mode guarantees, in words (docs/SECURITY.md). */
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
    "known-safe commands and readonly tools see every root read-only; an allow rule that names " +
    "a program (npm, python3) lets it run unasked; no process outlives its call";
}

/**
 * Sensitive files git tracks in the roots: commands see them (git must hash them, and their
 * content is in the object store already); the file tools still ask for them.
 *
 * @returns their paths as displayed, or why the roots could not be scanned
 */
function readableThroughGit(guard: PathGuard): string[] | { not_checked: string } {
  const scan = scanTree({
    writeRoots: guard.allWriteRoots,
    readRoots: guard.readRoots,
    exclusions: guard.walkExclusions,
    sensitiveMatch: (path) => guard.sensitiveMatch(path),
  });
  if (!scan.ok) return { not_checked: scan.reason };
  return [...scan.facts.tracked].map((path) => guard.display(path)).sort();
}

function describeTracked(tracked: string[] | { not_checked: string }): string {
  if (!Array.isArray(tracked)) return `(not checked: ${tracked.not_checked})`;
  return tracked.length === 0 ? "none" : tracked.join(", ");
}
