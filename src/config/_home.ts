/**
 * Reads the home folder for `~/` expansion. Private to the config folder.
 *
 * @module
 */

/**
 * `$HOME`, or `undefined` when it is unset or the process may not read it. Called only when a path
 * starts with `~`, so configs without such paths need no environment permission.
 */
export function homeFromEnvironment(): string | undefined {
  try {
    return Deno.env.get("HOME");
  } catch {
    return undefined;
  }
}
