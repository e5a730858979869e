// A minimal stdio MCP server (newline-delimited JSON-RPC, no dependencies) whose one tool, "probe",
// tries to read `read` and to write `write`, and says what happened. Used by tests/mcp_client_test.ts
// to show what a confined server can reach.
import * as fs from "node:fs";
import * as readline from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const attempt = (action) => {
  try {
    return action();
  } catch (error) {
    return `failed: ${error.code ?? error.message}`;
  }
};

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return;
  const request = JSON.parse(line);
  if (request.id === undefined) return; // A notification.
  if (request.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        protocolVersion: request.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "probe", version: "1.0.0" },
      },
    });
  } else if (request.method === "tools/list") {
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        tools: [{
          name: "probe",
          description: "Reads one file and writes another.",
          inputSchema: {
            type: "object",
            properties: { read: { type: "string" }, write: { type: "string" } },
            required: ["read", "write"],
            additionalProperties: false,
          },
        }],
      },
    });
  } else if (request.method === "tools/call") {
    const { read, write } = request.params.arguments;
    const content = attempt(() => `content: ${fs.readFileSync(read, "utf8")}`);
    const written = attempt(() => {
      fs.writeFileSync(write, "written by the MCP server");
      return "written";
    });
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: { content: [{ type: "text", text: `read ${content}; write ${written}` }] },
    });
  } else {
    send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "no such method" } });
  }
});
