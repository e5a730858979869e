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

const environment = (terminal: boolean, values: Record<string, string>) => ({
  stderrIsTerminal: terminal,
  env: (name: string) => values[name],
});

Deno.test("FORCE_COLOR colours piped stderr and wins over NO_COLOR; 0, false and empty do not force", () => {
  assert.equal(colourEnabled(environment(false, { FORCE_COLOR: "1" })), true);
  assert.equal(colourEnabled(environment(false, { FORCE_COLOR: "3", NO_COLOR: "1" })), true);
  assert.equal(
    painter(environment(false, { FORCE_COLOR: "1" }))("ok", "x"),
    "\u001b[32mx\u001b[39m",
  );
  // Near misses: an empty FORCE_COLOR is unset; 0 and false turn colour off, even on a terminal.
  assert.equal(colourEnabled(environment(false, { FORCE_COLOR: "" })), false);
  assert.equal(colourEnabled(environment(true, { FORCE_COLOR: "" })), true);
  assert.equal(colourEnabled(environment(true, { FORCE_COLOR: "0" })), false);
  assert.equal(colourEnabled(environment(true, { FORCE_COLOR: "false" })), false);
});
