import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createSha256, NATIVE_FROM_BYTES, preloadNativeSha256, sha256Hex } from "./sha256.ts";

const native = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Deterministic bytes (a linear congruential generator), so a failure repeats. */
function bytesOf(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed;
  for (let index = 0; index < length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}

Deno.test("sha256Hex gives node:crypto's digest on both sides of the native threshold", () => {
  const sizes = [0, 1, 55, 56, 63, 64, 65, 1000, NATIVE_FROM_BYTES - 1, NATIVE_FROM_BYTES];
  for (const size of [...sizes, NATIVE_FROM_BYTES + 1, 3 * NATIVE_FROM_BYTES + 7]) {
    const bytes = bytesOf(size, size + 1);
    assert.equal(sha256Hex(bytes), native(bytes), `${size} bytes`);
  }
  const text = "zürich ☃ 𝄞 secret=1\n".repeat(50);
  assert.equal(sha256Hex(text), native(new TextEncoder().encode(text)));
});

Deno.test("createSha256 gives node:crypto's digest however the input is split, from a reused buffer", () => {
  for (const total of [0, 10, NATIVE_FROM_BYTES - 1, NATIVE_FROM_BYTES + 10, 200_000]) {
    const bytes = bytesOf(total, 7 + total);
    for (const piece of [1, 4096, 65_536, 70_000]) {
      const hash = createSha256();
      const buffer = new Uint8Array(piece);
      for (let offset = 0; offset < total; offset += piece) {
        const part = bytes.subarray(offset, Math.min(total, offset + piece));
        buffer.set(part);
        hash.update(buffer.subarray(0, part.byteLength));
        buffer.fill(0); // the caller reuses its buffer: what was kept must be a copy
      }
      assert.equal(hash.digest("hex"), native(bytes), `${total} bytes in pieces of ${piece}`);
    }
  }
  assert.equal(createSha256().update("ab").update("c").digest("hex"), sha256Hex("abc"));
});

Deno.test("after preloadNativeSha256 the digests stay the same", async () => {
  preloadNativeSha256();
  await import("node:crypto"); // the preload's import settles with this one
  await new Promise((resolve) => setTimeout(resolve, 0));
  for (const size of [0, 3, 1000, NATIVE_FROM_BYTES + 1]) {
    const bytes = bytesOf(size, 99);
    assert.equal(sha256Hex(bytes), native(bytes));
    assert.equal(
      createSha256().update(bytes.subarray(0, 1)).update(bytes.subarray(1)).digest("hex"),
      native(bytes),
    );
  }
});
