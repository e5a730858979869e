// Grants for calls that name no target (MCP tools, memory.write_memory) are scoped by their
// arguments (issue 24 §8): the printed grant lets exactly that call through, and the same grant
// does not cover the same tool with other arguments (near miss), never "this tool, any target".
import assert from "node:assert/strict";
import { createProject, runCli } from "./_cli_helpers.ts";

Deno.test("a memory.write_memory grant covers exactly the arguments it was printed for", async () => {
  await using project = await createProject({ config: { memory: { folder: "../memory" } } });
  const call = (content: string, grants: string[] = []) =>
    runCli([
      "call",
      "memory.write_memory",
      JSON.stringify({ content }),
      "--config",
      project.configPath,
      ...grants.flatMap((grant) => ["--approve", grant]),
    ]);
  const asked = await call("Deploys need a ticket");
  assert.equal(asked.code, 3, asked.stdout);
  const result = JSON.parse(asked.stdout);
  const grant = result.error.details.grant;
  assert.equal(grant.tool, "memory.write_memory");
  assert.equal(grant.scope.length, 1);
  assert.match(grant.scope[0], /^arguments:sha256:[0-9a-f]{64}$/);
  // The grant shows no argument.
  assert.doesNotMatch(JSON.stringify(grant), /Deploys/);

  const allowed = await call("Deploys need a ticket", [JSON.stringify(grant)]);
  assert.equal(allowed.code, 0, allowed.stdout);
  // Near miss: the same tool with other arguments still asks.
  const other = await call("Deploys need nothing", [JSON.stringify(grant)]);
  assert.equal(other.code, 3, other.stdout);
  assert.equal(JSON.parse(other.stdout).error.type, "approval_required");
});
