import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { normaliseRemoteUrl, projectIdentity } from "./project_identity.ts";

Deno.test("normaliseRemoteUrl gives one name when checkouts of one repository spell the URL differently", () => {
  const same = [
    "git@github.com:acme/api.git",
    "git@GitHub.com:acme/api",
    "ssh://git@github.com:22/acme/api.git",
    "https://github.com/acme/api",
    "https://github.com/acme/api.git/",
    "https://x-access-token:ghs_secret@github.com/acme/api.git",
    "git://github.com/acme/api.git",
  ];
  for (const url of same) assert.equal(normaliseRemoteUrl(url), "github.com/acme/api", url);
  // Near misses: another owner, another host, another path case are other projects.
  assert.equal(normaliseRemoteUrl("git@github.com:someone/api.git"), "github.com/someone/api");
  assert.equal(normaliseRemoteUrl("git@gitlab.com:acme/api.git"), "gitlab.com/acme/api");
  assert.equal(normaliseRemoteUrl("https://github.com/acme/API"), "github.com/acme/API");
  // Local remotes keep their path; an empty URL has no name.
  assert.equal(normaliseRemoteUrl("/srv/git/api.git"), "file:srv/git/api");
  assert.equal(normaliseRemoteUrl("file:///srv/git/api.git"), "file:srv/git/api");
  assert.equal(normaliseRemoteUrl("  "), null);
});

/** Builds `root/<path>` files from a map of relative paths to contents. */
async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(nodePath.dirname(nodePath.join(root, path)), { recursive: true });
    await Deno.writeTextFile(nodePath.join(root, path), text);
  }
}

Deno.test("projectIdentity reads the origin when the workspace is a subfolder of a worktree", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-identity-" }));
  try {
    await writeFiles(root, {
      // The main repository's config; `# comment` and quotes as git writes them.
      "main/.git/config": '[core]\n\tbare = false\n[remote "upstream"]\n\turl = git@x.org:u/u\n' +
        '[remote "origin"]\n\turl = "git@github.com:acme/api.git" # the origin\n',
      "main/.git/worktrees/feature/commondir": "../..\n",
      "feature/.git": `gitdir: ${root}/main/.git/worktrees/feature\n`,
      "feature/src/app/README.md": "app\n",
    });
    const inWorktree = await projectIdentity(nodePath.join(root, "feature/src/app"), null);
    assert.deepEqual([inWorktree.source, inWorktree.value], ["git_origin", "github.com/acme/api"]);
    const inMain = await projectIdentity(nodePath.join(root, "main"), null);
    assert.equal(inMain.key, inWorktree.key);
    assert.match(inMain.key, /^[0-9a-f]{32}$/);
    // A configured id wins over the origin, and differs from it.
    const pinned = await projectIdentity(nodePath.join(root, "main"), "acme-api");
    assert.deepEqual([pinned.source, pinned.value], ["config", "acme-api"]);
    assert.notEqual(pinned.key, inMain.key);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("projectIdentity falls back to the repository's top folder, then the workspace, when there is no origin", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-identity-" }));
  try {
    await writeFiles(root, {
      "repo/.git/config": '[remote "upstream"]\n\turl = git@github.com:acme/api.git\n',
      "repo/docs/index.md": "docs\n",
      "plain/notes.md": "notes\n",
    });
    const repository = await projectIdentity(nodePath.join(root, "repo/docs"), null);
    assert.deepEqual([repository.source, repository.value], ["git_root", `${root}/repo`]);
    const plain = await projectIdentity(nodePath.join(root, "plain"), null);
    assert.deepEqual([plain.source, plain.value], ["workspace", `${root}/plain`]);
    assert.notEqual(plain.key, repository.key);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
