/**
 * The HTML report's sections about calls: every call with its decision and approval, denials with
 * their grants, edits as diffs, commands with exit codes and output excerpts. Every value goes
 * through {@linkcode html}.
 *
 * @module
 */

import { html, type SafeHtml } from "./html_escape.ts";
import type { CommandView, EditView, RunLink } from "./call_view.ts";
import type { DenialView, ReportModel } from "./report_model.ts";
import { clip, formatDuration } from "./_report_words.ts";
import { diffLines, displaySection } from "./_html_display.ts";

export function callsSection(model: ReportModel, link: (target: RunLink) => SafeHtml): SafeHtml {
  if (model.calls.length === 0) {
    return html`
      <section id="calls">
        <h2>Tool calls</h2>
        <p>None.</p>
      </section>
    `;
  }
  const details = model.calls.map((call) => {
    const decision = call.decision;
    return html`
      <details class="call" id="call-${call.number}" ${call.status === "completed" ? "" : html`
        open
      `}>
      <summary>#${call.number} <code>${call.tool}</code> <span class="status status-${call
        .status}">${call.status}${call.error_type === null
        ? ""
        : ` (${call.error_type})`}</span> <span class="dim">${call.duration_ms === null
        ? ""
        : formatDuration(call.duration_ms)}</span> ${call.summary}</summary>
      <dl class="facts">
      <dt>Call id</dt><dd><code>${call.id}</code>${call.turn === null
        ? ""
        : `, model turn ${call.turn}`}${call.executed ? "" : ", never executed"}</dd>
      <dt>Decision</dt><dd>${decision === null
        ? "none (the call never reached the policy)"
        : html`<strong>${decision.decision}</strong> by rule <code>${decision.rule}</code> (layer ${decision.layer}): ${decision.reason}`}</dd>
      <dt>Approval</dt><dd>${call.approval ?? "nobody approved"}</dd>
      ${call.scope.length === 0 ? "" : html`
        <dt>Scope</dt>
        <dd>${call.scope.map((part) =>
          html`
            <code>${part}</code>
          `
        )}</dd>
      `}
      ${call.approval_events.length === 0 ? "" : html`
        <dt>Approvals</dt>
        <dd>
          <ul>${call.approval_events.map((text) => html`<li>${text}</li>`)}</ul>
        </dd>
      `}
      ${call.is_command
        ? html`
          <dt>Exit code</dt>
          <dd>${call.exit_code ?? "none"}${call.signal === null
            ? ""
            : `, signal ${call.signal}`}</dd>
        `
        : ""}
      ${call.links.length === 0 ? "" : html`
        <dt>Files</dt>
        <dd>${call.links.map((target) =>
          html`
            ${link(target)}
          `
        )}</dd>
      `}
      </dl>
      ${displaySection(call.display, call.summary, link)}
      ${call.arguments === null ? "" : html`
        <h3>Arguments</h3>
        <pre>${clip(call.arguments, 4000)}</pre>
      `}
      ${call.output === null ? "" : html`
        <h3>Output</h3>
        <pre>${clip(call.output, 8000)}</pre>
      `}
      </details>
    `;
  });
  return html`<section id="calls"><h2>Tool calls</h2>${details}</section>`;
}

export function denialsSection(denials: readonly DenialView[]): SafeHtml {
  if (denials.length === 0) return html``;
  return html`<section id="denials"><h2>Denials</h2>${
    denials.map((denial) =>
      html`<h3><a href="#call-${denial.call}">#${denial.call}</a> <code>${denial.tool}</code>: ${
        denial.error_type ?? "denied"
      }${
        denial.rule === null ? "" : html`
          by <code>${denial.rule}</code> (layer ${denial.layer ?? "?"})
        `
      }</h3>
<p>${denial.message}</p>
${
        denial.approve_argument === null ? "" : html`
          <p>To allow exactly this call next time, re-run with:</p>
          <pre>${denial.approve_argument}</pre>
        `
      }
${
        denial.replay === null ? "" : html`
          <p>The whole command:</p>
          <pre>${denial.replay}</pre>
        `
      }`
    )
  }</section>`;
}

export function editsSection(
  edits: readonly EditView[],
  link: (target: RunLink) => SafeHtml,
): SafeHtml {
  if (edits.length === 0) return html``;
  return html`<section id="edits"><h2>Edits</h2>${
    edits.map((edit) =>
      html`<h3><a href="#call-${edit.call}">#${edit.call}</a> ${edit.kind} <code>${edit.path}</code></h3>
${edit.diff === null ? "" : html`<pre class="diff">${diffLines(edit.diff)}</pre>`}
${edit.link === null ? "" : html`<p>Whole text: ${link(edit.link)}</p>`}`
    )
  }</section>`;
}

export function commandsSection(
  commands: readonly CommandView[],
  link: (target: RunLink) => SafeHtml,
): SafeHtml {
  if (commands.length === 0) return html``;
  return html`<section id="commands"><h2>Commands</h2>${
    commands.map((command) =>
      html`<h3><a href="#call-${command.call}">#${command.call}</a> <code>${command.command}</code>: exit ${
        command.exit_code ?? "none"
      }${command.signal === null ? "" : `, signal ${command.signal}`}</h3>
${command.excerpt === null ? "" : html`<pre>${command.excerpt}</pre>`}
${
        command.links.length === 0 ? "" : html`<p>${
          command.links.map((target) =>
            html`
              ${link(target)}
            `
          )
        }</p>`
      }`
    )
  }</section>`;
}
