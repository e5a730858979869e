import assert from "node:assert/strict";
import { colourEnabled, painter } from "./_colour.ts";

const io = (terminal: boolean, noColour?: string) => ({
  stderrIsTerminal: terminal,
  env: (name: string) => name === "NO_COLOR" ? noColour : undefined,
});

Deno.test("colour only on a terminal, and never with a non-empty NO_COLOR", () => {
  assert.equal(colourEnabled(io(true)), true);
  assert.equal(colourEnabled(io(true, "")), true); // no-color.org: an empty value does not count
  assert.equal(colourEnabled(io(true, "1")), false);
  assert.equal(colourEnabled(io(false)), false);
  assert.equal(painter(io(true))("failed", "x"), "\u001b[31mx\u001b[39m");
  assert.equal(painter(io(true, "1"))("failed", "x"), "x");
  assert.equal(painter(io(false))("ok", "x"), "x");
});
