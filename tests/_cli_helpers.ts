// Helpers for command-line tests: an in-process runner with captured output, and a project folder.
import * as nodePath from "node:path";
import { main } from "../src/cli/mod.ts";
import { createTempSandbox, type TempSandbox } from "../src/testing/temp_sandbox.ts";

/** The repository's root folder. */
export const repository: string = nodePath.resolve(
  nodePath.dirname(new URL(import.meta.url).pathname),
  "..",
);

/**
 * The permission, prompt and unstable flags of a deno.json task, in order: the flags `compile`
 * bakes in, for subprocess runs of main.ts.
 */
/**
 * This process's environment without `INIT_CWD`, plus `extra`, for a child started with
 * `clearEnv: true`. `deno task test` leaves `INIT_CWD` set, and Deno keeps an `INIT_CWD` it finds
 * (as npm does), so a `deno task …` a test starts from another folder would otherwise be told the
 * user typed it in the checkout.
 */
export function environmentForTask(extra: Record<string, string> = {}): Record<string, string> {
  const environment = Deno.env.toObject();
  delete environment.INIT_CWD;
  return { ...environment, ...extra };
}

export function taskFlags(task: string): string[] {
  const denoJson = JSON.parse(Deno.readTextFileSync(nodePath.join(repository, "deno.json")));
  return (denoJson.tasks[task] as string).split(/\s+/).filter((word) =>
    word.startsWith("--allow") || word.startsWith("--unstable") || word.startsWith("--deny") ||
    word === "--no-prompt"
  );
}

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command line in-process, capturing output. */
export async function runCli(
  args: string[],
  options: { terminal?: boolean; stderrTerminal?: boolean; env?: Record<string, string> } = {},
): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdoutIsTerminal: options.terminal ?? false,
    stderrIsTerminal: options.stderrTerminal ?? false,
    // Colour is each test's choice: the developer's FORCE_COLOR does not reach the command.
    env: (name) => options.env?.[name] ?? (name === "FORCE_COLOR" ? undefined : Deno.env.get(name)),
    terminal: null,
  });
  return { code, stdout, stderr };
}

export interface Project extends AsyncDisposable {
  sandbox: TempSandbox;
  /** root/config/agent.jsonc */
  configPath: string;
  configDir: string;
  runsDir: string;
}

/** A temp project: a workspace with a few files, a config folder beside it with agent.jsonc and an optional plan. */
export async function createProject(
  options: { config?: Record<string, unknown>; plan?: string[]; permissions?: unknown } = {},
): Promise<Project> {
  const sandbox = await createTempSandbox();
  const configDir = nodePath.join(sandbox.root, "config");
  await Deno.mkdir(configDir);
  await Deno.writeTextFile(
    nodePath.join(sandbox.workspace, "README.md"),
    "# Demo\n\nA small project.\n",
  );
  await Deno.mkdir(nodePath.join(sandbox.workspace, "src"));
  await Deno.writeTextFile(
    nodePath.join(sandbox.workspace, "src/main.ts"),
    "// TODO: write the program\nconsole.log(1);\n",
  );
  const config: Record<string, unknown> = {
    workspace: "../workspace",
    runs_dir: "../runs",
    ...options.config,
  };
  if (options.plan !== undefined) {
    await Deno.writeTextFile(
      nodePath.join(configDir, "plan.jsonl"),
      options.plan.join("\n") + "\n",
    );
    config.model ??= { provider: "script", script: "plan.jsonl" };
    config.task ??= "test task";
  }
  if (options.permissions !== undefined) {
    await Deno.writeTextFile(
      nodePath.join(configDir, "permissions.json"),
      JSON.stringify(options.permissions),
    );
    config.permissions = "permissions.json";
  }
  const configPath = nodePath.join(configDir, "agent.jsonc");
  await Deno.writeTextFile(configPath, JSON.stringify(config, null, 2));
  return {
    sandbox,
    configPath,
    configDir,
    runsDir: nodePath.join(sandbox.root, "runs"),
    [Symbol.asyncDispose]: () => sandbox.cleanup(),
  };
}

/** The only run folder of a project (throws if there is not exactly one). */
export async function onlyRunDir(project: Project): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(project.runsDir)) names.push(entry.name);
  if (names.length !== 1) throw new Error(`expected one run folder, found ${names.length}`);
  return nodePath.join(project.runsDir, names[0] as string);
}

/** Parses every line of a JSONL file; a line that does not parse throws. */
export async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  if (text !== "" && !text.endsWith("\n")) throw new Error(`${path} does not end with a newline`);
  return text.split("\n").filter((line) => line !== "").map((line, index) => {
    try {
      return JSON.parse(line);
    } catch (error) {
      throw new Error(`${path} line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
  });
}
