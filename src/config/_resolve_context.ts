/**
 * What every section resolver of `loadConfig` shares: the validated file, where it lies, the
 * workspace, and the list the resolvers add their problems to (reported together, in order).
 *
 * @module
 */

import { resolve } from "node:path";
import type { ConfigFile } from "./config_schema.ts";
import type { IssueText } from "./format_issues.ts";
import { type PathKind, pathKind, resolveWrittenPath } from "./_paths.ts";

/** The state one config load hands each section resolver. */
export interface ResolveContext {
  /** The file as validated by `ConfigFileSchema`. */
  file: ConfigFile;
  /** Absolute folder of the config file; relative paths resolve against it. */
  configDir: string;
  /** The absolute workspace (already resolved). */
  workspace: string;
  /** Reads the home folder for `~/` paths; `undefined` when unknown. */
  home: () => string | undefined;
  /** Problems found so far, in file order; every resolver appends to it. */
  issues: IssueText[];
}

/**
 * Resolves a written path against `baseDir` (default: the config file's folder), `~/` against the
 * home folder. When HOME is unknown it adds an issue naming `key` and returns the path resolved
 * as written, so loading can go on collecting problems.
 */
export function resolveConfigPath(
  context: Pick<ResolveContext, "configDir" | "home" | "issues">,
  written: string,
  key: string,
  baseDir: string = context.configDir,
): string {
  const absolute = resolveWrittenPath(written, baseDir, context.home);
  if (absolute !== null) return absolute;
  context.issues.push({ key, text: `key "${key}" cannot be resolved: HOME is not set` });
  return resolve(baseDir, written);
}

/** What a path must be: an existing directory, an existing file, or anything that exists. */
export type Wanted = "directory" | "file" | "any";

/** Adds an issue naming `key` when `path` is not what is wanted. */
export async function requireKind(
  issues: IssueText[],
  key: string,
  path: string,
  wanted: Wanted,
): Promise<void> {
  const problem = await describeMismatch(path, wanted);
  if (problem === null) return;
  const what = wanted === "directory"
    ? "an existing directory"
    : wanted === "file"
    ? "an existing file"
    : "an existing path";
  issues.push({ key, text: `key "${key}" must be ${what}: ${problem}` });
}

/** Why `path` is not what is wanted, or `null` when it is. */
export async function describeMismatch(path: string, wanted: Wanted): Promise<string | null> {
  let kind: PathKind;
  try {
    kind = await pathKind(path);
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    return `"${path}" cannot be checked (${reason})`;
  }
  if (kind === "missing") return `"${path}" does not exist`;
  if (wanted === "directory" && kind !== "directory") return `"${path}" is not a directory`;
  if (wanted === "file" && kind !== "file") return `"${path}" is a directory`;
  return null;
}
