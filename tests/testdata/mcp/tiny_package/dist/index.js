// A tiny MCP server over stdio (JSON-RPC, one message a line) that needs a module beside it.
const greeting = require("../lib/greeting.js");
const readline = require("node:readline");
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  if (request.method === "initialize") {
    send({ jsonrpc: "2.0", id: request.id, result: {
      protocolVersion: request.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "tiny-mcp", version: "1.0.0" },
    } });
  } else if (request.method === "tools/list") {
    send({ jsonrpc: "2.0", id: request.id, result: { tools: [{
      name: "greet",
      description: "Greets someone",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    }] } });
  } else if (request.method === "tools/call") {
    send({ jsonrpc: "2.0", id: request.id, result: {
      content: [{ type: "text", text: greeting(request.params.arguments.name) }],
    } });
  } else {
    send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "unknown method" } });
  }
});
