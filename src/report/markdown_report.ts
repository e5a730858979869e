/**
 * The report as Markdown (GitHub-flavoured): the same sections as the HTML report. Text from the
 * run folder is either inside a code block whose fence is longer than any backtick run in it, or
 * has every ASCII punctuation character backslash-escaped, so that it can never become markup
 * (no raw HTML, no link, no emphasis, no table cell break).
 *
 * @module
 */

import { displayMarkdown } from "./display_markdown.ts";
import { runHref } from "./html_escape.ts";
import type { RunLink } from "./call_view.ts";
import type { ReportModel } from "./report_model.ts";
import { formatDuration, segmentsText, VERDICT_LABELS } from "./_report_words.ts";

/**
 * Escapes text for Markdown (GitHub-flavoured): line breaks become spaces, and every ASCII
 * punctuation character that can start markup gets a backslash (CommonMark lets any of them be
 * escaped): HTML and entities (`<` `>` `&`), links and images (`[` `]` `(` `)` `!`), emphasis and
 * code (`*` `_` `~` and the backtick), table cells (`|`), headings and lists at a line's start
 * (`#` `-` `+` `.`), autolinks (`:` `.` `@`, so `https://…`, `www.…` and `@user` stay text), math
 * (`$`) and braces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeMarkdown } from "./markdown_report.ts";
 * assert.equal(escapeMarkdown("<b>[x](y)</b>"), "\\<b\\>\\[x\\]\\(y\\)\\</b\\>");
 * assert.equal(escapeMarkdown("see https://x.example, @user"), "see https\\://x\\.example, \\@user");
 * ```
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/\r\n|\r|\n/g, " ").replace(
    /[\\`*_[\]<>&|~!#():.+\-$@{}]/g,
    (character) => `\\${character}`,
  );
}

/**
 * A fenced code block holding `text` verbatim: the fence is one backtick longer than the longest
 * run of backticks in the text (at least three).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { codeBlock } from "./markdown_report.ts";
 * const fence = "`".repeat(3);
 * assert.ok(codeBlock(`a ${fence} b`).startsWith(`${fence}\`\n`));
 * ```
 */
export function codeBlock(text: string, language = ""): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text.replace(/\n$/, "")}\n${fence}`;
}

/** Options of {@linkcode renderMarkdownReport}. */
export interface MarkdownReportOptions {
  /** The run folder as seen from the report's folder. @default "" */
  runBase?: string;
}

/**
 * Renders the report of a run as Markdown.
 *
 * @param model From `buildReportModel`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderMarkdownReport } from "./markdown_report.ts";
 * import { buildReportModel } from "./report_model.ts";
 * const model = buildReportModel({
 *   dir: "/runs/r1", info: null, tools: [], errors: [], pending: [], deliverables: [],
 *   children: [], texts: new Map(), run_files: [], reports: null, config: null, problems: [], events: [{ type: "run.started", task: "<img src=x>" }],
 * }, { status: "not_checked", headline: "not verified", problems: [] });
 * // The task, verbatim in a code block; the run's other texts escaped.
 * const fence = "`".repeat(3);
 * assert.ok(renderMarkdownReport(model).includes(`${fence}\n<img src=x>\n${fence}`));
 * ```
 */
export function renderMarkdownReport(
  model: ReportModel,
  options: MarkdownReportOptions = {},
): string {
  const base = options.runBase ?? "";
  const text = escapeMarkdown;
  const link = (target: RunLink) => `[${text(target.label)}](${runHref(base, target.path)})`;
  const lines: string[] = [`# kagent-run run ${text(model.run_id)}`, ""];
  const { verdict, counts } = model;
  lines.push(`**${VERDICT_LABELS[verdict.status] ?? "Not verified"}:** ${text(verdict.headline)}`);
  for (const problem of verdict.problems) lines.push(`- ${text(problem)}`);
  lines.push(
    "",
    "## Run",
    "",
    "**Task:**",
    "",
    model.task === null ? "(none)" : codeBlock(model.task),
    "",
  );
  lines.push(
    `- **Model:** ${text(model.model ?? "(none)")}`,
    `- **Started:** ${text(model.started_at ?? "(unknown)")}`,
    `- **End reason:** ${
      text(model.end_reason ?? "none recorded: no run.completed (killed, or still running)")
    }`,
    `- **Duration:** ${
      model.duration_ms === null
        ? "(unknown)"
        : `${formatDuration(model.duration_ms)}${segmentsText(model.summary.segments)}`
    }`,
    `- **Turns:** ${model.turns ?? model.timeline.length}`,
    `- **Tool calls:** ${counts.calls} (${counts.denied} denied, ${counts.failed} failed, ${counts.skipped} skipped)`,
  );
  if (model.tokens !== null) {
    lines.push(`- **Tokens:** ${model.tokens.input} in, ${model.tokens.output} out`);
  }
  if (model.error !== null) lines.push(`- **Error:** ${text(model.error)}`);
  if (model.workspace !== null) lines.push(`- **Workspace:** ${text(model.workspace)}`);
  if (model.config !== null) lines.push(`- **Config:** ${text(model.config)}`);
  if (model.policy_hash !== null) lines.push(`- **Policy hash:** ${text(model.policy_hash)}`);
  if (model.run_files.length > 0) {
    lines.push(
      `- **Run files:** ${
        model.run_files.map((path) => `[${text(path)}](${runHref(base, path)})`).join(", ")
      }`,
    );
  }
  if (model.final_text !== null) {
    lines.push("", "**Final answer:**", "", codeBlock(model.final_text));
  }

  lines.push("", "## Timeline", "", "| at | what | took |", "| ---: | --- | ---: |");
  const byNumber = new Map(model.calls.map((call) => [call.number, call]));
  const at = (ms: number | null) => ms === null ? "" : `\\+${formatDuration(ms)}`;
  const took = (ms: number | null) => ms === null ? "" : formatDuration(ms);
  const callRow = (number: number) => {
    const call = byNumber.get(number);
    if (call === undefined) return [];
    const error = call.error_type === null ? "" : ` \\(${text(call.error_type)}\\)`;
    return [
      `| ${at(call.start_ms)} | \\#${call.number} ${text(call.tool)}: ${call.status}${error} | ${
        took(call.duration_ms)
      } |`,
    ];
  };
  const inTurns = new Set<number>();
  for (const turn of model.timeline) {
    lines.push(
      `| ${at(turn.at_ms)} | **model turn ${turn.turn}**: ${turn.calls.length} call\\(s\\)${
        turn.stop === null || turn.stop === "end" ? "" : `, stop ${text(turn.stop)}`
      } | ${took(turn.duration_ms)} |`,
    );
    for (const number of turn.calls) {
      inTurns.add(number);
      lines.push(...callRow(number));
    }
  }
  for (const call of model.calls) {
    if (!inTurns.has(call.number)) lines.push(...callRow(call.number));
  }

  lines.push("", "## Tool calls");
  for (const call of model.calls) {
    const decision = call.decision;
    lines.push(
      "",
      `### \\#${call.number} ${text(call.tool)}: ${call.status}${
        call.error_type === null ? "" : ` \\(${text(call.error_type)}\\)`
      }`,
      "",
      `- **Call id:** ${text(call.id)}${call.turn === null ? "" : `, model turn ${call.turn}`}${
        call.executed ? "" : ", never executed"
      }`,
      `- **Summary:** ${text(call.summary)}`,
      `- **Decision:** ${
        decision === null
          ? "none \\(the call never reached the policy\\)"
          : `**${text(decision.decision)}** by rule ${text(decision.rule)} \\(layer ${
            text(decision.layer)
          }\\): ${text(decision.reason)}`
      }`,
      `- **Approval:** ${text(call.approval ?? "nobody approved")}`,
    );
    if (call.scope.length > 0) lines.push(`- **Scope:** ${call.scope.map(text).join(", ")}`);
    for (const event of call.approval_events) lines.push(`- **Approval event:** ${text(event)}`);
    if (call.is_command) {
      lines.push(
        `- **Exit code:** ${call.exit_code ?? "none"}${
          call.signal === null ? "" : `, signal ${text(call.signal)}`
        }`,
      );
    }
    if (call.links.length > 0) lines.push(`- **Files:** ${call.links.map(link).join(", ")}`);
    const shown = displayMarkdown(call.display, { runBase: base, summary: call.summary });
    if (shown.length > 0) lines.push("", ...shown);
  }

  if (model.denials.length > 0) {
    lines.push("", "## Denials");
    for (const denial of model.denials) {
      lines.push(
        "",
        `### \\#${denial.call} ${text(denial.tool)}: ${text(denial.error_type ?? "denied")}${
          denial.rule === null
            ? ""
            : ` by ${text(denial.rule)} \\(layer ${text(denial.layer ?? "?")}\\)`
        }`,
        "",
        text(denial.message),
      );
      if (denial.approve_argument !== null) {
        lines.push(
          "",
          "To allow exactly this call next time, re-run with:",
          "",
          codeBlock(denial.approve_argument, "sh"),
        );
      }
      if (denial.replay !== null) {
        lines.push("", "The whole command:", "", codeBlock(denial.replay, "sh"));
      }
    }
  }
  if (model.edits.length > 0) {
    lines.push("", "## Edits");
    for (const edit of model.edits) {
      lines.push("", `### \\#${edit.call} ${edit.kind} ${text(edit.path)}`);
      if (edit.diff !== null) lines.push("", codeBlock(edit.diff, "diff"));
      if (edit.link !== null) lines.push("", `Whole text: ${link(edit.link)}`);
    }
  }
  if (model.commands.length > 0) {
    lines.push("", "## Commands");
    for (const command of model.commands) {
      lines.push(
        "",
        `### \\#${command.call} ${text(command.command)}: exit ${command.exit_code ?? "none"}${
          command.signal === null ? "" : `, signal ${text(command.signal)}`
        }`,
      );
      if (command.excerpt !== null) lines.push("", codeBlock(command.excerpt));
      if (command.links.length > 0) lines.push("", command.links.map(link).join(", "));
    }
  }
  lines.push("", "## Deliverables", "");
  if (model.deliverables.length === 0) lines.push("None.");
  for (const file of model.deliverables) {
    lines.push(
      `- [${text(file.path.replace(/^deliverables\//, ""))}](${
        runHref(base, file.path)
      }) \\(${file.bytes} bytes\\)`,
    );
  }
  if (model.children.length > 0) {
    lines.push("", "## Child agents", "");
    for (const child of model.children) {
      lines.push(
        `- [${text(child.name)}](${runHref(base, child.link)}): ${
          text(child.end_reason ?? "no run.completed")
        }${child.task === null ? "" : ` — ${text(child.task.slice(0, 200))}`}`,
      );
    }
  }
  if (model.problems.length > 0) {
    lines.push(
      "",
      "## What could not be read",
      "",
      ...model.problems.map((problem) => `- ${text(problem)}`),
    );
  }
  return `${lines.join("\n")}\n`;
}
