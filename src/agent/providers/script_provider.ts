/**
 * The `script` model provider: replays a plan deterministically from a JSONL file, one assistant
 * turn a line, and records the requests it saw (for tests).
 *
 * A line is either a turn with tool calls or a final message:
 * ```jsonl
 * {"tool_calls": [{"id": "list", "name": "fs.list_files", "arguments": {"path": "."}}]}
 * {"content": "Done: see {{run.deliverables}}/report.md"}
 * ```
 * `arguments` is an object, or a string passed to the runtime as the raw JSON text (to test
 * malformed arguments). `id` defaults to `script-<line>-<index>`; an id the plan repeats is made
 * unique by the loop (`<id>-2`, the plan's id kept in `provider.id`), and a template names the
 * latest call with that id. A malformed plan is refused with the file and the line. String values in object
 * arguments and `content` may use templates filled from the conversation so far:
 * `{{<tool_call_id>.output}}`, `{{<tool_call_id>.summary}}`, `{{<tool_call_id>.data.<key>…}}` (a
 * value inside the result's `data`, e.g. `{{claim.data.step.id}}`), `{{run.id}}`,
 * `{{run.workspace}}`, `{{run.deliverables}}`, `{{run.scratch}}`. An unknown template is an error
 * (the plan is wrong). A child agent's script (`agents.<id>.model`) sees its own conversation, a
 * fork's its parent's too.
 * Blank lines and lines starting with `//` are skipped. A line nested deeper than
 * {@linkcode MAX_PLAN_LINE_DEPTH} levels is refused before it is parsed (object arguments one level
 * deeper than any config accepts still reach the runtime, which answers `invalid_arguments`;
 * deeper arguments go in as a string of raw JSON text).
 *
 * @module
 */

import {
  ModelError,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
} from "../model_provider.ts";
import type { ToolCall } from "../../runtime/mod.ts";
import { MAX_ARGUMENT_DEPTH } from "../../config/base/mod.ts";
import { jsonNestingDepth } from "../../result/mod.ts";

/**
 * Deepest nesting of one plan line: the turn, its `tool_calls`, the call and arguments one level
 * deeper than `MAX_ARGUMENT_DEPTH` (256), so that the runtime, not the plan's loader, refuses
 * arguments past the configured limit. 260.
 */
export const MAX_PLAN_LINE_DEPTH: number = MAX_ARGUMENT_DEPTH + 4;

interface ScriptLine {
  line: number;
  content: string | null;
  tool_calls: { id?: string; name: string; arguments: unknown }[];
}

/** Replays a parsed script. Build with {@linkcode ScriptProvider.fromFile} or {@linkcode ScriptProvider.fromText}. */
export class ScriptProvider implements ModelProvider {
  readonly name = "script";
  /** Every request received, in order (copies), for tests. */
  readonly requests: ModelRequest[] = [];
  readonly #turns: ScriptLine[];
  readonly #source: string;
  #next = 0;

  private constructor(turns: ScriptLine[], source: string) {
    this.#turns = turns;
    this.#source = source;
  }

  /**
   * Reads and parses a script file.
   *
   * @throws {ModelError} `script_invalid` naming the file, line and reason.
   */
  static async fromFile(path: string): Promise<ScriptProvider> {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      throw new ModelError(
        "script_invalid",
        `Cannot read script "${path}": ${(error as Error).message}`,
      );
    }
    return ScriptProvider.fromText(text, path);
  }

  /** Parses script text. @throws {ModelError} `script_invalid`. */
  static fromText(text: string, source = "script"): ScriptProvider {
    const turns: ScriptLine[] = [];
    text.split("\n").forEach((raw, index) => {
      const line = index + 1;
      const trimmed = raw.trim();
      if (trimmed === "" || trimmed.startsWith("//")) return;
      const invalid = (reason: string) =>
        new ModelError(
          "script_invalid",
          `Cannot load script "${source}": line ${line}: ${reason}`,
          { line },
        );
      // Counted on the text first: a line nested 2,000,000 deep is refused in one pass.
      const depth = jsonNestingDepth(trimmed);
      if (depth > MAX_PLAN_LINE_DEPTH) {
        throw invalid(
          `nested ${depth} levels deep, more than the limit of ${MAX_PLAN_LINE_DEPTH} (give ` +
            `deeper arguments as a string of raw JSON text)`,
        );
      }
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch (error) {
        throw invalid(`not JSON (${(error as Error).message})`);
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw invalid("a turn must be a JSON object");
      }
      const record = value as Record<string, unknown>;
      const unknown = Object.keys(record).filter((key) =>
        key !== "content" && key !== "tool_calls"
      );
      if (unknown.length > 0) {
        throw invalid(`"${unknown[0]}" is not a known key (use "content" and "tool_calls")`);
      }
      const content = record.content ?? null;
      if (content !== null && typeof content !== "string") {
        throw invalid(`"content" must be a string`);
      }
      const calls = record.tool_calls ?? [];
      if (!Array.isArray(calls)) throw invalid(`"tool_calls" must be an array`);
      const toolCalls = calls.map((call, callIndex) => {
        if (typeof call !== "object" || call === null) {
          throw invalid(`tool_calls[${callIndex}] must be an object`);
        }
        const { id, name, arguments: args, ...rest } = call as Record<string, unknown>;
        if (Object.keys(rest).length > 0) {
          throw invalid(`tool_calls[${callIndex}]: "${Object.keys(rest)[0]}" is not a known key`);
        }
        if (typeof name !== "string" || name === "") {
          throw invalid(`tool_calls[${callIndex}].name must be a tool name`);
        }
        if (id !== undefined && (typeof id !== "string" || id === "")) {
          throw invalid(`tool_calls[${callIndex}].id must be a non-empty string`);
        }
        if (
          args !== undefined && args !== null && typeof args !== "string" &&
          (typeof args !== "object" || Array.isArray(args))
        ) {
          throw invalid(
            `tool_calls[${callIndex}].arguments must be an object, or a string of raw JSON text`,
          );
        }
        return { ...(id === undefined ? {} : { id }), name, arguments: args ?? {} };
      });
      if (content === null && toolCalls.length === 0) {
        throw invalid(`a turn needs "content" or "tool_calls"`);
      }
      turns.push({ line, content, tool_calls: toolCalls });
    });
    return new ScriptProvider(turns, source);
  }

  /** A plan's names are canonical and its schemas are never sent: nothing to check. */
  checkTools(): string[] {
    return [];
  }

  /**
   * Passes over the plan's first lines, as answered already: a resumed run
   * (`kagent-run resume`) continues the plan where the earlier segments stopped.
   *
   * @param count Lines the earlier segments used (their model answers).
   */
  skip(count: number): void {
    this.#next = Math.min(this.#turns.length, this.#next + count);
  }

  /** Turns not yet replayed. */
  get remaining(): number {
    return this.#turns.length - this.#next;
  }

  complete(request: ModelRequest): Promise<ModelTurn> {
    this.requests.push(structuredClone(request));
    const turn = this.#turns[this.#next];
    if (turn === undefined) {
      const last = this.#turns.at(-1)?.line;
      return Promise.reject(
        new ModelError(
          "script_exhausted",
          `Cannot continue script "${this.#source}": it has no more turns after ${
            last === undefined ? "its start" : `line ${last}`
          } and gave no final message; end it with a {"content": …} line`,
          last === undefined ? {} : { line: last },
        ),
      );
    }
    this.#next += 1;
    try {
      const fill = (text: string) => fillTemplates(text, request, turn.line, this.#source);
      const toolCalls: ToolCall[] = turn.tool_calls.map((call, index) => ({
        id: call.id ?? `script-${turn.line}-${index + 1}`,
        name: call.name,
        arguments: typeof call.arguments === "string"
          ? call.arguments
          : JSON.stringify(mapStrings(call.arguments, fill)),
      }));
      return Promise.resolve({
        text: turn.content === null ? null : fill(turn.content),
        tool_calls: toolCalls,
        usage: null,
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/**
 * A copy of a parsed JSON value with every string passed through `fill`. Iterative (an explicit
 * stack), so arguments nested as deep as JSON.parse accepts cannot overflow the call stack; the
 * runtime's own depth cap then answers `invalid_arguments`.
 */
function mapStrings(value: unknown, fill: (text: string) => string): unknown {
  const copy = (item: unknown, pending: [object, Record<string, unknown>][]): unknown => {
    if (typeof item === "string") return fill(item);
    if (typeof item !== "object" || item === null) return item;
    const target = (Array.isArray(item) ? [] : {}) as Record<string, unknown>;
    pending.push([item, target]);
    return target;
  };
  const pending: [object, Record<string, unknown>][] = [];
  const root = copy(value, pending);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, target] = next;
    for (const [key, item] of Object.entries(source)) {
      // defineProperty: a "__proto__" key from JSON.parse stays an own property.
      Object.defineProperty(target, key, {
        value: copy(item, pending),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root;
}

function fillTemplates(text: string, request: ModelRequest, line: number, source: string): string {
  return fillFields(fillData(text, request, line, source), request, line, source);
}

/**
 * `{{<call id>.data.<key>.<key>…}}`: a value inside that call's result `data` (a string as it is,
 * anything else as JSON), e.g. `{{claim.data.step.id}}`.
 */
function fillData(text: string, request: ModelRequest, line: number, source: string): string {
  return text.replace(
    /\{\{\s*([A-Za-z0-9_.:-]+?)\.data((?:\.[A-Za-z0-9_-]+)+)\s*\}\}/g,
    (whole, subject: string, path: string) => {
      let value: unknown = findToolMessage(request.messages, subject)?.result.data;
      for (const key of path.slice(1).split(".")) {
        value = typeof value === "object" && value !== null && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
      }
      if (value === undefined || value === null) {
        throw new ModelError(
          "script_invalid",
          `Cannot fill "${whole}" in script "${source}" line ${line}: no such value yet`,
        );
      }
      return typeof value === "string" ? value : JSON.stringify(value);
    },
  );
}

function fillFields(text: string, request: ModelRequest, line: number, source: string): string {
  return text.replace(
    /\{\{\s*([A-Za-z0-9_.:-]+?)\.(output|summary|id|workspace|deliverables|scratch)\s*\}\}/g,
    (whole, subject: string, field: string) => {
      if (subject === "run") {
        const run = {
          id: request.run.run_id,
          workspace: request.run.workspace,
          deliverables: request.run.deliverables,
          scratch: request.run.scratch,
        } as Record<string, string>;
        const value = run[field];
        if (value !== undefined) return value;
      } else if (field === "output" || field === "summary") {
        const message = findToolMessage(request.messages, subject);
        if (message !== undefined) {
          return field === "output" ? message.result.output : message.result.summary;
        }
      }
      throw new ModelError(
        "script_invalid",
        `Cannot fill "${whole}" in script "${source}" line ${line}: no such value yet`,
      );
    },
  );
}

/**
 * The result of the latest call the plan named `id`. The loop makes repeated ids unique (`a`,
 * `a-2`) and keeps the plan's id in `provider.id`, so a template names the call it follows.
 */
function findToolMessage(
  messages: ModelMessage[],
  id: string,
): Extract<ModelMessage, { role: "tool" }> | undefined {
  const planIds = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls) planIds.set(call.id, call.provider?.id ?? call.id);
  }
  return messages.findLast((message): message is Extract<ModelMessage, { role: "tool" }> =>
    message.role === "tool" &&
    (message.tool_call_id === id || planIds.get(message.tool_call_id) === id)
  );
}
