/**
 * Workflow commands from a server's stderr (issue 23 §6, attacks/CASES.md): a required MCP server
 * that fails at start-up has its last error output in the error kagent-run prints. Under GitHub
 * Actions a line of it that starts with `::` would be run by the runner (`::add-mask::`,
 * `::error`, `::stop-commands::`), so the output goes through the escaping every terminal and CI
 * output uses: no CR, no LF, no escape sequence, the server's secret redacted. Near miss: the
 * error still names the server and shows what it wrote, on one line.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { errorOutputText } from "../src/mcp_client/mcp_server_connection.ts";
import { createProject, runCli } from "./_cli_helpers.ts";
import { assertRunFolderClean } from "./_run_folder_scan.ts";

const SERVER = fileURLToPath(
  new URL("./testdata/mcp/workflow_commands_server.sh", import.meta.url),
);
const TOKEN = "mcp-bearer-token-5e2a9c71d04b";
const PLANTED = [/^\s*::add-mask::kagent\b/, /^\s*::stop-commands::/, /^\s*::error file=planted/];

Deno.test("a required MCP server's start-up output reaches the CI log with no workflow command, CR or secret", async () => {
  await using project = await createProject({
    plan: [JSON.stringify({ content: "done" })],
    config: {
      mcp_servers: {
        planted: {
          command: SERVER,
          env: { MCP_TOKEN: "${KAGENT_TEST_MCP_TOKEN}" },
          startup_timeout_ms: 20_000,
        },
      },
    },
  });
  const { code, stdout, stderr } = await runCli(
    ["run", "--config", project.configPath, "--non-interactive"],
    { env: { GITHUB_ACTIONS: "true", KAGENT_TEST_MCP_TOKEN: TOKEN } },
  );
  const printed = stdout + stderr;
  assert.equal(code, 2, printed);
  assert.ok(!printed.includes("\r"), "no carriage return is printed");
  assert.ok(!printed.includes("\u001b"), "no escape sequence is printed");
  for (const line of printed.split("\n")) {
    for (const planted of PLANTED) assert.doesNotMatch(line, planted);
  }
  assert.ok(!printed.includes(TOKEN), "the server's secret is redacted");
  // Near miss: the error names the server and shows its output, escaped, on one line.
  const error = printed.split("\n").find((line) =>
    line.includes('Cannot start MCP server "planted"')
  );
  assert.ok(error !== undefined, printed);
  assert.ok(
    error.includes(
      "::add-mask::kagent Bearer [REDACTED:secret_env] | ::stop-commands::kagent-stop | " +
        "::error file=planted.ts::planted \\u001b[2Kcleared",
    ),
    error,
  );
  // The run folder, if one was made, holds the same text and no secret.
  try {
    for (const entry of Deno.readDirSync(project.runsDir)) {
      await assertRunFolderClean(nodePath.join(project.runsDir, entry.name), [TOKEN, "\\r"]);
    }
  } catch (caught) {
    if (!(caught instanceof Deno.errors.NotFound)) throw caught;
  }
});

Deno.test("errorOutputText keeps the last lines on one line, each escaped and redacted", () => {
  const tail = "first\nsecond\r\n\u001b[31mred\u001b[0m\r::add-mask::x\n\n";
  assert.equal(
    errorOutputText(tail, (line) => line.replace("x", "[REDACTED]")),
    "second | \\u001b[31mred\\u001b[0m | ::add-mask::[REDACTED]",
  );
  // Near miss: ordinary output comes through as it was written.
  assert.equal(
    errorOutputText("Error: port 8080 in use\n", (line) => line),
    "Error: port 8080 in use",
  );
});
