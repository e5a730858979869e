/**
 * Colour for the lines people read on stderr: when stderr is a terminal and `NO_COLOR` is unset or
 * empty (https://no-color.org), or whenever `FORCE_COLOR` is set to a non-empty value
 * (https://force-color.org), which wins over `NO_COLOR`: the reference implementation there reads
 * `FORCE_COLOR` after `NO_COLOR`, and Node.js's `tty` gives it precedence too. As in Node.js,
 * `FORCE_COLOR=0` or `false` turns colour off. Otherwise piped output, CI logs and files get plain
 * text.
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

/**
 * Whether stderr gets colour: `FORCE_COLOR` non-empty decides first (`0` and `false` off, any other
 * value on); otherwise a terminal, and `NO_COLOR` unset or empty.
 *
 * @example
 * ```ts
 * import { colourEnabled } from "./_colour.ts";
 * const env = (values: Record<string, string>) => (name: string) => values[name];
 * console.assert(colourEnabled({ stderrIsTerminal: false, env: env({ FORCE_COLOR: "1" }) }));
 * console.assert(!colourEnabled({ stderrIsTerminal: true, env: env({ NO_COLOR: "1" }) }));
 * ```
 */
export function colourEnabled(io: Pick<CommandIo, "stderrIsTerminal" | "env">): boolean {
  const force = io.env("FORCE_COLOR");
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
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
