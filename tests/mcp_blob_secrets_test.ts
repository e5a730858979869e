/**
 * Binary content skips redaction, and floods into the audit (issue 23 §6, attacks/CASES.md): an
 * MCP server's `resource.blob`, `image.data` and `audio.data` carrying an `audit.secret_env` value
 * or an echoed bearer header must not be stored as they came; a blob that decodes as UTF-8 is
 * redacted like text, other bytes holding a secret are not stored. Near miss: a real PNG is stored
 * byte for byte. And one call whose server sends 5,000 `notifications/tools/list_changed` makes
 * two events, the first and the total, not 5,000.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/mod.ts";
import { probeBubblewrap } from "../src/exec/mod.ts";
import { openRunSession, type RunSession } from "../src/session/mod.ts";
import { assertRunFolderClean } from "./_run_folder_scan.ts";

const SERVER = fileURLToPath(new URL("./testdata/mcp/blob_server.mjs", import.meta.url));
const SECRET_ENV = "KAGENT_TEST_BLOB_SECRET";
const SECRET = "blob-secret-value-8d21f0c3a7";
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** Why these tests cannot run here (no node; for bwrap, no working bubblewrap), or null. */
async function problem(isolation: "bwrap" | "none"): Promise<string | null> {
  try {
    await new Deno.Command("node", { args: ["--version"], stdout: "null" }).output();
  } catch (error) {
    return `node cannot run: ${error}`;
  }
  if (isolation === "none") return null;
  const bubblewrap = await probeBubblewrap("/usr/bin/bwrap");
  return bubblewrap.usable ? null : bubblewrap.reason;
}
const problems = {
  bwrap: await problem("bwrap"),
  none: await problem("none"),
};

async function openBlobRun(
  isolation: "bwrap" | "none",
): Promise<{ session: RunSession; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "kagent-mcp-blobs-" });
  await Deno.copyFile(SERVER, nodePath.join(dir, "blob_server.mjs"));
  await Deno.writeTextFile(
    nodePath.join(dir, "agent.jsonc"),
    JSON.stringify({
      sandbox: { command_isolation: isolation },
      audit: { secret_env: [SECRET_ENV] },
      mcp_servers: {
        blobs: {
          command: "node",
          args: ["blob_server.mjs"],
          env: { BLOB_SECRET: `\${${SECRET_ENV}}` },
        },
      },
      permissions: { rules: [{ id: "mcp-allowed", tools: ["mcp.*"], decision: "allow" }] },
    }),
  );
  const config = await loadConfig(nodePath.join(dir, "agent.jsonc"));
  const env = (name: string) => name === SECRET_ENV ? SECRET : Deno.env.get(name);
  return { session: await openRunSession(config, { env }), dir };
}

async function events(session: RunSession): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(nodePath.join(session.folder.dir, "events.jsonl"));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

for (const isolation of ["bwrap", "none"] as const) {
  Deno.test({
    name:
      `MCP blobs holding a secret are stored redacted or not at all, and a real PNG byte for byte (${isolation})`,
    ignore: problems[isolation] !== null,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const { session, dir } = await openBlobRun(isolation);
      try {
        const result = await session.runtime.call({
          id: "call_blobs",
          name: "mcp.blobs.blobs",
          arguments: "{}",
        });
        assert.equal(result.ok, true, JSON.stringify(result.error));
        assert.ok(!JSON.stringify(result).includes(SECRET), "the result shows the secret");
        // Three text blobs, stored redacted; the binary one with the secret withheld; the PNG.
        assert.equal(result.artifacts.length, 4, JSON.stringify(result.artifacts));
        const stored = await Promise.all(
          result.artifacts.map((artifact) =>
            Deno.readFile(nodePath.join(session.folder.dir, artifact.ref))
          ),
        );
        const texts = stored.slice(0, 3).map((bytes) => new TextDecoder().decode(bytes));
        assert.equal(texts[0], "token=[REDACTED:secret_env]\n");
        assert.equal(texts[1], "not really an image: [REDACTED:secret_env]");
        assert.match(
          texts[2] ?? "",
          /Authorization: Bearer \[REDACTED:(secret_env|bearer_token)\]/,
        );
        assert.match(
          result.output,
          /\[image, image\/png, \d+ bytes, sha256 [0-9a-f]{64}: not stored: its bytes hold a secret\]/,
        );
        // Near miss: the real PNG is stored as it came, with its type and hash.
        const png = Uint8Array.from(atob(PNG), (character) => character.charCodeAt(0));
        const last = result.artifacts[3];
        assert.deepEqual(stored[3], png);
        assert.equal(last?.media_type, "image/png");
        assert.equal(last?.sha256, createHash("sha256").update(png).digest("hex"));
        await session.close();
        await assertRunFolderClean(session.folder.dir, [SECRET]);
      } finally {
        await session.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "5,000 tools/list_changed from one call make two events, the first and the total",
  ignore: problems.none !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { session, dir } = await openBlobRun("none");
    try {
      const result = await session.runtime.call({
        id: "call_flood",
        name: "mcp.blobs.flood",
        arguments: JSON.stringify({ count: 5000 }),
      });
      assert.equal(result.ok, true, JSON.stringify(result.error));
      await session.close();
      const changed = (await events(session)).filter((event) =>
        event.type === "mcp_server.tools_changed"
      );
      assert.deepEqual(
        changed.map((event) => [event.server, event.count]),
        [["blobs", 1], ["blobs", 5000]],
      );
    } finally {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
