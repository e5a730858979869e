// The published JSON Schemas in docs/ stay true to the zod schemas (regenerate: deno task schemas).
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { parse } from "jsonc-parser";
import { schemaFiles } from "../tools/write_schemas.ts";

const root = new URL("../", import.meta.url);

Deno.test("docs/*.schema.json match the config and permissions schemas of the code", async () => {
  for (const [path, text] of Object.entries(schemaFiles())) {
    assert.equal(
      await Deno.readTextFile(new URL(path, root)),
      text,
      `${path} is stale: run "deno task schemas"`,
    );
  }
});

Deno.test("the shipped agent.jsonc and permissions.json validate against the published schemas", async () => {
  const ajv = new Ajv({ strict: false });
  const config = parse(await Deno.readTextFile(new URL("agent.jsonc", root)));
  const configSchema = JSON.parse(
    await Deno.readTextFile(new URL("docs/config.schema.json", root)),
  );
  assert.equal(ajv.validate(configSchema, config), true, JSON.stringify(ajv.errors));
  const permissions = JSON.parse(await Deno.readTextFile(new URL("permissions.json", root)));
  const permissionsSchema = JSON.parse(
    await Deno.readTextFile(new URL("docs/permissions.schema.json", root)),
  );
  assert.equal(ajv.validate(permissionsSchema, permissions), true, JSON.stringify(ajv.errors));
  assert.equal(
    ajv.validate(permissionsSchema, { rules: [{ tools: "fs.*", decision: "allow" }] }),
    false,
  );
});

Deno.test("the config schema accepts a pasted mcpServers block as mcp_servers, and refuses both keys at once", async () => {
  const ajv = new Ajv({ strict: false });
  const schema = JSON.parse(await Deno.readTextFile(new URL("docs/config.schema.json", root)));
  const servers = {
    everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
  };
  assert.equal(ajv.validate(schema, { mcpServers: servers }), true, JSON.stringify(ajv.errors));
  assert.equal(ajv.validate(schema, { mcp_servers: servers }), true, JSON.stringify(ajv.errors));
  assert.equal(ajv.validate(schema, { mcp_servers: servers, mcpServers: servers }), false);
  // Near miss: another unknown key is still refused.
  assert.equal(ajv.validate(schema, { mcpservers: servers }), false);
});
