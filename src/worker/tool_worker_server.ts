/**
 * The Worker side of the tool sandbox: receives calls, runs handlers, answers outcomes. Handlers
 * run here under the Worker's computed Deno permissions; anything they try beyond them fails with
 * `NotCapable`, reported as `sandbox_violation`.
 *
 * @module
 */

import { PathGuard } from "../sandbox/mod.ts";
import { isNotCapable } from "../sandbox/mod.ts";
import type { HostMessage, InitMessage, WorkerMessage } from "./worker_protocol.ts";
import type {
  ExecContext,
  FileToolSettings,
  RunLocations,
  SearchCandidates,
  ToolContext,
  ToolDefinition,
} from "../tools/mod.ts";
import { failure, type ToolOutcome, toOutcome } from "../result/mod.ts";
import { MessageFetchClient } from "../network/mod.ts";
import { builtinTools, toolSet } from "../toolsets/mod.ts";

/** The global scope of a module Worker, as far as this module needs it. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<HostMessage>) => void) | null;
  postMessage(message: WorkerMessage): void;
}

/**
 * Serves the run's tool set in the current Worker. Call once from the Worker's entry module. The
 * set is built by `toolSet` from the init message, as the main thread built its registry.
 *
 * @param base The tools every run has (the main thread's `SessionOptions.tools`). @default
 *   builtinTools()
 * @param extend Further tools built from the init message (tests serve extra tools).
 *   `network.fetch` is the only way out of the Worker: it asks the main thread, which sends the
 *   request through the network gateway when the host is an allowed memory host.
 */
export function serveTools(
  base: readonly ToolDefinition[] = builtinTools(),
  extend: (
    init: InitMessage,
    network: { fetch: typeof fetch },
  ) => readonly ToolDefinition[] = () => [],
): void {
  const scope = globalThis as unknown as WorkerScope;
  const network = new MessageFetchClient((message) => scope.postMessage(message));
  const byName = new Map<string, ToolDefinition>();
  const running = new Map<number, AbortController>();
  /** Calls waiting for ripgrep's answer from the main thread. */
  const searches = new Map<number, (candidates: SearchCandidates | null) => void>();
  let guard: PathGuard | null = null;
  let run: RunLocations | null = null;
  let exec: ExecContext | null = null;
  let files: FileToolSettings | null = null;

  scope.onmessage = (event) => {
    const message = event.data;
    if (message.type === "init") {
      try {
        guard = PathGuard.fromCanonical(message.guard);
        run = message.run;
        exec = message.exec;
        files = message.files ?? null;
        const fetch = network.fetchFor("memory");
        const tools = [
          ...toolSet(message, base, { env: readEnvironment, fetch }),
          ...extend(message, { fetch }),
        ];
        for (const tool of tools) {
          if (!byName.has(tool.name)) byName.set(tool.name, tool);
        }
        scope.postMessage({ type: "ready", tools: [...byName.keys()] });
      } catch (error) {
        scope.postMessage({ type: "init_failed", message: String(error) });
      }
      return;
    }
    if (message.type === "abort") {
      running.get(message.id)?.abort(message.reason);
      return;
    }
    if (message.type === "search_candidates") {
      searches.get(message.id)?.(message.candidates);
      searches.delete(message.id);
      return;
    }
    if (
      message.type === "fetch_response" || message.type === "fetch_error" ||
      message.type === "fetch_head" || message.type === "fetch_chunk" ||
      message.type === "fetch_end"
    ) {
      network.receive(message);
      return;
    }
    const controller = new AbortController();
    running.set(message.id, controller);
    let candidates: Promise<SearchCandidates | null> | undefined;
    if (message.awaits_search_candidates === true) {
      candidates = new Promise((resolve) => searches.set(message.id, resolve));
    }
    execute(message.tool, message.arguments, message.tool_call_id, controller.signal, candidates)
      .then((outcome) => scope.postMessage({ type: "result", id: message.id, outcome }))
      .finally(() => {
        running.delete(message.id);
        searches.get(message.id)?.(null);
        searches.delete(message.id);
      });
  };

  async function execute(
    name: string,
    args: Record<string, unknown>,
    toolCallId: string,
    signal: AbortSignal,
    searchCandidates: Promise<SearchCandidates | null> | undefined,
  ): Promise<ToolOutcome> {
    const tool = byName.get(name);
    if (tool === undefined || guard === null || run === null) {
      return failure(
        "internal_error",
        `Cannot run tool "${name}": the tool Worker does not serve it`,
      );
    }
    const context: ToolContext = {
      guard,
      workspace: guard.workspace,
      run,
      tool_call_id: toolCallId,
      signal,
      ...(exec === null ? {} : { exec }),
      ...(files === null ? {} : { files }),
      ...(searchCandidates === undefined ? {} : { search_candidates: searchCandidates }),
    };
    try {
      return toOutcome(name, await tool.handler(args, context));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (isNotCapable(error)) {
        return failure(
          "sandbox_violation",
          `Cannot run tool "${name}": Deno's permissions stopped it (${reason})`,
          {
            layer: "deno",
          },
        );
      }
      return failure("internal_error", `Cannot run tool "${name}": the handler failed (${reason})`);
    }
  }
}

/** Reads a variable the Worker may read (the memory service's token); undefined otherwise. */
function readEnvironment(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
