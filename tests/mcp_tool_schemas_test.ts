/**
 * MCP tools whose input schemas use `$ref`/`$defs`, nullable unions, a general `oneOf` and a
 * recursive `$ref` (tests/testdata/mcp/schema_server.mjs, run by `node`, unconfined): the ones the
 * subset can express load and are called with their arguments checked; the others are refused with
 * a recorded reason while the server's other tools still load.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/mod.ts";
import { openRunSession } from "../src/session/mod.ts";

const SCHEMA_SERVER = fileURLToPath(new URL("./testdata/mcp/schema_server.mjs", import.meta.url));

/** Why the test cannot run here (no node), or null. */
const nodeProblem = await new Deno.Command("node", { args: ["--version"], stdout: "null" })
  .output().then(() => null, (error) => `node cannot run: ${error}`);
if (nodeProblem !== null) console.log(`Skipping the MCP schema test: ${nodeProblem}`);

Deno.test({
  name: "mcp client loads a tool with $refs and a nullable union and refuses oneOf and a " +
    "recursive $ref with their reasons when a server offers them",
  ignore: nodeProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kagent-mcp-schemas-" });
    try {
      await Deno.writeTextFile(
        nodePath.join(dir, "agent.jsonc"),
        JSON.stringify({
          sandbox: { command_isolation: "none" },
          mcp_servers: { schemas: { command: "node", args: [SCHEMA_SERVER] } },
          permissions: { rules: [{ tools: ["mcp.schemas.*"], decision: "allow" }] },
        }),
      );
      const session = await openRunSession(await loadConfig(nodePath.join(dir, "agent.jsonc")), {});
      try {
        const text = await Deno.readTextFile(nodePath.join(session.folder.dir, "events.jsonl"));
        const started = text.trim().split("\n").map((line) => JSON.parse(line))
          .find((event) => event.type === "mcp_server.started");
        assert.deepEqual(started?.registered, ["mcp.schemas.plot"]);
        const refused = started?.refused as { tool: string; reason: string }[];
        assert.deepEqual(refused.map((entry) => entry.tool), ["assign", "tree"]);
        assert.match(refused[0]?.reason ?? "", /"\/properties\/who": "oneOf" is not supported/);
        assert.match(refused[1]?.reason ?? "", /refers back to itself/);
        assert.equal(session.registry.get("mcp.schemas.assign"), undefined);

        // The inlined schema is what the runtime checks: a point without y is refused before the
        // server sees it; a whole point with a null label reaches it as sent.
        const call = (id: string, args: unknown) =>
          session.runtime.call({ id, name: "mcp.schemas.plot", arguments: JSON.stringify(args) });
        const bad = await call("call_1", { at: { x: 1 } });
        assert.equal(bad.error?.type, "invalid_arguments");
        const good = await call("call_2", { at: { x: 1, y: 2 }, label: null });
        assert.equal(good.ok, true, good.output);
        assert.deepEqual(JSON.parse(good.output), { at: { x: 1, y: 2 }, label: null });
      } finally {
        await session.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
