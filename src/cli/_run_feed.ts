/**
 * Following a run while it goes: a progress line per model turn on stderr (model, tokens, time),
 * the progress lines inside a `::group::`/`::endgroup::` under GitHub Actions, and the
 * `--output stream-json` lines on stdout. Everything is made from the run's `events.jsonl` records
 * (`AuditRecorder.observeEvents`), redacted, plus the time each model answer took.
 *
 * @module
 */

import type { ModelProvider } from "../agent/mod.ts";
import { terminalSafe } from "../approval/mod.ts";
import type { AuditRecorder, Redactor } from "../audit/mod.ts";
import type { RunSummary } from "../report/mod.ts";
import type { CommandIo } from "./_common.ts";
import type { Paint, Tone } from "./_colour.ts";
import { briefOf, type ToolResult } from "../result/mod.ts";
import { eventTypeOf } from "../runtime/mod.ts";
import { formatStreamLine, runEndedLine, streamLineOf } from "./_stream_json.ts";
import type { OutputFormat } from "./_run_options.ts";

/** What a {@linkcode RunFeed} prints and where. */
export interface RunFeedOptions {
  io: CommandIo;
  paint: Paint;
  /** The run's redactor: the progress lines and `run.ended` pass through it. */
  redactor: Redactor;
  /** `--quiet`: no progress lines (and no group around them). */
  quiet: boolean;
  output: OutputFormat;
  /** The run's model name (after `--model`); null for the script provider. */
  model: string | null;
}

/**
 * Follows one run: {@linkcode RunFeed.provider} times each model answer, {@linkcode RunFeed.begin}
 * opens the group and starts observing the recorder, {@linkcode RunFeed.endProgress} closes the
 * group, {@linkcode RunFeed.end} prints the stream's last line. Printing never throws into the run.
 */
export class RunFeed {
  readonly #options: RunFeedOptions;
  readonly #durations: number[] = [];
  #grouped = false;

  /** @param options See {@linkcode RunFeedOptions}. */
  constructor(options: RunFeedOptions) {
    this.#options = options;
  }

  /** Whether GitHub Actions groups the progress lines (`GITHUB_ACTIONS=true`, not `--quiet`). */
  get #github(): boolean {
    return this.#options.io.env("GITHUB_ACTIONS") === "true" && !this.#options.quiet;
  }

  /** `provider`, with the time of each successful answer noted for the turn's lines. */
  provider(provider: ModelProvider): ModelProvider {
    const durations = this.#durations;
    return {
      name: provider.name,
      checkTools: (tools) => provider.checkTools(tools),
      async complete(request, signal) {
        const started = performance.now();
        const turn = await provider.complete(request, signal);
        durations.push(Math.round(performance.now() - started));
        return turn;
      },
    };
  }

  /**
   * Opens the progress group, prints the stream's `run.started` line (the run's own record from
   * `events.jsonl`) and follows the recorder's events from here on.
   *
   * @param recorder The run's recorder.
   * @param eventsPath The run's `events.jsonl`, read once for its `run.started` record.
   */
  async begin(recorder: AuditRecorder, eventsPath: string): Promise<void> {
    if (this.#github) {
      this.#stderr("::group::kagent-run progress\n");
      this.#grouped = true;
    }
    const context = {
      model: this.#options.model,
      takeTurnDuration: () => this.#durations.shift() ?? null,
    };
    if (this.#options.output === "stream-json") {
      const started = await runStartedRecord(eventsPath);
      const line = started === null ? null : streamLineOf(started, context);
      if (line !== null) this.#stdout(recordLine(line));
    }
    recorder.observeEvents((record) => {
      const line = streamLineOf(record, context);
      if (line === null) return;
      if (line.type === "model.responded" && !this.#options.quiet) {
        this.#stderr(this.#turnLine(line));
      }
      if (this.#options.output === "stream-json") {
        this.#stdout(recordLine(line));
      }
    });
  }

  /** Closes the progress group (once; nothing when none is open). */
  endProgress(): void {
    if (!this.#grouped) return;
    this.#grouped = false;
    this.#stderr("::endgroup::\n");
  }

  /**
   * Prints the stream's `run.ended` line (with `--output stream-json`), made from the sealed
   * run's summary and redacted with `redactor` (the run's, which knows every secret of the run).
   */
  end(summary: RunSummary, redactor: Redactor = this.#options.redactor): void {
    this.endProgress();
    if (this.#options.output !== "stream-json") return;
    this.#stdout(formatStreamLine(runEndedLine(summary, redactor), redactor));
  }

  /** `  turn 2 gpt-5.4-mini: 1200 in + 85 out tokens, 0.84 s, 1 tool call` */
  #turnLine(line: Record<string, unknown>): string {
    const usage = line.usage as { input_tokens: number; output_tokens: number } | null;
    const calls = (line.tool_calls as unknown[]).length;
    const duration = line.duration_ms as number | null;
    const firstToken = line.first_token_ms as number | undefined;
    const parts = [
      usage === null
        ? "tokens not reported"
        : `${usage.input_tokens} in + ${usage.output_tokens} out tokens`,
      ...(duration === null ? [] : [`${(duration / 1000).toFixed(2)} s`]),
      ...(firstToken === undefined ? [] : [`first token ${(firstToken / 1000).toFixed(2)} s`]),
      `${calls} tool call${calls === 1 ? "" : "s"}`,
    ];
    const model = this.#options.model ?? String(line.provider);
    return this.#options.redactor.redactText(
      `  ${this.#options.paint("dim", `turn ${line.turn}`)} ${model}: ${parts.join(", ")}\n`,
    );
  }

  #stderr(text: string): void {
    try {
      this.#options.io.stderr(text);
    } catch {
      // Progress is best effort: a closed stderr must not stop the run.
    }
  }

  #stdout(text: string): void {
    try {
      this.#options.io.stdout(text);
    } catch {
      // As above, for a closed stdout.
    }
  }
}

/**
 * A stream line made from an `events.jsonl` record: serialised as it is. The record was redacted by
 * the run's recorder, whose secrets include every value the CLI's redactor knows (and the MCP
 * servers' header values), so a second pass would find nothing and double the cost of each event
 * (bench/stream_json_bench.ts).
 */
function recordLine(line: Record<string, unknown>): string {
  return `${JSON.stringify(line)}\n`;
}

/** The `run.started` record of a run's `events.jsonl`, or null when it has none. */
async function runStartedRecord(path: string): Promise<Record<string, unknown> | null> {
  const text = await Deno.readTextFile(path).catch(() => "");
  for (const line of text.split("\n")) {
    if (!line.includes('"run.started"')) continue;
    try {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.type === "run.started") return record;
    } catch {
      // A torn line is not the record.
    }
  }
  return null;
}

/**
 * One stderr line per call: status, tool, duration, and the brief of its display blocks (the
 * summary for a result without them); the status coloured by `paint`, control characters of the
 * tool's name and brief written as `\u` escapes (`terminalSafe`).
 */
export function progressLine(result: ToolResult, paint: Paint = (_tone, text) => text): string {
  const kind = eventTypeOf(result);
  const [tone, status]: [Tone, string] = kind === "tool.completed"
    ? ["ok", "ok    "]
    : kind === "tool.denied"
    ? ["denied", "denied"]
    : ["failed", "failed"];
  const type = result.error === null ? "" : ` [${result.error.type}]`;
  // The tool's name and brief come from tools and the model: shown as text, never as escapes.
  const brief = terminalSafe((briefOf(result.display) ?? result.summary).split("\n")[0] ?? "");
  return `  ${paint(tone, status)} ${terminalSafe(result.tool)} ${
    paint("dim", `(${result.duration_ms} ms)`)
  }${type} ${brief}\n`;
}
