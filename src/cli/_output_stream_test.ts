import assert from "node:assert/strict";
import { outputWriter } from "./_output_stream.ts";

Deno.test("outputWriter drops output without throwing once the reader is gone", () => {
  let calls = 0;
  const writer = outputWriter({
    writeSync(): number {
      calls += 1;
      throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
    },
  });
  writer.write("first line\n");
  writer.write("second line\n");
  assert.equal(writer.failed, true);
  // After the first failure the stream is left alone.
  assert.equal(calls, 1);
});

Deno.test("outputWriter writes the whole text when the stream takes it in pieces (near miss)", () => {
  const chunks: string[] = [];
  const writer = outputWriter({
    writeSync(bytes: Uint8Array): number {
      const piece = bytes.subarray(0, 3);
      chunks.push(new TextDecoder().decode(piece));
      return piece.length;
    },
  });
  writer.write("progress line\n");
  assert.equal(chunks.join(""), "progress line\n");
  assert.equal(writer.failed, false);
});
