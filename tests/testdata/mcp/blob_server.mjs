// A minimal stdio MCP server (newline-delimited JSON-RPC, no dependencies) whose answers carry
// secrets where redaction of text does not look: in `resource.blob`, `image.data` and
// `audio.data` (issue 23 §6). Its environment holds BLOB_SECRET; its tools:
// - "blobs": a text/plain resource blob holding the secret, an "image" whose bytes are text holding
//   it, an "audio" block echoing a bearer header, a PNG with the secret inside its bytes, a real
//   PNG (the near miss, stored byte for byte);
// - "flood": sends `notifications/tools/list_changed` `count` times, then answers.
import * as readline from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const secret = process.env.BLOB_SECRET ?? "";
const base64 = (text) => Buffer.from(text, "utf8").toString("base64");
/** A real 1×1 PNG. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const pngWithSecret = Buffer.concat([
  Buffer.from(PNG, "base64"),
  Buffer.from([0, 0xff, 0xfe]),
  Buffer.from(`tEXtComment ${secret}`, "latin1"),
]).toString("base64");

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
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "blobs", version: "1.0.0" },
      },
    });
  } else if (request.method === "tools/list") {
    const schema = { type: "object", properties: { count: { type: "integer" } } };
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        tools: [
          { name: "blobs", description: "Answers with blobs.", inputSchema: schema },
          { name: "flood", description: "Says its tools changed, often.", inputSchema: schema },
        ],
      },
    });
  } else if (request.method === "tools/call" && request.params.name === "flood") {
    const count = request.params.arguments?.count ?? 5000;
    for (let index = 0; index < count; index++) {
      send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    }
    send({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: "ok" }] } });
  } else if (request.method === "tools/call") {
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        content: [
          { type: "text", text: "five blocks" },
          {
            type: "resource",
            resource: { uri: "file:///notes.txt", mimeType: "text/plain", blob: base64(`token=${secret}\n`) },
          },
          { type: "image", mimeType: "image/png", data: base64(`not really an image: ${secret}`) },
          {
            type: "audio",
            mimeType: "audio/wav",
            data: base64(`echo: Authorization: Bearer ${secret}-bearer-part\n`),
          },
          { type: "image", mimeType: "image/png", data: pngWithSecret },
          { type: "image", mimeType: "image/png", data: PNG },
        ],
      },
    });
  } else {
    send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "no such method" } });
  }
});
