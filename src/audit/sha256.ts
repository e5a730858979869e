/**
 * SHA-256 from `node:crypto`, which is loaded the first time a hash is made, not when a module
 * importing this one loads: the tool Worker starts without the Node compatibility layer unless a
 * tool hashes (issue 16: importing `node:crypto` costs a Worker about 25 ms, and reading or
 * listing files never hashes). `process.getBuiltinModule` is Node's synchronous form of importing a
 * built-in module (Node 22.3+, supported by Deno 2).
 *
 * @module
 */

import type * as NodeCrypto from "node:crypto";

let crypto: typeof NodeCrypto | null = null;

function nodeCrypto(): typeof NodeCrypto {
  return crypto ??= process.getBuiltinModule("node:crypto") as typeof NodeCrypto;
}

/**
 * A new incremental SHA-256 hash (`node:crypto`'s `Hash`: `update(data)`, then `digest("hex")`).
 *
 * @example
 * ```ts
 * import { createSha256 } from "./sha256.ts";
 * const hash = createSha256().update("abc").digest("hex");
 * console.assert(hash.startsWith("ba7816bf"));
 * ```
 */
export function createSha256(): NodeCrypto.Hash {
  return nodeCrypto().createHash("sha256");
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
  return nodeCrypto().createHash("sha256").update(data).digest("hex");
}
