/**
 * The seal of a run: `manifest.json`, written last, with the end of each log's hash chain and the
 * sha256 of every file the run leaves for an auditor, optionally signed (HMAC-SHA256).
 *
 * @module
 */

import { createSha256 } from "./sha256.ts";
import { join } from "node:path";
import type { ChainedLog, ChainLink } from "./audit_chain.ts";

/** The manifest's file name in the run folder. */
export const MANIFEST_FILE = "manifest.json";

/** The manifest format's name. */
export const MANIFEST_FORMAT = "kagent-run/manifest@1";

/** The only signature algorithm. */
export const SIGNATURE_ALGORITHM = "HMAC-SHA256";

/**
 * Files of the run folder's top that the seal covers when they exist, in this order. The task
 * graph the run relied on is among them: `tasks.sqlite` (the run's own store, closed before the
 * seal) and `task_rows.json` (the rows a `kagent-run worker` step read and wrote in a shared store).
 */
export const SEALED_FILES = [
  "policy.json",
  "run.json",
  "config.json",
  "system_prompt.md",
  "grants.jsonl",
  "approvals/pending.jsonl",
  "tasks.sqlite",
  "task_rows.json",
] as const;

/** Folders of the run folder whose every file the seal covers, recursively. */
export const SEALED_FOLDERS = [
  "artifacts",
  "deliverables",
  "archive",
  "workspace",
  "segments",
] as const;

/** The signature of a manifest. */
export interface ManifestSignature {
  /** Always `HMAC-SHA256`. */
  algorithm: typeof SIGNATURE_ALGORITHM;
  /** The environment variable that held the key when the run was sealed (never the key). */
  key_env: string;
  /** HMAC-SHA256 (lower-case hex) of {@linkcode manifestSigningInput}. */
  value: string;
}

/** `manifest.json`. */
export interface RunManifest {
  /** {@linkcode MANIFEST_FORMAT}. */
  format: string;
  run_id: string;
  /** ISO-8601 UTC time of the seal. */
  sealed_at: string;
  /** `policy.json`'s `hash` (the chains' anchor), or null when the run had no policy. */
  policy_hash: string | null;
  /** The end of each log's chain: `{seq, hash}` of its last record (`{0, anchor}` when empty). */
  chains: Record<ChainedLog, ChainLink>;
  /**
   * sha256 (hex) of each sealed file by its `/`-separated path inside the run folder: the
   * {@linkcode SEALED_FILES} that exist, every file under the {@linkcode SEALED_FOLDERS}, and
   * `agents/<child>/manifest.json` of each sealed child run. A symbolic link is recorded as
   * `symlink:<target>` (never followed), a FIFO, device or folder as `not_a_file:<kind>`.
   */
  files: Record<string, string>;
  /** Present when the run was sealed with a key. */
  signature?: ManifestSignature;
}

/** The key a run's manifest is signed with: the variable's name (recorded) and its value (never). */
export interface SigningKey {
  /** The environment variable holding the key, as `audit.signing_key_env` names it. */
  env: string;
  /** The key: the variable's value, used as UTF-8 bytes. */
  key: string;
}

/**
 * The bytes a signature covers: the manifest without `signature`, as `JSON.stringify` writes it
 * (compact, members in the file's order), UTF-8.
 *
 * @example
 * ```ts
 * import { manifestSigningInput } from "./run_manifest.ts";
 * console.assert(manifestSigningInput({ a: 1, signature: { value: "x" } }) === '{"a":1}');
 * ```
 */
export function manifestSigningInput(manifest: Record<string, unknown>): string {
  const { signature: _signature, ...body } = manifest;
  return JSON.stringify(body);
}

/**
 * HMAC-SHA256 (lower-case hex) of `text` under `key`, through WebCrypto.
 *
 * @param key The key, as UTF-8 bytes.
 * @param text The message, as UTF-8 bytes.
 * @example
 * ```ts
 * import { hmacSha256Hex } from "./run_manifest.ts";
 * console.assert((await hmacSha256Hex("key", "text")).length === 64);
 * ```
 */
export async function hmacSha256Hex(key: string, text: string): Promise<string> {
  const encoder = new TextEncoder();
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    encoder.encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(text));
  return Array.from(new Uint8Array(signature), (byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}

/** What {@linkcode sealRun} writes besides the files' hashes. */
export interface SealOptions {
  runId: string;
  /** ISO-8601 UTC. */
  sealedAt: string;
  policyHash: string | null;
  chains: RunManifest["chains"];
  /** Signs the manifest when given. */
  signing: SigningKey | null;
}

/**
 * Seals a run folder: hashes every sealed file, signs when a key is given, and writes
 * `manifest.json` ({@linkcode writeManifest}).
 *
 * @returns The manifest written.
 * @throws Whatever the file system throws.
 */
export async function sealRun(runDir: string, options: SealOptions): Promise<RunManifest> {
  const manifest: RunManifest = {
    format: MANIFEST_FORMAT,
    run_id: options.runId,
    sealed_at: options.sealedAt,
    policy_hash: options.policyHash,
    chains: options.chains,
    files: await sealedFileHashes(runDir),
  };
  if (options.signing !== null) {
    manifest.signature = {
      algorithm: SIGNATURE_ALGORITHM,
      key_env: options.signing.env,
      value: await hmacSha256Hex(options.signing.key, manifestSigningInput({ ...manifest })),
    };
  }
  await writeManifest(runDir, manifest);
  return manifest;
}

/**
 * The sha256 of every sealed file of a run folder (see {@linkcode RunManifest.files}).
 *
 * @param runDir The run folder.
 * @returns Paths (`/`-separated, relative to `runDir`) to sha256 hex, sorted by path within each
 *   group (top files, then each folder, then child runs).
 */
export async function sealedFileHashes(runDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of SEALED_FILES) {
    const hash = await hashIfFile(join(runDir, name));
    if (hash !== null) files[name] = hash;
  }
  for (const folder of SEALED_FOLDERS) {
    for (const path of await listFiles(runDir, folder)) {
      const hash = await hashIfFile(join(runDir, path));
      if (hash !== null) files[path] = hash;
    }
  }
  for (const child of await childRuns(runDir)) {
    const path = `agents/${child}/${MANIFEST_FILE}`;
    const hash = await hashIfFile(join(runDir, path));
    if (hash !== null) files[path] = hash;
  }
  return files;
}

/**
 * The sub-agent runs inside a run folder: the names of the folders under `agents/`, sorted; none
 * when there is no `agents/` folder.
 */
export async function childRuns(runDir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(runDir, "agents"))) {
      if (entry.isDirectory) names.push(entry.name);
    }
  } catch (error: unknown) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

/**
 * Every file (and symbolic link) under `folder` of `runDir`, as `/`-separated paths relative to
 * `runDir`, sorted; none when the folder is missing. Temporary files of an atomic write in progress
 * (`*.tmp`) are listed like any other.
 */
export async function listFiles(runDir: string, folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(join(runDir, relative)));
    } catch (error: unknown) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else found.push(path);
    }
  };
  await walk(folder);
  return found.sort();
}

/**
 * Writes `manifest.json` atomically and durably: a temporary file, fsync, rename, fsync of the run
 * folder. Pretty printed (2 spaces, final newline).
 *
 * @throws Whatever the file system throws (the temporary file is removed).
 */
export async function writeManifest(runDir: string, manifest: RunManifest): Promise<void> {
  const path = join(runDir, MANIFEST_FILE);
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    const file = await Deno.open(temporary, { write: true, createNew: true });
    try {
      await writeWhole(file, new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(temporary, path);
  } catch (error: unknown) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  // The rename itself must survive a power loss: fsync the folder that holds the name.
  const folder = await Deno.open(runDir, { read: true });
  try {
    await folder.sync();
  } finally {
    folder.close();
  }
}

/**
 * sha256 (hex) of a regular file's bytes; null when nothing is at `path`. A link is never followed
 * and nothing but a regular file is read (a link to `/dev/zero` or a FIFO would never end): a
 * symbolic link hashes as `symlink:<its target>`, anything else as `not_a_file:<kind>`, so that
 * swapping a file for either changes the seal.
 */
export async function hashIfFile(path: string): Promise<string | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error: unknown) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  if (info.isSymlink) return `symlink:${await Deno.readLink(path)}`;
  if (!info.isFile) return `not_a_file:${info.isDirectory ? "directory" : "special"}`;
  try {
    using file = await Deno.open(path, { read: true });
    // Opened, then checked again: the path may have been swapped since the lstat.
    if (!(await file.stat()).isFile) return "not_a_file:special";
    const hash = createSha256();
    const buffer = new Uint8Array(1 << 16);
    for (;;) {
      const read = await file.read(buffer);
      if (read === null) return hash.digest("hex");
      hash.update(buffer.subarray(0, read));
    }
  } catch (error: unknown) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

async function writeWhole(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
}
