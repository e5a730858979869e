/**
 * `kagent-run report` and `kagent-run run --report` (issue 15 §3): a real run with a denial, an
 * edit, an artifact and a deliverable, whose task, files, call id, edit, deliverable name and final
 * answer carry script payloads, reported as HTML and Markdown. The HTML is rendered in a real
 * headless browser (Debian's `chromium`; skipped with the reason when none is installed): the DOM
 * holds the expected text and no payload ran; a control page with the same payloads unescaped
 * proves the browser does run them (the near miss). Two browser launches in all.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, type Project, readJsonl, runCli } from "./_cli_helpers.ts";
import { marked } from "marked";
import { escapeHtml, writeRunReport } from "../src/report/mod.ts";
import { probeBubblewrap } from "../src/exec/mod.ts";

/** Each payload would change the page's title or body if it ran. */
const PAYLOADS = {
  script: "<script>document.title='PWNED-script'</script>",
  image: `<img src=x onerror="document.title='PWNED-img'">`,
  closing:
    `</pre></details></script><script>document.body.setAttribute('data-pwned','close')</script>`,
  link: `<a href="javascript:document.title='PWNED-link'">click</a>`,
  svg: `<svg onload="document.title='PWNED-svg'"></svg>`,
  attribute: `" onmouseover="document.title='PWNED-attr'" x="`,
  markdownLink: "[click](javascript:alert(1))",
} as const;
const ALL_PAYLOADS = Object.values(PAYLOADS).join("\n");
/** The tags and attributes the HTML renderer writes. */
const TAGS = new Set(
  ("html head meta title style body header h1 h2 h3 p strong ul li section dl dt dd pre table " +
    "thead tbody tr th td a div span code details summary br footer").split(" "),
);
/** The tags a Markdown parser makes of the Markdown report. */
const MARKDOWN_TAGS = new Set(
  "h1 h2 h3 p strong ul li pre code table thead tbody tr th td a".split(" "),
);
const ATTRIBUTES = new Set(
  ["lang", "charset", "http-equiv", "content", "name", "class", "id", "href", "style", "open"],
);
const HOSTILE_ID = `x"><script>document.title='PWNED-id'</script>`;
const HOSTILE_NAME = `x"><img src=x onerror=document.title='PWNED-name'>.md`;

/** One run shared by the tests: made once, reported by `run --report`. */
/** With a working bubblewrap the run also runs a command that fails (exit 1) printing payloads. */
const BUBBLEWRAP = await probeBubblewrap("/usr/bin/bwrap");
if (!BUBBLEWRAP.usable) {
  console.log(`report_test: the run has no command call: ${BUBBLEWRAP.reason}`);
}
const COMMAND_CALLS = BUBBLEWRAP.usable
  ? [{
    id: "cat",
    name: "exec.run_command",
    arguments: { argv: ["cat", "hostile.txt", "gone.txt"] },
  }]
  : [];

let fixture: Promise<{ project: Project; runDir: string; stderr: string }> | null = null;

function hostileRun() {
  fixture ??= (async () => {
    const project = await createProject({
      config: {
        limits: { max_output_bytes: 2048 },
        ...(BUBBLEWRAP.usable ? { commands: ["cat"] } : {}),
      },
      permissions: {
        rules: [
          { tools: ["fs.edit_file"], paths: ["src/**"], decision: "allow" },
          { tools: ["exec.run_command"], commands: ["cat"], decision: "allow" },
        ],
      },
      plan: [
        JSON.stringify({
          tool_calls: [
            { id: "hostile", name: "fs.read_file", arguments: { path: "hostile.txt" } },
            { id: "big", name: "fs.read_file", arguments: { path: "big.txt", max_lines: 300 } },
            { id: HOSTILE_ID, name: "fs.list_files", arguments: { path: "." } },
            ...COMMAND_CALLS,
          ],
        }),
        JSON.stringify({
          tool_calls: [{
            id: "edit",
            name: "fs.edit_file",
            arguments: {
              path: "src/main.ts",
              edits: [{
                old: "// TODO: write the program",
                new: `// Prints one ${PAYLOADS.closing}`,
              }],
            },
          }],
        }),
        JSON.stringify({
          tool_calls: [{
            id: "overwrite",
            name: "fs.write_file",
            arguments: { path: "README.md", content: "replaced", overwrite: true },
          }],
        }),
        JSON.stringify({
          tool_calls: [
            {
              id: "notes",
              name: "fs.write_file",
              arguments: { path: "{{run.deliverables}}/notes.md", content: ALL_PAYLOADS },
            },
            {
              id: "named",
              name: "fs.write_file",
              arguments: { path: `{{run.deliverables}}/${HOSTILE_NAME}`, content: "named" },
            },
          ],
        }),
        JSON.stringify({ content: `Done ${PAYLOADS.image}` }),
      ],
    });
    await Deno.writeTextFile(
      nodePath.join(project.sandbox.workspace, "hostile.txt"),
      `${ALL_PAYLOADS}\n`,
    );
    await Deno.writeTextFile(
      nodePath.join(project.sandbox.workspace, "big.txt"),
      Array.from({ length: 300 }, (_, index) => `line ${index} ${"x".repeat(40)}`).join("\n"),
    );
    const run = await runCli([
      "run",
      "--config",
      project.configPath,
      "--task",
      `Survey ${PAYLOADS.script}${PAYLOADS.attribute}`,
      "--non-interactive",
      "--report",
    ], { env: { GITHUB_STEP_SUMMARY: nodePath.join(project.sandbox.root, "summary.md") } });
    fixtureRoot = project.sandbox.root;
    assert.equal(run.code, 3, run.stderr); // completed; the README overwrite waits for approval
    return { project, runDir: await onlyRunDir(project), stderr: run.stderr };
  })();
  return fixture;
}

/** The first of Debian's and others' names of Chromium found on PATH, or null. */
function findChromium(): string | null {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    for (const folder of (Deno.env.get("PATH") ?? "").split(":")) {
      const path = nodePath.join(folder, name);
      try {
        if (Deno.statSync(path).isFile) return path;
      } catch {
        // Not here.
      }
    }
  }
  return null;
}

const CHROMIUM = findChromium();
if (CHROMIUM === null) {
  console.log(
    "report_test: skipping the headless browser test: no chromium on PATH (apt-get install chromium)",
  );
}

/**
 * Loads `file` in headless Chromium (its profile in `folder`) and returns the DOM after load; also
 * a screenshot if asked.
 */
async function renderInBrowser(file: string, folder: string, screenshot?: string): Promise<string> {
  const output = await new Deno.Command(CHROMIUM as string, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--user-data-dir=${nodePath.join(folder, "chromium-profile")}`,
      "--window-size=1200,1600",
      "--dump-dom",
      ...(screenshot === undefined ? [] : [`--screenshot=${screenshot}`]),
      `file://${file}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dom = new TextDecoder().decode(output.stdout);
  assert.ok(
    dom.includes("<html"),
    `chromium printed no DOM: ${new TextDecoder().decode(output.stderr)}`,
  );
  return dom;
}

/** The text of a dumped DOM: tags and style removed, entities decoded, blanks collapsed. */
function domText(dom: string): string {
  return dom.replace(/<style[\s\S]*?<\/style>/g, " ").replace(/<[^>]*>/g, " ")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&").replace(/\s+/g, " ");
}

Deno.test("run --report writes an HTML report that shows the run and escapes every payload", async () => {
  const { runDir, stderr } = await hostileRun();
  assert.match(stderr, /kagent-run: report .*report\.html \(and report\.md\)/);
  // The GitHub step summary names both files of the run folder.
  const summary = await Deno.readTextFile(nodePath.join(runDir, "..", "..", "summary.md"));
  assert.ok(
    summary.includes(
      `**Report:** \`report.html\` and \`report.md\` in the run folder \`${runDir}\``,
    ),
    summary,
  );
  const page = await Deno.readTextFile(nodePath.join(runDir, "report.html"));
  // The policy that stops a script even if escaping failed, before any content.
  assert.match(
    page,
    /^<!DOCTYPE html>\s*<html lang="en">\s*<head>\s*<meta charset="utf-8">\s*<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:;/,
  );
  // Every tag and attribute is one the renderer writes: no payload became markup.
  for (const tag of page.slice("<!DOCTYPE html>".length).matchAll(/<\/?([^\s>/]+)([^>]*)>/g)) {
    assert.ok(TAGS.has((tag[1] as string).toLowerCase()), `unexpected tag ${tag[0]}`);
    const attributes = (tag[2] as string).replace(/="[^"]*"/g, "").trim().split(/\s+/);
    for (const name of attributes.filter((name) => name !== "")) {
      assert.ok(ATTRIBUTES.has(name), `unexpected attribute ${name} in ${tag[0]}`);
    }
  }
  assert.doesNotMatch(page, /<script|<img|<svg|javascript:[^<]*"/i);
  // The near miss: every payload is shown, as text.
  for (const payload of [...Object.values(PAYLOADS), HOSTILE_ID]) {
    assert.ok(page.includes(escapeHtml(payload)), `payload not shown as text: ${payload}`);
  }
  // Links go only to the run's own files or to anchors of the page.
  const hrefs = [...page.matchAll(/href="([^"]*)"/g)].map((match) => match[1] as string);
  assert.ok(hrefs.length > 10);
  for (const file of ["events.jsonl", "logs/tools.jsonl", "policy.json", "manifest.json"]) {
    assert.ok(hrefs.includes(file), `no link to ${file}`);
  }
  for (const href of hrefs) {
    assert.match(
      href,
      /^(#call-\d+|(artifacts|deliverables)\/[^:]*|[a-z_]+\.json(l)?|[a-z_/]+\.(jsonl|md))$/,
      href,
    );
  }
  // The artifact (the whole output of the cut read) is linked and exists.
  const artifact = hrefs.find((href) => href.startsWith("artifacts/"));
  assert.ok(artifact !== undefined);
  await Deno.stat(nodePath.join(runDir, artifact));
  // The hostile deliverable name is linked percent-encoded, to the file that exists.
  const named = hrefs.find((href) => href.includes("PWNED-name")) as string;
  assert.equal(decodeURIComponent(named), `deliverables/${HOSTILE_NAME}`);
  await Deno.stat(nodePath.join(runDir, decodeURIComponent(named)));
});

Deno.test("run --report shows the failing command's argv, exit code and stderr in both reports", {
  // Without bubblewrap the shared run has no command call; this test is then counted as ignored.
  ignore: !BUBBLEWRAP.usable,
}, async () => {
  const { runDir } = await hostileRun();
  const records = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
  const command = records.find((record) => record.tool_call_id === "cat");
  assert.equal(command?.exit_code, 1);
  const page = await Deno.readTextFile(nodePath.join(runDir, "report.html"));
  assert.ok(page.includes("cat hostile.txt gone.txt"), "the HTML report names the command");
  assert.match(page, /gone\.txt: No such file/);
  const markdown = await Deno.readTextFile(nodePath.join(runDir, "report.md"));
  assert.match(markdown, /gone\\?\.txt: No such file/);
});

Deno.test("run --report writes a Markdown report where no payload becomes markup", async () => {
  const { runDir } = await hostileRun();
  const markdown = await Deno.readTextFile(nodePath.join(runDir, "report.md"));
  // Outside code blocks, every "<" and "[" from the run is backslash-escaped.
  const prose = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, "");
  assert.doesNotMatch(prose, /(^|[^\\])<|\]\(javascript/);
  assert.match(markdown, /\\<script\\>document\\\.title/);
  assert.match(markdown, /\| \\#\d+ fs\\\.write\\_file: denied \\\(approval\\_required\\\) \|/);
  assert.match(
    markdown,
    /--approve '\{"tool":"fs\.write_file","scope":\["write:<workspace>\/README\.md"\]/,
  );
  assert.match(
    markdown,
    /```diff\n--- src\/main\.ts\n\+\+\+ src\/main\.ts\n@@ -1,2 \+1,2 @@\n-\/\/ TODO/,
  );
  // Rendered by a GitHub-flavoured Markdown parser that passes raw HTML through (the near miss:
  // the payloads alone do become tags), the report holds only the tags its renderer writes, and
  // links only into the run folder.
  assert.match(await marked.parse(ALL_PAYLOADS), /<script>|<img /);
  const rendered = await marked.parse(markdown);
  for (const tag of rendered.matchAll(/<\/?([^\s>/]+)([^>]*)>/g)) {
    assert.ok(MARKDOWN_TAGS.has(tag[1] as string), `unexpected tag ${tag[0]}`);
  }
  const hrefs = [...rendered.matchAll(/href="([^"]*)"/g)].map((match) => match[1] as string);
  assert.ok(hrefs.length > 5);
  for (const href of hrefs) {
    assert.match(href, /^[a-z_/]+\.(json|jsonl|md)$|^(artifacts|deliverables)\/[^:]*$/, href);
  }
  assert.ok(rendered.includes(escapeHtml(PAYLOADS.svg)));
});

Deno.test({
  name: "the HTML report renders in headless Chromium with the run's text and runs no script",
  ignore: CHROMIUM === null,
  async fn() {
    const { runDir } = await hostileRun();
    const folder = await Deno.makeTempDir({ prefix: "kagent-report-browser-" });
    try {
      // The near miss: the same payloads, unescaped and without the policy, do run here.
      const control = nodePath.join(folder, "control.html");
      await Deno.writeTextFile(
        control,
        `<!DOCTYPE html><html><head><title>control</title></head><body>${ALL_PAYLOADS}</body></html>`,
      );
      const controlDom = await renderInBrowser(control, folder);
      assert.match(controlDom, /<title>PWNED-[a-z]+<\/title>|data-pwned="close"/);

      const screenshot = nodePath.join(folder, "report.png");
      const dom = await renderInBrowser(nodePath.join(runDir, "report.html"), folder, screenshot);
      const runId = nodePath.basename(runDir);
      assert.match(dom, new RegExp(`<title>kagent-run report ${runId}</title>`));
      assert.doesNotMatch(dom, /PWNED-[a-z]+<\/title>|data-pwned=|<script|<img|<svg/);
      const text = domText(dom);
      const calls = 7 + COMMAND_CALLS.length;
      assert.match(
        text,
        new RegExp(
          `Verified \\d+ events, \\d+ tool records, \\d+ error records, ${calls} calls, \\d+ artifacts, \\d+ sealed files; unsigned`,
        ),
      );
      for (
        const expected of [
          `kagent-run run ${runId}`,
          `Task Survey ${PAYLOADS.script}${PAYLOADS.attribute}`,
          "End reason completed",
          `Tool calls ${calls} (1 denied, ${COMMAND_CALLS.length} failed, 0 skipped)`,
          `model turn 1: ${3 + COMMAND_CALLS.length} call(s)`,
          ...(BUBBLEWRAP.usable
            ? [
              "Commands",
              "cat hostile.txt gone.txt : exit 1",
              "Exit code 1",
              "gone.txt: No such file",
            ]
            : []),
          "fs.write_file denied (approval_required)",
          "ask by rule default:write-ask (layer default)",
          "To allow exactly this call next time, re-run with:",
          `--approve '{"tool":"fs.write_file","scope":["write:<workspace>/README.md"]`,
          "Edits",
          "edited src/main.ts",
          `+// Prints one ${PAYLOADS.closing}`,
          "-// TODO: write the program",
          "whole output (",
          "Deliverables",
          "notes.md",
          HOSTILE_NAME,
          `Final answer Done ${PAYLOADS.image}`,
          PAYLOADS.svg,
          PAYLOADS.link,
        ]
      ) {
        assert.ok(text.includes(expected), `the page does not show: ${expected}`);
      }
      const png = await Deno.readFile(screenshot);
      assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
      assert.ok(png.byteLength > 10_000, `screenshot of ${png.byteLength} bytes`);
    } finally {
      await Deno.remove(folder, { recursive: true });
    }
  },
});

Deno.test("kagent-run report writes elsewhere with links back into the run folder", async () => {
  const { project, runDir } = await hostileRun();
  const html = nodePath.join(project.sandbox.root, "out.html");
  const markdown = nodePath.join(project.sandbox.root, "out.md");
  const result = await runCli(["report", runDir, "--output", html, "--markdown", markdown]);
  assert.equal(result.code, 0, result.stderr);
  const runName = nodePath.basename(runDir);
  const page = await Deno.readTextFile(html);
  assert.match(page, new RegExp(`href="runs/${runName}/artifacts/[0-9a-f]{64}\\.txt"`));
  assert.match(
    await Deno.readTextFile(markdown),
    new RegExp(`\\]\\(runs/${runName}/deliverables/notes\\.md\\)`),
  );
  // Not a run folder: a usage error naming it, nothing written.
  const empty = nodePath.join(project.sandbox.root, "empty");
  await Deno.mkdir(empty);
  const refused = await runCli(["report", empty]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /Cannot read run folder ".*empty": it holds neither run\.json nor events\.jsonl/,
  );
  assert.deepEqual([...Deno.readDirSync(empty)], []);
});

Deno.test("kagent-run report replaces a report path that is a symbolic link and reports child runs", async () => {
  const { project, runDir } = await hostileRun();
  const copy = nodePath.join(project.sandbox.root, "linked");
  await new Deno.Command("cp", { args: ["-r", runDir, copy] }).output();
  await Deno.mkdir(nodePath.join(copy, "agents"));
  await new Deno.Command("cp", { args: ["-r", runDir, nodePath.join(copy, "agents", "sub")] })
    .output();
  // The attack: a run folder whose report.md points at a file of the user's.
  const canary = nodePath.join(project.sandbox.outside, "bashrc");
  await Deno.writeTextFile(canary, "# the user's own file\n");
  await Deno.remove(nodePath.join(copy, "report.md"));
  await Deno.symlink(canary, nodePath.join(copy, "report.md"));
  const result = await runCli(["report", copy]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.readTextFile(canary), "# the user's own file\n");
  // The near miss: the report is written, in place of the link.
  assert.ok((await Deno.lstat(nodePath.join(copy, "report.md"))).isFile);
  assert.match(await Deno.readTextFile(nodePath.join(copy, "report.md")), /^# kagent-run run /);
  // The child run gets its own report, and the parent links to it.
  const child = await Deno.readTextFile(nodePath.join(copy, "agents", "sub", "report.html"));
  assert.match(child, /<title>kagent-run report /);
  const page = await Deno.readTextFile(nodePath.join(copy, "report.html"));
  assert.match(page, /<a href="agents\/sub\/report\.html">sub<\/a>: completed/);
});

Deno.test("a report of a killed run says it is incomplete and names the torn line", async () => {
  const { project, runDir } = await hostileRun();
  // The run folder as a kill -9 leaves it just after the first call started: no seal, no tool
  // record yet, events.jsonl ending in part of a line.
  const copy = nodePath.join(project.sandbox.root, "killed");
  await new Deno.Command("cp", { args: ["-r", runDir, copy] }).output();
  await Deno.remove(nodePath.join(copy, "manifest.json"));
  const lines = (await Deno.readTextFile(nodePath.join(copy, "events.jsonl"))).split("\n");
  const cut = lines.findIndex((line) => line.includes('"type":"tool.started"'));
  await Deno.writeTextFile(
    nodePath.join(copy, "events.jsonl"),
    `${lines.slice(0, cut + 1).join("\n")}\n${(lines[cut + 1] as string).slice(0, 20)}`,
  );
  await Deno.writeTextFile(nodePath.join(copy, "logs/tools.jsonl"), "");
  await Deno.writeTextFile(nodePath.join(copy, "logs/errors.jsonl"), "");
  const written = await writeRunReport(copy);
  const { model } = written;
  assert.equal(model.verdict.status, "incomplete", model.verdict.problems.join("\n"));
  assert.ok(
    model.verdict.problems.some((problem) => problem.startsWith(`events.jsonl:${cut + 2}:`)),
  );
  assert.equal(model.end_reason, null);
  assert.deepEqual(model.problems, [
    `events.jsonl line ${cut + 2}: not JSON (a torn or edited line)`,
  ]);
  const page = await Deno.readTextFile(written.html);
  assert.match(page, /<strong>Incomplete<\/strong>/);
  assert.match(page, /none recorded: no run\.completed \(killed, or still running\)/);
  assert.match(await Deno.readTextFile(written.markdown), /## What could not be read/);
});

/** The shared run's folder, removed when the test module ends. */
let fixtureRoot: string | null = null;
globalThis.addEventListener("unload", () => {
  if (fixtureRoot !== null) Deno.removeSync(fixtureRoot, { recursive: true });
});
