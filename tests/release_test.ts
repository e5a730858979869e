// The release (issue 17 §3), as far as it can be checked here (compiling downloads a runtime from
// outside the npm registry): .github/workflows/release.yml is valid YAML naming the five targets,
// and its compile step, run with a stand-in `deno`, builds exactly the compile task's command for
// each; the bundle, run with exactly the compile task's flags, passes the CLI's main paths.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { parse } from "yaml";
import { createProject, onlyRunDir, repository, taskFlags } from "./_cli_helpers.ts";
import { buildBundle } from "../tools/bundle.ts";

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string[];
  strategy?: { matrix: { target: string[] } };
  steps: Step[];
  permissions?: Record<string, string>;
}
interface Workflow {
  on: { push: { tags: string[] } };
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = parse(
  await Deno.readTextFile(nodePath.join(repository, ".github/workflows/release.yml")),
) as Workflow;
const denoJson = JSON.parse(await Deno.readTextFile(nodePath.join(repository, "deno.json")));

/** The words of a deno.json task. */
const taskWords = (task: string): string[] => (denoJson.tasks[task] as string).split(/\s+/);

Deno.test("release.yml runs on a tag push and compiles, bundles, checksums and releases the five targets", () => {
  assert.deepEqual(workflow.on.push.tags, ["v*"]);
  assert.equal(workflow.env.DENO_VERSION, "2.9.6");
  const { compile, bundle, release } = workflow.jobs;
  assert.deepEqual(compile?.strategy?.matrix.target, TARGETS);
  const runs = (job: Job | undefined) => job?.steps.map((step) => step.run ?? "").join("\n") ?? "";
  for (const job of [compile, bundle]) {
    assert.match(runs(job), /npm install -g "deno@\$\{DENO_VERSION\}"/);
    assert.match(runs(job), /sha256sum /);
    assert.ok(job?.steps.some((step) => /^actions\/upload-artifact@v\d+$/.test(step.uses ?? "")));
  }
  assert.match(runs(bundle), /^deno task bundle$/m);
  assert.match(runs(bundle), /tar -czf release\/kagent-run-bundle\.tar\.gz -C dist \./);
  assert.deepEqual(release?.needs, ["compile", "bundle"]);
  assert.equal(release?.permissions?.contents, "write");
  assert.match(runs(release), /sha256sum --check --strict \*\.sha256/);
  assert.match(runs(release), />SHA256SUMS/);
  assert.match(runs(release), /gh release create "\$GITHUB_REF_NAME"/);
});

Deno.test("release.yml's compile step builds exactly the compile task's command for each target", async () => {
  const step = workflow.jobs.compile?.steps.find((candidate) =>
    /deno compile/.test(candidate.run ?? "")
  );
  assert.ok(step?.run, "a step runs deno compile");
  // Every word of the compile task but "deno compile" and its --output: flags, includes, entry.
  const words = taskWords("compile");
  assert.deepEqual(words.slice(0, 2), ["deno", "compile"]);
  const output = words.indexOf("--output");
  const kept = words.slice(2).filter((_word, index) =>
    index + 2 !== output && index + 2 !== output + 1
  );
  for (const flag of taskFlags("compile")) assert.ok(kept.includes(flag), flag);
  assert.ok(kept.includes("--include") && kept.at(-1) === "main.ts");

  const folder = await Deno.makeTempDir();
  try {
    await Deno.copyFile(nodePath.join(repository, "deno.json"), nodePath.join(folder, "deno.json"));
    const bin = nodePath.join(folder, "bin");
    await Deno.mkdir(bin);
    // A stand-in deno: writes its arguments, one a line, and the output file it was asked for.
    await Deno.writeTextFile(
      nodePath.join(bin, "deno"),
      '#!/usr/bin/env bash\nprintf "%s\\n" "$@" >"$ARGS_FILE"\n' +
        'while [ $# -gt 0 ]; do if [ "$1" = --output ]; then : >"$2"; fi; shift; done\n',
      { mode: 0o755 },
    );
    for (const target of TARGETS) {
      const argsFile = nodePath.join(folder, `${target}.args`);
      const githubEnv = nodePath.join(folder, `${target}.env`);
      const result: Deno.CommandOutput = await new Deno.Command("bash", {
        args: ["-c", step.run as string],
        cwd: folder,
        env: {
          PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
          TARGET: target,
          ARGS_FILE: argsFile,
          GITHUB_ENV: githubEnv,
        },
      }).output();
      assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
      const name = `kagent-run-${target}${target.includes("windows") ? ".exe" : ""}`;
      const argv = (await Deno.readTextFile(argsFile)).trimEnd().split("\n");
      assert.deepEqual(argv, [
        "compile",
        "--target",
        target,
        "--output",
        `release/${name}`,
        ...kept,
      ]);
      assert.equal(await Deno.readTextFile(githubEnv), `ASSET=${name}\n`);
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

/** Builds the bundle as `deno task bundle` does, into `folder` instead of dist/. */
async function bundleInto(folder: string): Promise<void> {
  assert.equal(
    denoJson.tasks.bundle,
    "deno run --allow-read --allow-write --allow-run --allow-env tools/bundle.ts dist",
  );
  await buildBundle(folder);
}

Deno.test("the bundle, run with exactly the compile task's flags, runs the demo, a model over the network Worker, tools, policy and call", async () => {
  const dist = await Deno.makeTempDir({ prefix: "kagent-bundle-" });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      Response.json({
        choices: [{
          index: 0,
          message: { role: "assistant", content: "Answered over the network Worker." },
          finish_reason: "stop",
        }],
        usage: { prompt_tokens: 3, completion_tokens: 2 },
      }),
  );
  try {
    await bundleInto(dist);
    const plan = await Deno.readTextFile(
      nodePath.join(repository, "skills/survey-repository/plan.jsonl"),
    );
    await using project = await createProject({
      plan: plan.trimEnd().split("\n"),
      config: { commands: ["git"], skills: { dirs: [nodePath.join(repository, "skills")] } },
      permissions: JSON.parse(
        await Deno.readTextFile(nodePath.join(repository, "permissions.json")),
      ),
    });
    const bundled = async (args: string[], env: Record<string, string> = {}) => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...taskFlags("compile"), nodePath.join(dist, "kagent-run.js"), ...args],
        cwd: project.sandbox.root,
        env: { NO_COLOR: "1", ...env },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return {
        code: output.code,
        stdout: new TextDecoder().decode(output.stdout),
        stderr: new TextDecoder().decode(output.stderr),
      };
    };

    // The scripted demo: every tool call goes through the bundled tool Worker.
    const demo = await bundled(["--config", project.configPath]);
    // The demo's three refusals ask nobody: exit 0 (git log fails: the workspace is no repository).
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stderr, /9 tool calls, 3 denied, 1 failed/);
    const runDir = await onlyRunDir(project);
    assert.match(
      await Deno.readTextFile(nodePath.join(runDir, "deliverables/report.md")),
      /README\.md/,
    );

    const tools = await bundled(["tools", "--config", project.configPath, "--json"]);
    assert.equal(tools.code, 0, tools.stderr);
    const listed = JSON.parse(tools.stdout) as { name: string }[];
    assert.ok(listed.some((tool) => tool.name === "fs.read_file"), tools.stdout);

    const policy = await bundled(["policy", "--config", project.configPath, "--json"]);
    assert.equal(policy.code, 0, policy.stderr);
    assert.match(policy.stdout, /"fs\.write_file"/);

    const call = await bundled([
      "call",
      "fs.read_file",
      '{"path":"README.md"}',
      "--config",
      project.configPath,
    ]);
    assert.equal(call.code, 0, call.stderr);
    assert.match(JSON.parse(call.stdout).output, /A small project\./);

    // A model over HTTP: the bundled network Worker carries the request.
    const config = nodePath.join(project.configDir, "model.jsonc");
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        workspace: "../workspace",
        runs_dir: "../runs-model",
        task: "Say something",
        model: {
          provider: "openai",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          retries: 0,
        },
      }),
    );
    const model = await bundled(["--config", config, "--output", "stream-json"]);
    assert.equal(model.code, 0, model.stderr);
    const last = JSON.parse(model.stdout.trimEnd().split("\n").at(-1) as string);
    assert.deepEqual([last.type, last.final_text], [
      "run.ended",
      "Answered over the network Worker.",
    ]);
  } finally {
    await server.shutdown();
    await Deno.remove(dist, { recursive: true });
  }
});

/** Runs one step's script with bash in `cwd`. */
async function runStep(step: Step | undefined, cwd: string, env: Record<string, string> = {}) {
  assert.ok(step?.run, "the step has a script");
  const output = await new Deno.Command("bash", {
    args: ["-c", step.run],
    cwd,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

const stepNamed = (job: string, name: string) =>
  workflow.jobs[job]?.steps.find((step) => step.name === name);

Deno.test("release.yml's checksum steps write SHA256SUMS for every asset, and a file changed after its job refuses the release", async () => {
  const folder = await Deno.makeTempDir();
  try {
    // Two compile jobs and the bundle job, each in its own folder, as on separate runners.
    const merged = nodePath.join(folder, "merged", "release");
    await Deno.mkdir(merged, { recursive: true });
    for (
      const asset of [
        "kagent-run-x86_64-unknown-linux-gnu",
        "kagent-run-x86_64-pc-windows-msvc.exe",
      ]
    ) {
      const job = nodePath.join(folder, asset);
      await Deno.mkdir(nodePath.join(job, "release"), { recursive: true });
      await Deno.writeTextFile(nodePath.join(job, "release", asset), `binary ${asset}\n`);
      const result = await runStep(stepNamed("compile", "Checksum"), job, { ASSET: asset });
      assert.equal(result.code, 0, result.stderr);
      for (const name of [asset, `${asset}.sha256`]) {
        await Deno.copyFile(nodePath.join(job, "release", name), nodePath.join(merged, name));
      }
    }
    const bundleJob = nodePath.join(folder, "bundle");
    await Deno.mkdir(nodePath.join(bundleJob, "dist"), { recursive: true });
    // The bundle folder's shape (tools/bundle.ts): the entry and chunks on top, Worker entries below.
    await Deno.mkdir(nodePath.join(bundleJob, "dist", "src", "worker"), { recursive: true });
    for (const name of ["kagent-run.js", "chunk-A.js", "src/worker/worker_main.js"]) {
      await Deno.writeTextFile(nodePath.join(bundleJob, "dist", name), `// ${name}\n`);
    }
    const bundled = await runStep(stepNamed("bundle", "Archive and checksum"), bundleJob);
    assert.equal(bundled.code, 0, bundled.stderr);
    const listing = await new Deno.Command("tar", {
      args: ["-tzf", nodePath.join(bundleJob, "release", "kagent-run-bundle.tar.gz")],
      stdout: "piped",
    }).output();
    const packed = new TextDecoder().decode(listing.stdout).split("\n");
    for (const name of ["./kagent-run.js", "./chunk-A.js", "./src/worker/worker_main.js"]) {
      assert.ok(packed.includes(name), `${name} is not in the archive: ${packed.join(", ")}`);
    }
    for (const name of ["kagent-run-bundle.tar.gz", "kagent-run-bundle.tar.gz.sha256"]) {
      await Deno.copyFile(nodePath.join(bundleJob, "release", name), nodePath.join(merged, name));
    }
    // A copy to tamper with: the same files, one asset changed after its job hashed it.
    const tampered = nodePath.join(folder, "tampered", "release");
    await Deno.mkdir(tampered, { recursive: true });
    for await (const entry of Deno.readDir(merged)) {
      await Deno.copyFile(nodePath.join(merged, entry.name), nodePath.join(tampered, entry.name));
    }
    await Deno.writeTextFile(
      nodePath.join(tampered, "kagent-run-x86_64-unknown-linux-gnu"),
      "swapped\n",
    );

    const checksums = stepNamed("release", "Checksums");
    const released = await runStep(checksums, nodePath.dirname(merged));
    assert.equal(released.code, 0, released.stderr);
    const sums = await Deno.readTextFile(nodePath.join(merged, "SHA256SUMS"));
    assert.deepEqual(sums.trimEnd().split("\n").map((line) => line.split(/\s+/)[1]), [
      "kagent-run-bundle.tar.gz",
      "kagent-run-x86_64-pc-windows-msvc.exe",
      "kagent-run-x86_64-unknown-linux-gnu",
    ]);
    const check = await new Deno.Command("sha256sum", {
      args: ["--check", "--strict", "SHA256SUMS"],
      cwd: merged,
    }).output();
    assert.equal(check.code, 0, "SHA256SUMS checks against the assets");
    const left = (await Array.fromAsync(Deno.readDir(merged))).map((entry) => entry.name);
    assert.ok(!left.some((name) => name.endsWith(".sha256")), left.join(","));

    const refused = await runStep(checksums, nodePath.dirname(tampered));
    assert.notEqual(refused.code, 0, "a changed asset stops the release");
    assert.equal(
      await Deno.stat(nodePath.join(tampered, "SHA256SUMS")).then(() => true, () => false),
      false,
    );
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
