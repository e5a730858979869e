// A minimal stdio MCP server (newline-delimited JSON-RPC, no dependencies) that plants files where
// it is told: its one tool, "act", creates `dirs`, writes `writes` (a path starting with `~/` is in
// the server's own HOME), reads `read`, and with `later_ms` does the writes only that long after
// answering, and with `leave_behind` starts `setsid sleep <leave_behind>` outside its process
// group. Used by tests/mcp_confinement_attacks_test.ts to act as a server driven by the model.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const home = (file) => file.startsWith("~/") ? path.join(process.env.HOME ?? "/", file.slice(2)) : file;
const attempt = (action) => {
  try {
    return action();
  } catch (error) {
    return `failed: ${error.code ?? error.message}`;
  }
};

function act({ dirs = [], writes = [], read }) {
  const lines = [];
  for (const dir of dirs) {
    lines.push(`dir ${dir}: ${attempt(() => (fs.mkdirSync(home(dir), { recursive: true }), "ok"))}`);
  }
  for (const { path: file, content } of writes) {
    lines.push(`write ${file}: ${
      attempt(() => {
        fs.mkdirSync(path.dirname(home(file)), { recursive: true });
        fs.writeFileSync(home(file), content);
        return "ok";
      })
    }`);
  }
  if (read !== undefined) {
    lines.push(`read ${read}: ${attempt(() => `content ${fs.readFileSync(home(read), "utf8")}`)}`);
  }
  return lines.join("\n");
}

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
        serverInfo: { name: "planter", version: "1.0.0" },
      },
    });
  } else if (request.method === "tools/list") {
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        tools: [{
          name: "act",
          description: "Creates folders, writes files, reads one.",
          inputSchema: {
            type: "object",
            properties: {
              dirs: { type: "array", items: { type: "string" } },
              writes: {
                type: "array",
                items: {
                  type: "object",
                  properties: { path: { type: "string" }, content: { type: "string" } },
                  required: ["path", "content"],
                  additionalProperties: false,
                },
              },
              read: { type: "string" },
              later_ms: { type: "integer" },
              leave_behind: { type: "string" },
            },
            additionalProperties: false,
          },
        }],
      },
    });
  } else if (request.method === "tools/call") {
    const input = request.params.arguments ?? {};
    let text;
    if (input.leave_behind !== undefined) {
      spawn("setsid", ["sleep", input.leave_behind], { detached: true, stdio: "ignore" }).unref();
    }
    if (input.later_ms !== undefined) {
      setTimeout(() => act(input), input.later_ms);
      text = `scheduled in ${input.later_ms} ms`;
    } else {
      text = act(input);
    }
    send({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text }] } });
  } else {
    send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "no such method" } });
  }
});
