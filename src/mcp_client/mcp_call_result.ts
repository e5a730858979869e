/**
 * An MCP `tools/call` result as a {@linkcode ToolOutcome}: text content becomes the output; images,
 * audio, embedded resources and resource links become artifacts with their sha256 (never inlined
 * blobs), each named by a line of the output; `structuredContent` becomes `data`; `isError` a
 * failed outcome of type `tool_error`.
 *
 * Every stored text is redacted (issue 23 §6): a blob (`image.data`, `audio.data`,
 * `resource.blob`) whose bytes decode as UTF-8 is text, whatever its declared type, and is stored
 * redacted; other bytes are stored as they came with their type and sha256, unless the run's
 * redactor finds a secret in them read as single-byte text: then they are not stored at all, and
 * the output line says so.
 *
 * @module
 */

import { type ArtifactStore, type Redactor, sha256Hex } from "../audit/mod.ts";
import { type ArtifactRef, failure, type ToolOutcome } from "../result/mod.ts";

/** One content block as the server sent it (checked loosely: servers are untrusted). */
type Block = Record<string, unknown>;

/** What converting a result needs: where artifacts go, and the run's redactor for stored text. */
export interface McpResultStores {
  artifacts: ArtifactStore;
  redactor: Redactor;
}

/**
 * Converts one call result.
 *
 * @param toolName The canonical name, for summaries and messages.
 * @param result The `tools/call` result (`content`, `structuredContent`, `isError`).
 * @param stores Where artifacts go.
 * @throws {AuditWriteError} when an artifact cannot be stored.
 * @example
 * ```ts ignore
 * const outcome = await mcpCallOutcome("mcp.demo.echo", { content: [{ type: "text", text: "hi" }] }, stores);
 * ```
 */
export async function mcpCallOutcome(
  toolName: string,
  result: Record<string, unknown>,
  stores: McpResultStores,
): Promise<ToolOutcome> {
  const content = Array.isArray(result.content) ? result.content as unknown[] : [];
  const lines: string[] = [];
  const artifacts: ArtifactRef[] = [];
  const keep = async (bytes: string | Uint8Array, mediaType: string, what: string) => {
    const stored = await stores.artifacts.store(bytes, mediaType);
    artifacts.push({
      ref: stored.ref,
      sha256: stored.sha256,
      bytes: stored.bytes,
      media_type: stored.media_type,
    });
    lines.push(`[${what}, ${mediaType}, ${stored.bytes} bytes: ${stored.ref}]`);
  };
  const keepBlob = async (base64: string, mediaType: string, what: string) => {
    const bytes = decodeBase64(base64);
    const text = bytes === null ? base64 : utf8Text(bytes);
    if (text !== null) return await keep(stores.redactor.redactText(text), mediaType, what);
    const binary = bytes as Uint8Array;
    if (stores.redactor.spans(singleByteText(binary)).length === 0) {
      return await keep(binary, mediaType, what);
    }
    const digest = sha256Hex(binary);
    lines.push(
      `[${what}, ${mediaType}, ${binary.length} bytes, sha256 ${digest}: not stored: ` +
        `its bytes hold a secret]`,
    );
  };
  for (const item of content) {
    if (typeof item !== "object" || item === null) continue;
    const block = item as Block;
    if (block.type === "text" && typeof block.text === "string") lines.push(block.text);
    else if ((block.type === "image" || block.type === "audio") && typeof block.data === "string") {
      await keepBlob(block.data, mediaTypeOf(block.mimeType), block.type);
    } else if (block.type === "resource" && typeof block.resource === "object") {
      const resource = (block.resource ?? {}) as Block;
      const uri = String(resource.uri ?? "");
      if (typeof resource.text === "string") {
        await keep(
          stores.redactor.redactText(resource.text),
          mediaTypeOf(resource.mimeType, "text/plain; charset=utf-8"),
          `resource ${uri}`,
        );
      } else if (typeof resource.blob === "string") {
        await keepBlob(resource.blob, mediaTypeOf(resource.mimeType), `resource ${uri}`);
      }
    } else if (block.type === "resource_link") {
      await keep(
        stores.redactor.redactText(JSON.stringify(block)),
        "application/json",
        `resource link ${String(block.uri ?? "")}`,
      );
    }
  }
  const output = lines.join("\n");
  const data = typeof result.structuredContent === "object" ? result.structuredContent : null;
  if (result.isError === true) {
    const first = output.split("\n", 1)[0]?.slice(0, 200) ?? "";
    const outcome = failure(
      "tool_error",
      `Cannot complete "${toolName}": the MCP server answered with an error: ${first}`,
      { mcp_is_error: true },
    );
    return { ...outcome, output: output === "" ? outcome.output : output, artifacts };
  }
  const firstLine = output.split("\n", 1)[0] ?? "";
  return {
    ok: true,
    summary: firstLine === "" ? `${toolName} completed` : firstLine.slice(0, 200),
    output,
    data: data ?? null,
    error: null,
    artifacts,
  };
}

/** A declared media type, when it looks like one. */
function mediaTypeOf(value: unknown, fallback = "application/octet-stream"): string {
  return typeof value === "string" && /^[\w.+-]+\/[\w.+-]+/.test(value) ? value : fallback;
}

/** Base64 to bytes; null for a malformed payload (then kept as its text, redacted). */
function decodeBase64(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
  } catch {
    return null;
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The bytes as text when they are UTF-8 (a text blob, whatever its declared type), else null. */
function utf8Text(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Each byte as one character, so that ASCII secrets inside binary bytes can be found. */
function singleByteText(bytes: Uint8Array): string {
  let text = "";
  for (let start = 0; start < bytes.length; start += 8192) {
    text += String.fromCharCode(...bytes.subarray(start, start + 8192));
  }
  return text;
}
