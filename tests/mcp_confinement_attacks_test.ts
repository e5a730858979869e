/**
 * Attack pairs for stdio MCP servers (issue 23 §1, §2): a server is its own confinement domain
 * and is watched like a command, under bubblewrap and under isolation none.
 *
 * - A server with `"write": true`, driven by the model, plants a repository (`ws/.git` with a
 *   `core.fsmonitor` command): it is moved to `runs/<id>/quarantine/`, the call fails with
 *   `sandbox_violation`, the run records `mcp_server.sandbox_violation`, later calls fail, and a
 *   host `git status` in the workspace runs nothing. Near miss: its ordinary file stays.
 * - A server with `"write": false` writes `usercustomize.py` into its HOME: a later approved
 *   `python3 -c "print(1)"` does not run it (the commands' HOME is another folder). Near miss: the
 *   server reads back what it wrote in its own HOME.
 *
 * The planted repository is shown live by a control: the same `.git`, copied from the quarantine
 * into a scratch folder, makes the host's `git status` run its command.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import type { Approver } from "../src/approval/mod.ts";
import { loadConfig } from "../src/config/mod.ts";
import { probeBubblewrap } from "../src/exec/mod.ts";
import { openRunSession, type RunSession } from "../src/session/mod.ts";
import { exists, git, processesWith, survivorsAfter } from "./_attack_helpers.ts";
import { assertRunFolderClean } from "./_run_folder_scan.ts";

const PLANTER = fileURLToPath(new URL("./testdata/mcp/planter_server.mjs", import.meta.url));
const PATH = "/usr/bin:/bin";

const bubblewrapProblem = await probeBubblewrap("/usr/bin/bwrap").then((probe) =>
  probe.usable ? null : probe.reason
);
const programsProblem = await (async () => {
  for (const program of ["/usr/bin/node", "/usr/bin/git", "/usr/bin/python3"]) {
    if (!(await exists(program))) return `"${program}" is missing`;
  }
  return null;
})();

const approveAll: Approver = {
  name: "test-approve-all",
  approve: () => Promise.resolve({ decision: "allow_once" }),
};

type Isolation = "bwrap" | "none";

/** Why a test in `isolation` cannot run here, or null. */
function problem(isolation: Isolation): string | null {
  return programsProblem ?? (isolation === "bwrap" ? bubblewrapProblem : null);
}
for (const isolation of ["bwrap", "none"] as const) {
  const why = problem(isolation);
  if (why !== null) console.log(`Skipping the ${isolation} MCP confinement attacks: ${why}`);
}

/** Opens a run in a fresh workspace holding the planter server, with `config` merged in. */
async function openPlanterRun(
  isolation: Isolation,
  write: boolean,
  config: Record<string, unknown> = {},
  prepare: (workspace: string) => Promise<void> = () => Promise.resolve(),
): Promise<{ session: RunSession; workspace: string }> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-planter-" }));
  await Deno.copyFile(PLANTER, nodePath.join(workspace, "planter.mjs"));
  await prepare(workspace);
  await Deno.writeTextFile(
    nodePath.join(workspace, "agent.jsonc"),
    JSON.stringify({
      sandbox: { command_isolation: isolation },
      mcp_servers: { planter: { command: "node", args: ["planter.mjs"], write } },
      permissions: {
        rules: [{ id: "allowed", tools: ["mcp.*", "exec.run_command"], decision: "allow" }],
      },
      ...config,
    }),
  );
  const loaded = await loadConfig(nodePath.join(workspace, "agent.jsonc"));
  const env = (name: string) => name === "PATH" ? PATH : Deno.env.get(name);
  try {
    return { session: await openRunSession(loaded, { env, approver: approveAll }), workspace };
  } catch (error) {
    await Deno.remove(workspace, { recursive: true });
    throw error;
  }
}

let calls = 0;
const call = (session: RunSession, name: string, args: unknown) =>
  session.runtime.call({ id: `call_${++calls}`, name, arguments: JSON.stringify(args) });

async function events(session: RunSession): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(nodePath.join(session.folder.dir, "events.jsonl"));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

/** The host's `git status` in `cwd`, as a user would run it after the run (clean environment). */
async function hostGitStatus(cwd: string): Promise<void> {
  await new Deno.Command("/usr/bin/git", {
    args: ["status"],
    cwd,
    clearEnv: true,
    env: { PATH, HOME: cwd },
    stdout: "null",
    stderr: "null",
  }).output();
}

/** The `act` arguments that plant `<root>/.git`, whose fsmonitor creates `marker`. */
function plantRepository(root: string, marker: string) {
  return {
    dirs: [nodePath.join(root, ".git", "objects"), nodePath.join(root, ".git", "refs")],
    writes: [
      { path: nodePath.join(root, ".git", "HEAD"), content: "ref: refs/heads/main\n" },
      {
        path: nodePath.join(root, ".git", "config"),
        content: `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${marker}; false\n`,
      },
    ],
  };
}

/**
 * The repository moved to the quarantine: the run's `quarantine/` holds a `.git` with the planted
 * config; the control shows it runs its command in a scratch copy; returns that copy's marker.
 */
async function assertQuarantined(session: RunSession, scratch: string): Promise<void> {
  const quarantine = nodePath.join(session.folder.dir, "quarantine");
  const entries = [...Deno.readDirSync(quarantine)].map((entry) => entry.name);
  const moved = entries.find((name) => name.endsWith("-.git"));
  assert.ok(moved !== undefined, `no .git in the quarantine: ${entries.join(", ")}`);
  const config = await Deno.readTextFile(nodePath.join(quarantine, moved, "config"));
  assert.match(config, /fsmonitor/);
  // Control: the same repository, where a user's git finds it, runs its command.
  const copy = nodePath.join(scratch, "control");
  await Deno.mkdir(copy, { recursive: true });
  await new Deno.Command("/bin/cp", {
    args: ["-r", nodePath.join(quarantine, moved), nodePath.join(copy, ".git")],
  }).output();
  const controlMarker = nodePath.join(scratch, "control-marker");
  await Deno.writeTextFile(
    nodePath.join(copy, ".git", "config"),
    config.replace(/touch \S+;/, `touch ${controlMarker};`),
  );
  await hostGitStatus(copy);
  assert.ok(await exists(controlMarker), "the control: a planted repository does run its command");
}

for (const isolation of ["bwrap", "none"] as const) {
  Deno.test({
    name: `mcp server's planted .git with core.fsmonitor is quarantined and its later calls fail ` +
      `when it writes the workspace (isolation ${isolation})`,
    ignore: problem(isolation) !== null,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const scratch = await Deno.makeTempDir({ prefix: "kagent-planter-scratch-" });
      const marker = nodePath.join(scratch, "fsmonitor-ran");
      const { session, workspace } = await openPlanterRun(isolation, true);
      try {
        const planted = plantRepository(workspace, marker);
        const result = await call(session, "mcp.planter.act", {
          ...planted,
          writes: [...planted.writes, {
            path: nodePath.join(workspace, "notes.txt"),
            content: "ordinary",
          }],
        });
        assert.equal(result.ok, false, result.output);
        assert.equal(result.error?.type, "sandbox_violation", result.error?.message);
        assert.match(result.error?.message ?? "", /MCP server "planter" created protected paths/);
        assert.ok(!(await exists(nodePath.join(workspace, ".git"))), "the .git is gone");
        // Near miss: the server's ordinary write stays.
        assert.equal(await Deno.readTextFile(nodePath.join(workspace, "notes.txt")), "ordinary");
        // The server was stopped: its next call fails and writes nothing.
        const later = await call(session, "mcp.planter.act", {
          writes: [{ path: nodePath.join(workspace, "later.txt"), content: "x" }],
        });
        assert.equal(later.error?.type, "sandbox_violation");
        assert.ok(!(await exists(nodePath.join(workspace, "later.txt"))));
        await assertQuarantined(session, scratch);
      } finally {
        await session.close();
      }
      try {
        const recorded = (await events(session)).filter((event) =>
          event.type === "mcp_server.sandbox_violation"
        );
        assert.equal(recorded.length, 1, JSON.stringify(recorded));
        assert.equal(recorded[0]?.server, "planter");
        assert.equal(recorded[0]?.found, "call");
        const paths = (recorded[0]?.quarantined as { path: string }[]).map((entry) => entry.path);
        assert.deepEqual(paths, [nodePath.join(workspace, ".git")]);
        // The user's next git in the workspace runs nothing.
        await hostGitStatus(workspace);
        assert.ok(!(await exists(marker)), "the fsmonitor command ran on the host");
      } finally {
        await Deno.remove(workspace, { recursive: true });
        await Deno.remove(scratch, { recursive: true });
      }
    },
  });

  Deno.test({
    name: `mcp server's .git planted after its call answered is quarantined when the run closes ` +
      `(isolation ${isolation})`,
    ignore: problem(isolation) !== null,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const scratch = await Deno.makeTempDir({ prefix: "kagent-planter-scratch-" });
      const marker = nodePath.join(scratch, "fsmonitor-ran");
      const { session, workspace } = await openPlanterRun(isolation, true);
      try {
        const planted = plantRepository(workspace, marker);
        const result = await call(session, "mcp.planter.act", {
          ...planted,
          writes: [...planted.writes, {
            path: nodePath.join(workspace, "notes.txt"),
            content: "x",
          }],
          later_ms: 300,
        });
        assert.equal(result.ok, true, result.error?.message);
        for (let waited = 0; waited < 5000; waited += 50) {
          if (await exists(nodePath.join(workspace, "notes.txt"))) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.ok(await exists(nodePath.join(workspace, ".git", "config")), "it was planted");
      } finally {
        await session.close();
      }
      try {
        assert.ok(!(await exists(nodePath.join(workspace, ".git"))), "the .git is gone");
        assert.ok(await exists(nodePath.join(workspace, "notes.txt")), "near miss: the file stays");
        const recorded = (await events(session)).find((event) =>
          event.type === "mcp_server.sandbox_violation"
        );
        // The run's close ends the process first: its end or the close's last check finds it.
        assert.ok(["exit", "close"].includes(String(recorded?.found)), JSON.stringify(recorded));
        await hostGitStatus(workspace);
        assert.ok(!(await exists(marker)), "the fsmonitor command ran on the host");
      } finally {
        await Deno.remove(workspace, { recursive: true });
        await Deno.remove(scratch, { recursive: true });
      }
    },
  });

  Deno.test({
    name: `mcp server's nested pkg/.git is quarantined when it writes the workspace ` +
      `(isolation ${isolation})`,
    ignore: problem(isolation) !== null,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const scratch = await Deno.makeTempDir({ prefix: "kagent-planter-scratch-" });
      const marker = nodePath.join(scratch, "fsmonitor-ran");
      const { session, workspace } = await openPlanterRun(isolation, true);
      const pkg = nodePath.join(workspace, "pkg");
      try {
        const planted = plantRepository(pkg, marker);
        const result = await call(session, "mcp.planter.act", {
          ...planted,
          writes: [...planted.writes, { path: nodePath.join(pkg, "index.js"), content: "ok" }],
        });
        assert.equal(result.error?.type, "sandbox_violation", result.output);
        assert.ok(!(await exists(nodePath.join(pkg, ".git"))), "the nested .git is gone");
        assert.ok(await exists(nodePath.join(pkg, "index.js")), "near miss: the file stays");
        await assertQuarantined(session, scratch);
      } finally {
        await session.close();
      }
      try {
        await hostGitStatus(pkg);
        assert.ok(!(await exists(marker)), "the fsmonitor command ran on the host");
      } finally {
        await Deno.remove(workspace, { recursive: true });
        await Deno.remove(scratch, { recursive: true });
      }
    },
  });

  Deno.test({
    name: `mcp server's process that left its group does not outlive the run ` +
      `(isolation ${isolation})`,
    ignore: problem(isolation) !== null,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      // A unique duration names the process left behind (about 50 minutes).
      const seconds = `3000.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
      const { session, workspace } = await openPlanterRun(isolation, false);
      try {
        const result = await call(session, "mcp.planter.act", { leave_behind: seconds });
        assert.equal(result.ok, true, result.error?.message);
        // Near miss: the process is there while the run lasts (the check sees it).
        let alive: number[] = [];
        for (let waited = 0; waited < 5000 && alive.length === 0; waited += 50) {
          alive = await processesWith(`sleep ${seconds}`);
          if (alive.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.notEqual(alive.length, 0, "the server's setsid sleep started");
      } finally {
        await session.close();
        await Deno.remove(workspace, { recursive: true });
      }
      assert.deepEqual(await survivorsAfter(`sleep ${seconds}`, 2000), []);
    },
  });

  Deno.test({
    name: `mcp server's usercustomize.py in its HOME does not run in a later python3 command ` +
      `when the server may not write (isolation ${isolation})`,
    ignore: problem(isolation) !== null,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const version = new TextDecoder().decode(
        (await new Deno.Command("/usr/bin/python3", {
          args: ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        }).output()).stdout,
      ).trim();
      const site = `.local/lib/python${version}/site-packages/usercustomize.py`;
      const { session, workspace } = await openPlanterRun(isolation, false, {
        commands: ["python3"],
      });
      const pwned = nodePath.join(workspace, "pwned");
      const hook = `open(${JSON.stringify(pwned)}, "w").write("usercustomize ran")\n`;
      const run = session.folder.dir;
      const serverHome = nodePath.join(run, "domains", "mcp-planter", "home");
      try {
        const planted = await call(session, "mcp.planter.act", {
          writes: [{ path: `~/${site}`, content: hook }],
        });
        assert.equal(planted.ok, true, planted.error?.message);
        // Near miss: the server uses its own HOME (a later call reads back what it wrote).
        const read = await call(session, "mcp.planter.act", { read: `~/${site}` });
        assert.match(read.output, /content open\(/);
        assert.ok(await exists(nodePath.join(serverHome, site)), "it is in the server's domain");
        if (isolation === "bwrap") {
          // The commands' HOME is not even visible to the server: a write by its path fails.
          const direct = await call(session, "mcp.planter.act", {
            writes: [{ path: nodePath.join(run, "home", site), content: hook }],
          });
          assert.match(direct.output, /failed: (EROFS|EACCES|EPERM|ENOENT)/);
        }
        const python = await call(session, "exec.run_command", {
          argv: ["python3", "-c", "print(1)"],
        });
        assert.equal(python.ok, true, python.error?.message);
        assert.equal(python.output.trim(), "1");
        assert.ok(!(await exists(pwned)), "the server's usercustomize.py ran in a command");
        assert.ok(!(await exists(nodePath.join(run, "home", site))), "it reached the commands");
        if (isolation === "bwrap") {
          // The server's domain is hidden from commands (the runs folder is in the workspace);
          // near miss: their own HOME is there.
          const look = await call(session, "exec.run_command", {
            argv: [
              "python3",
              "-c",
              `import os; print(os.path.exists(${
                JSON.stringify(nodePath.join(serverHome, site))
              }),` +
              ` os.path.isdir(os.environ["HOME"]))`,
            ],
          });
          assert.equal(look.output.trim(), "False True", look.error?.message);
        }
        // Control: with the server's HOME, python does run it.
        await new Deno.Command("/usr/bin/python3", {
          args: ["-c", "print(1)"],
          clearEnv: true,
          env: { PATH, HOME: serverHome },
          stdout: "null",
        }).output();
        assert.ok(await exists(pwned), "the control: usercustomize.py runs from its HOME");
      } finally {
        await session.close();
        await Deno.remove(workspace, { recursive: true });
      }
    },
  });
}

/** A job token as `actions/checkout` persists it in `.git/config`. */
const CHECKOUT_TOKEN = `ghs_${"Qm4xT9".repeat(6)}`;
const CHECKOUT_BASIC = btoa(`x-access-token:${CHECKOUT_TOKEN}`);

for (const isolation of ["bwrap", "none"] as const) {
  Deno.test({
    name:
      `mcp server reading a checkout's .git/config never gets the job token: the scrubbed view ` +
      `under bubblewrap, redaction everywhere (isolation ${isolation})`,
    ignore: problem(isolation) !== null,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const { session, workspace } = await openPlanterRun(isolation, false, {}, async (ws) => {
        await git(ws, "init", "-q", "-b", "main");
        await git(
          ws,
          "config",
          "http.https://github.com/.extraheader",
          `AUTHORIZATION: basic ${CHECKOUT_BASIC}`,
        );
      });
      try {
        const result = await call(session, "mcp.planter.act", {
          read: nodePath.join(workspace, ".git", "config"),
        });
        assert.equal(result.ok, true, result.output);
        const shown = JSON.stringify(result);
        for (const fragment of [CHECKOUT_TOKEN, CHECKOUT_BASIC, CHECKOUT_BASIC.slice(12, 40)]) {
          assert.ok(!shown.includes(fragment), `the server's read shows the token: ${shown}`);
        }
        // Near miss: the rest of the config is there: the server reads the repository's config,
        // not a masked, empty or unreadable file.
        assert.match(result.output, /content \[core\]/);
        assert.match(result.output, /repositoryformatversion/);
        if (isolation === "bwrap") {
          // The scrubbed view: the header line itself is gone, as for commands.
          assert.doesNotMatch(result.output, /extraheader/i);
        }
      } finally {
        await session.close();
      }
      try {
        await assertRunFolderClean(session.folder.dir, [CHECKOUT_TOKEN, CHECKOUT_BASIC]);
      } finally {
        await Deno.remove(workspace, { recursive: true });
      }
    },
  });
}
