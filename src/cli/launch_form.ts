/**
 * How kagent-run was launched, so that relative paths mean what the user typed and printed
 * commands can be pasted back: `deno task kagent-run …` in a source checkout runs main.ts from the
 * checkout's folder (Deno changes to deno.json's folder and leaves the user's folder in
 * `INIT_CWD`); the bundle, the compiled binary and the GitHub Action run in the user's folder.
 *
 * @module
 */

import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";

/** How the process was started: from a checkout through `deno task`, or directly. */
export type LaunchForm = "deno_task" | "direct";

let launchForm: LaunchForm = "direct";

/**
 * Makes the user's folder the current folder when `deno task` started main.ts from a source
 * checkout: then the current folder is the checkout (the folder of the main module) and `INIT_CWD`
 * names the folder the user typed the command in. Relative paths on the command line (`--config`,
 * `--workspace`, `--task-file`, `verify runs/<id>`, `report`…) then resolve against the user's
 * folder, in every launch form. Anything else (no `INIT_CWD`, an `INIT_CWD` left by an outer
 * `npm run`, a bundle or binary run elsewhere) changes nothing.
 *
 * @param environment Reads a variable (default `Deno.env.get`).
 * @param mainModule The main module's URL (default `Deno.mainModule`).
 * @returns The launch form now recorded (also returned by {@linkcode currentLaunchForm}).
 * @example
 * ```ts
 * import { enterUserFolder } from "./launch_form.ts";
 * // Not under deno task: nothing changes.
 * const before = Deno.cwd();
 * console.assert(enterUserFolder(() => undefined) === "direct" && Deno.cwd() === before);
 * ```
 */
export function enterUserFolder(
  environment: (name: string) => string | undefined = (name) => Deno.env.get(name),
  mainModule: string = Deno.mainModule,
): LaunchForm {
  const userFolder = environment("INIT_CWD");
  if (userFolder === undefined || !nodePath.isAbsolute(userFolder)) return launchForm;
  if (!mainModule.startsWith("file:")) return launchForm;
  const checkout = nodePath.dirname(fileURLToPath(mainModule));
  if (nodePath.resolve(Deno.cwd()) !== checkout) return launchForm;
  try {
    Deno.chdir(userFolder);
  } catch {
    // A folder that is gone or unreadable: stay in the checkout, as before.
    return launchForm;
  }
  launchForm = "deno_task";
  return launchForm;
}

/** The launch form {@linkcode enterUserFolder} recorded ("direct" until it finds a deno task). */
export function currentLaunchForm(): LaunchForm {
  return launchForm;
}

/**
 * The words that start kagent-run again the way it was started, for printed commands: `deno task
 * kagent-run` in a source checkout, `kagent-run` otherwise.
 *
 * @example
 * ```ts
 * import { programWords } from "./launch_form.ts";
 * console.assert(programWords("direct").join(" ") === "kagent-run");
 * console.assert(programWords("deno_task").join(" ") === "deno task kagent-run");
 * ```
 */
export function programWords(form: LaunchForm = launchForm): string[] {
  return form === "deno_task" ? ["deno", "task", "kagent-run"] : ["kagent-run"];
}
