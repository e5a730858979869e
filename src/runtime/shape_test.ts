import assert from "node:assert/strict";
import { ArtifactStore, Redactor } from "../audit/mod.ts";
import { failure, success } from "../result/tool_result.ts";
import { shape } from "./shape.ts";

async function store() {
  const runDir = await Deno.makeTempDir();
  await Deno.mkdir(`${runDir}/artifacts`);
  return {
    runDir,
    artifacts: new ArtifactStore({
      artifactsDir: `${runDir}/artifacts`,
      runDir,
      maxBytes: 1 << 20,
    }),
  };
}

Deno.test("shape redacts secrets and keeps an output above the cap whole as an artifact", async () => {
  const { runDir, artifacts } = await store();
  try {
    const redactor = new Redactor({ secrets: ["canary-secret-123"] });
    const big = "x".repeat(5000) + " canary-secret-123";
    const shaped = await shape(success("ok canary-secret-123", big), redactor, artifacts, 1000);
    assert.doesNotMatch(JSON.stringify(shaped.outcome), /canary-secret-123/);
    assert.equal(shaped.artifacts.length, 1);
    assert.match(
      shaped.outcome.output,
      /output cut at 1000 of \d+ bytes; full output in artifacts\//,
    );
    const stored = await Deno.readTextFile(`${runDir}/${shaped.artifacts[0]?.ref}`);
    assert.doesNotMatch(stored, /canary-secret-123/);
    const small = await shape(success("ok", "short"), redactor, artifacts, 1000);
    assert.deepEqual(small.artifacts, []);
  } finally {
    await Deno.remove(runDir, { recursive: true });
  }
});

Deno.test("shape keeps the partial output of an aborted call as an artifact, however small", async () => {
  const { runDir, artifacts } = await store();
  try {
    const outcome = {
      ...failure("aborted", "Cannot finish: aborted", { aborted: true }),
      output: "partial lines\n",
    };
    const shaped = await shape(outcome, new Redactor({ secrets: [] }), artifacts, 1000);
    assert.equal(shaped.artifacts.length, 1);
    assert.equal(
      await Deno.readTextFile(`${runDir}/${shaped.artifacts[0]?.ref}`),
      "partial lines\n",
    );
  } finally {
    await Deno.remove(runDir, { recursive: true });
  }
});
