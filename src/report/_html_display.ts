/**
 * Display blocks (`result/display_blocks.ts`) in the HTML report: each call's blocks under
 * "Shown", every text through {@linkcode html} (escaped), an artifact a link only when its path is a
 * file of the run folder, a block of an unknown type as its type and its data as JSON.
 *
 * @module
 */

import { type DisplayBlock, isKnownBlock } from "../result/mod.ts";
import { html, type SafeHtml } from "./html_escape.ts";
import { linkablePath } from "./_fields.ts";
import type { RunLink } from "./call_view.ts";
import { clip } from "./_report_words.ts";

/** Most table rows the report shows of one block. */
const MAX_ROWS = 50;

/**
 * The "Shown" part of a call: its display blocks, or nothing when it has none (older runs) or
 * only a brief repeating `summary`.
 */
export function displaySection(
  blocks: readonly DisplayBlock[],
  summary: string,
  link: (target: RunLink) => SafeHtml,
): SafeHtml {
  const shown = blocks.filter((block) =>
    !(block.type === "brief" && isKnownBlock(block) && block.text === summary)
  );
  if (shown.length === 0) return html``;
  return html`
    <h3>Shown</h3>
    <div class="display">${shown.map((block) => blockHtml(block, link))}</div>
  `;
}

function blockHtml(block: DisplayBlock, link: (target: RunLink) => SafeHtml): SafeHtml {
  if (!isKnownBlock(block)) {
    const data = JSON.stringify((block as { data?: unknown }).data ?? null, null, 2) ?? "null";
    return html`<p><code>${block.type}</code> (a display block this version does not know):</p>
<pre>${clip(data, 8000)}</pre>`;
  }
  switch (block.type) {
    case "brief":
      return html`<p>${block.text}</p>`;
    case "diff":
      return html`
        <p><code>${block.path}</code>: +${block.added} −${block.removed}${block.note === undefined
          ? ""
          : ` (${block.note})`}</p>
        <pre class="diff">${diffLines(block.diff)}</pre>
      `;
    case "table": {
      const rows = block.rows.slice(0, MAX_ROWS);
      const hidden = block.total_rows - rows.length;
      return html`
        <table>
          <thead>
            <tr>${block.columns.map((column) => html`<th>${column}</th>`)}</tr>
          </thead>
          <tbody>${rows.map((row) =>
            html`<tr>${row.map((cell) => html`<td>${clip(cell, 300)}</td>`)}</tr>`
          )}</tbody>
        </table>${hidden > 0 ? html`<p class="dim">${hidden} more rows</p>` : ""}
      `;
    }
    case "shell": {
      const end = block.timed_out
        ? "timed out"
        : block.signal !== null
        ? `signal ${block.signal}`
        : block.exit_code === null
        ? "did not exit"
        : `exit ${block.exit_code}`;
      return html`<p><code>$ ${block.command}</code>${
        block.cwd === null ? "" : ` in ${block.cwd}`
      }: ${end}</p>${block.stdout_excerpt === "" ? "" : html`<pre>${block.stdout_excerpt}</pre>`}${
        block.stderr_excerpt === "" ? "" : html`
          <p>stderr:</p>
          <pre>${block.stderr_excerpt}</pre>
        `
      }`;
    }
    case "file_excerpt": {
      const count = block.text === "" ? 0 : block.text.split("\n").length;
      const last = block.start_line + Math.max(count - 1, 0);
      return html`
        <p><code>${block.path}</code>, lines ${block.start_line}–${last}${block.total_lines === null
          ? ""
          : ` of ${block.total_lines}`}:</p>
        <pre>${clip(block.text, 8000)}</pre>
      `;
    }
    case "artifact_link": {
      const path = linkablePath(block.ref);
      const label = `${block.label} (${block.bytes} bytes, ${block.media_type})`;
      return path === null
        ? html`<p>${label}: <code>${block.ref}</code></p>`
        : html`<p>${link({ path, label })}</p>`;
    }
  }
}

/** A diff's lines, each marked added, removed or hunk header for its colour. */
export function diffLines(diff: string): SafeHtml[] {
  return diff.split("\n").map((line) => {
    const kind = line.startsWith("+++") || line.startsWith("---")
      ? "hunk"
      : line.startsWith("+")
      ? "add"
      : line.startsWith("-")
      ? "del"
      : line.startsWith("@@")
      ? "hunk"
      : null;
    return kind === null ? html`${line}\n` : html`<span class="${kind}">${line}</span>`;
  });
}
