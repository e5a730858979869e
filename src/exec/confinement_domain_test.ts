import assert from "node:assert/strict";
import * as nodePath from "node:path";
import {
  domainFolders,
  domainName,
  foreignDomainFolders,
  prepareDomains,
} from "./confinement_domain.ts";
import { confinementPlan, type ProfileInputs } from "./confinement_plan.ts";

async function withRun(body: (run: string) => Promise<void>): Promise<void> {
  const run = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-domains-" }));
  try {
    await body(run);
  } finally {
    await Deno.remove(run, { recursive: true });
  }
}

const ALL = [
  { kind: "commands" },
  { kind: "hooks" },
  { kind: "mcp", server: "a" },
  { kind: "mcp", server: "b" },
] as const;

Deno.test("domainName keeps a server id one path component when it holds a slash or dots", () => {
  assert.equal(domainName({ kind: "mcp", server: "../etc" }), "mcp-.._etc");
  assert.equal(domainName({ kind: "mcp", server: ".." }), "mcp-_");
  assert.equal(domainName({ kind: "mcp", server: "files-2" }), "mcp-files-2");
  assert.equal(domainName({ kind: "hooks" }), "hooks");
  assert.throws(() => domainFolders("runs/x", { kind: "hooks" }), TypeError);
});

Deno.test("foreignDomainFolders hides every other domain from a server, never its own", async () => {
  await withRun(async (run) => {
    await prepareDomains(run, ALL);
    const hidden = foreignDomainFolders(run, { kind: "mcp", server: "a" }, [run]);
    assert.deepEqual(hidden, [
      nodePath.join(run, "domains", "hooks"),
      nodePath.join(run, "domains", "mcp-b"),
      nodePath.join(run, "home"),
      nodePath.join(run, "tmp"),
    ]);
    // The commands hide the domains folder as a whole; their own home stays.
    assert.deepEqual(foreignDomainFolders(run, { kind: "commands" }, [run]), [
      nodePath.join(run, "domains"),
    ]);
  });
});

Deno.test("foreignDomainFolders hides nothing the sandbox does not mount (near miss: a mounted run)", async () => {
  await withRun(async (run) => {
    await prepareDomains(run, ALL);
    assert.deepEqual(foreignDomainFolders(run, { kind: "mcp", server: "a" }, ["/srv/other"]), []);
    assert.notDeepEqual(foreignDomainFolders(run, { kind: "mcp", server: "a" }, [run]), []);
  });
});

Deno.test("confinementPlan masks the other domains of a mounted run, and none without a run", async () => {
  await withRun(async (run) => {
    const [, , own] = await prepareDomains(run, ALL);
    const profile: ProfileInputs = {
      bwrapPath: "/usr/bin/bwrap",
      system: [],
      writeRoots: [],
      readRoots: [run],
      protectedPaths: [],
      writableExceptions: [],
      programFolders: [],
      skillDirs: [],
      home: own?.home ?? "",
      tmpDir: own?.tmpDir ?? "",
      sensitiveMatch: () => null,
      unmasked: [],
      gitWrite: false,
      network: false,
      processLimit: null,
      scanExclusions: [],
    };
    const domain = { kind: "mcp", server: "a" } as const;
    const planned = confinementPlan({ domain, runDir: run, profile });
    assert.ok(planned.ok);
    const masked = (planned.plan.maskedPaths ?? []).map((mask) => mask.path);
    assert.ok(masked.includes(nodePath.join(run, "home")), masked.join());
    assert.ok(!masked.some((path) => path.includes("mcp-a")), "its own domain stays");
    assert.ok(planned.plan.writablePaths.includes(own?.home ?? ""), "its own HOME is writable");
    const bare = confinementPlan({ domain, runDir: null, profile });
    assert.ok(bare.ok);
    assert.deepEqual(bare.plan.maskedPaths, []);
  });
});
