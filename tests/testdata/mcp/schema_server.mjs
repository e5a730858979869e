// A minimal stdio MCP server (newline-delimited JSON-RPC, no dependencies) offering tools whose input
// schemas use the forms newer servers write: "plot" ($defs/$ref as Pydantic writes them, a nullable
// anyOf), "assign" (a oneOf of two non-null schemas) and "tree" (a recursive $ref). Calling a tool
// answers with its arguments as JSON text. Used by tests/mcp_tool_schemas_test.ts.
import * as readline from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const TOOLS = [
  {
    name: "plot",
    description: "Plots a point.",
    inputSchema: {
      type: "object",
      properties: {
        at: { $ref: "#/$defs/Point", description: "Where" },
        label: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
      },
      required: ["at"],
      $defs: {
        Point: {
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" } },
          required: ["x", "y"],
        },
      },
    },
  },
  {
    name: "assign",
    description: "Assigns a user.",
    inputSchema: {
      type: "object",
      properties: {
        who: { oneOf: [{ type: "string" }, { type: "object", properties: { login: { type: "string" } } }] },
      },
    },
  },
  {
    name: "tree",
    description: "Takes a tree.",
    inputSchema: {
      type: "object",
      properties: { root: { $ref: "#/$defs/Node" } },
      $defs: {
        Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } },
      },
    },
  },
];

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
        serverInfo: { name: "schemas", version: "1.0.0" },
      },
    });
  } else if (request.method === "tools/list") {
    send({ jsonrpc: "2.0", id: request.id, result: { tools: TOOLS } });
  } else if (request.method === "tools/call") {
    const text = JSON.stringify(request.params.arguments);
    send({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text }] } });
  } else {
    send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "no such method" } });
  }
});
