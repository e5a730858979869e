/**
 * SHA-256 without loading Node's crypto for small inputs. Audit records, ids and the policy hash
 * are hashed by `@noble/hashes` (audited, pure JavaScript: about 8 µs for 400 bytes against 3 µs
 * native); inputs over {@linkcode NATIVE_FROM_BYTES} go to `node:crypto`, which is loaded the
 * first time one comes (`process.getBuiltinModule`, Node's synchronous import of a built-in
 * module, Node 22.3+ and Deno 2). Loading `node:crypto` cost each start 12 – 20 ms of the main
 * thread and about 25 ms of a tool Worker's, on the way to every first call (issue 16); a run
 * that hashes no large file never loads it. Once it is loaded (a large input, or
 * {@linkcode preloadNativeSha256} in a long-lived process), every hash is native. Both give the
 * same digest (a test compares them).
 *
 * @module
 */

import type * as NodeCrypto from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** Inputs from this many bytes are hashed natively (pure JavaScript is ~10× slower on big data). */
export const NATIVE_FROM_BYTES = 65_536;

let crypto: typeof NodeCrypto | null = null;

function nodeCrypto(): typeof NodeCrypto {
  return crypto ??= process.getBuiltinModule("node:crypto") as typeof NodeCrypto;
}

/**
 * Loads `node:crypto` now, without waiting (an `import()`), so that every later hash is native:
 * for a process that lives for many calls (`kagent-run mcp`, an agent run), where JavaScript's
 * 10× slower hashing of outputs (0.15 ms for 17 KB) would add up and the load is paid once. Never
 * throws: without it, hashing stays as it was.
 */
export function preloadNativeSha256(): void {
  if (crypto !== null) return;
  import("node:crypto").then((loaded) => crypto ??= loaded, () => {});
}

const encoder = new TextEncoder();

/** An incremental SHA-256: `update` any number of times, then `digest("hex")` once. */
export interface Sha256 {
  /** Adds `data` (a string as UTF-8). The bytes are copied when kept: the caller may reuse them. */
  update(data: string | Uint8Array): Sha256;
  /** The digest as 64 lowercase hexadecimal characters. */
  digest(encoding: "hex"): string;
}

/**
 * A new incremental SHA-256. Up to {@linkcode NATIVE_FROM_BYTES} bytes are kept and hashed in
 * JavaScript at the end; past that, everything goes through `node:crypto`.
 *
 * @example
 * ```ts
 * import { createSha256 } from "./sha256.ts";
 * const hash = createSha256().update("a").update("bc").digest("hex");
 * console.assert(hash === "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
 * ```
 */
export function createSha256(): Sha256 {
  return new HybridSha256();
}

/**
 * The SHA-256 of `data` (a string is hashed as UTF-8), as 64 lowercase hexadecimal characters.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./sha256.ts";
 * console.assert(sha256Hex("abc") === "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
 * ```
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (crypto !== null) return crypto.createHash("sha256").update(data).digest("hex");
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  if (bytes.byteLength >= NATIVE_FROM_BYTES) {
    return nodeCrypto().createHash("sha256").update(bytes).digest("hex");
  }
  return bytesToHex(sha256(bytes));
}

class HybridSha256 implements Sha256 {
  #kept: Uint8Array[] = [];
  #keptBytes = 0;
  #native: NodeCrypto.Hash | null = null;

  update(data: string | Uint8Array): Sha256 {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    if (this.#native === null && this.#keptBytes === 0 && crypto !== null) {
      this.#native = crypto.createHash("sha256");
    }
    if (this.#native !== null) {
      this.#native.update(bytes);
      return this;
    }
    if (this.#keptBytes + bytes.byteLength < NATIVE_FROM_BYTES) {
      this.#kept.push(bytes.slice());
      this.#keptBytes += bytes.byteLength;
      return this;
    }
    this.#native = nodeCrypto().createHash("sha256");
    for (const piece of this.#kept) this.#native.update(piece);
    this.#native.update(bytes);
    this.#kept = [];
    return this;
  }

  digest(_encoding: "hex"): string {
    if (this.#native !== null) return this.#native.digest("hex");
    const all = new Uint8Array(this.#keptBytes);
    let offset = 0;
    for (const piece of this.#kept) {
      all.set(piece, offset);
      offset += piece.byteLength;
    }
    return bytesToHex(sha256(all));
  }
}
