/**
 * How a session reads its environment: one reader for variables (tests pass their own), the names
 * of the variables (for the command env allowlist's globs), and the secret values read once.
 *
 * @module
 */

/** Reads an environment variable; undefined when unset or not permitted. */
export type ReadEnvironment = (name: string) => string | undefined;

/**
 * The reader a session uses: `env` when given, else `Deno.env` (undefined when not permitted).
 *
 * @example
 * ```ts
 * import { environmentReader } from "./environment.ts";
 * const read = environmentReader((name) => name === "A" ? "1" : undefined);
 * console.assert(read("A") === "1" && read("B") === undefined);
 * ```
 */
export function environmentReader(env?: ReadEnvironment): ReadEnvironment {
  if (env !== undefined) return env;
  return (name) => {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  };
}

/**
 * Names of the process's environment variables; empty when reading them is not permitted.
 *
 * @example
 * ```ts
 * import { environmentNames } from "./environment.ts";
 * console.assert(Array.isArray(environmentNames()));
 * ```
 */
export function environmentNames(): string[] {
  try {
    return Object.keys(Deno.env.toObject());
  } catch {
    return [];
  }
}

/** Shortest secret value command output and memory content are scanned for, in characters. */
export const MIN_SCANNED_SECRET_CHARS = 8;

/**
 * The values of the secret variables (`audit.secret_env`) that are set, read once per session.
 * The redactor gets them all; command output and memory content are scanned only for those of at
 * least {@linkcode MIN_SCANNED_SECRET_CHARS} characters ({@linkcode scannedSecrets}).
 *
 * @example
 * ```ts
 * import { secretValues } from "./environment.ts";
 * console.assert(secretValues(["T", "U"], (name) => name === "T" ? "v" : undefined)[0] === "v");
 * ```
 */
export function secretValues(names: readonly string[], read: ReadEnvironment): string[] {
  return names.map(read).filter((value): value is string => value !== undefined);
}

/**
 * The secrets long enough to scan command output and memory content for.
 *
 * @example
 * ```ts
 * import { scannedSecrets } from "./environment.ts";
 * console.assert(scannedSecrets(["short", "long-enough"]).length === 1);
 * ```
 */
export function scannedSecrets(secrets: readonly string[]): string[] {
  return secrets.filter((value) => value.length >= MIN_SCANNED_SECRET_CHARS);
}
