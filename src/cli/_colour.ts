/**
 * Colour for the lines people read on stderr: only when stderr is a terminal, and never when
 * `NO_COLOR` is set to a non-empty value (https://no-color.org). Piped output, CI logs and files
 * get plain text.
 *
 * @module
 */

import { styleText } from "node:util";
import type { CommandIo } from "./_common.ts";

/** The styles kagent-run uses: outcome colours and a dim tone for details. */
export type Tone = "ok" | "denied" | "failed" | "dim";

const FORMATS: Record<Tone, Parameters<typeof styleText>[0]> = {
  ok: "green",
  denied: "yellow",
  failed: "red",
  dim: "dim",
};

/** Paints text in a tone, or returns it unchanged when colour is off. */
export type Paint = (tone: Tone, text: string) => string;

/** Whether stderr gets colour: a terminal, and `NO_COLOR` unset or empty. */
export function colourEnabled(io: Pick<CommandIo, "stderrIsTerminal" | "env">): boolean {
  const noColour = io.env("NO_COLOR");
  return io.stderrIsTerminal === true && (noColour === undefined || noColour === "");
}

/**
 * The painter for `io`'s stderr.
 *
 * @example
 * ```ts
 * import { painter } from "./_colour.ts";
 * const paint = painter({ stderrIsTerminal: false, env: () => undefined });
 * console.assert(paint("ok", "done") === "done");
 * ```
 */
export function painter(io: Pick<CommandIo, "stderrIsTerminal" | "env">): Paint {
  if (!colourEnabled(io)) return (_tone, text) => text;
  // The decision is made above; styleText must not second-guess it against process.stderr.
  return (tone, text) => styleText(FORMATS[tone], text, { validateStream: false });
}
