/**
 * The report's inline style sheet (the CSP allows inline styles only; no fonts, no images but
 * `data:`).
 *
 * @module
 */

/** The report's CSS. */
export const REPORT_STYLE = `
:root { color-scheme: light; --ink: #1b1f24; --dim: #59636e; --line: #d1d9e0; --ok: #1a7f37;
  --denied: #9a6700; --failed: #cf222e; --skipped: #59636e; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 24px; color: var(--ink);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 22px; margin: 0 0 12px; word-break: break-all; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 16px 0 6px; }
code, pre { font: 12px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px;
  overflow-x: auto; white-space: pre-wrap; word-break: break-word; max-height: 480px; margin: 4px 0; }
.verdict { padding: 10px 14px; border-radius: 6px; font-size: 15px; border: 1px solid; margin: 0; }
.verdict-verified { background: #dafbe1; border-color: #4ac26b; }
.verdict-tampered { background: #ffebe9; border-color: #ff8182; }
.verdict-incomplete { background: #fff8c5; border-color: #d4a72c; }
.verdict-not_checked { background: var(--bg); border-color: var(--line); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.facts dt { color: var(--dim); }
dl.facts dd { margin: 0; word-break: break-word; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--dim); font-weight: 600; }
td.number { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.status { font-weight: 600; white-space: nowrap; }
.status-completed { color: var(--ok); } .status-denied { color: var(--denied); }
.status-failed { color: var(--failed); } .status-skipped { color: var(--skipped); }
tr.turn td { background: var(--bg); }
.bar-track { position: relative; height: 10px; min-width: 160px; background: var(--bg); }
.bar { position: absolute; top: 0; height: 10px; border-radius: 2px; background: #0969da; }
.bar.status-denied { background: var(--denied); } .bar.status-failed { background: var(--failed); }
.bar.status-skipped { background: var(--skipped); } .bar.model { background: #8250df; }
details.call { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.call > summary { cursor: pointer; word-break: break-word; }
.diff .add { color: #116329; background: #dafbe1; display: block; }
.diff .del { color: #82071e; background: #ffebe9; display: block; }
.diff .hunk { color: #8250df; display: block; }
.dim { color: var(--dim); }
ul { margin: 4px 0; padding-left: 22px; }
footer { margin-top: 32px; color: var(--dim); font-size: 12px; }
`;
