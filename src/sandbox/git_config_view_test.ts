import assert from "node:assert/strict";
import { isGitConfigPath, presentedText, scrubGitConfig } from "./git_config_view.ts";

Deno.test("scrubGitConfig drops extraheaders, credential sections and URL userinfo", () => {
  const config = [
    "[core]",
    "\tbare = false",
    '[http "https://github.com/"]',
    "\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3NlY3JldA==",
    "[http]",
    "\tExtraHeader = X-Token: one \\",
    "\t  continued-secret",
    "\tsslVerify = true",
    '[credential "https://example.com"]',
    "\thelper = store --file /home/u/.secret",
    "\tusername = someone",
    '[remote "origin"]',
    "\turl = https://user:pa55word@example.com/o/r.git",
    "\tfetch = +refs/heads/*:refs/remotes/origin/*",
    '[url "https://token:abc@mirror.example/"]',
    "\tinsteadOf = https://example.com/",
    "",
  ].join("\n");
  const { text, removed } = scrubGitConfig(config);
  for (
    const secret of [
      "eC1hY2Nl",
      "one",
      "continued-secret",
      ".secret",
      "someone",
      "pa55word",
      "abc@",
    ]
  ) {
    assert.ok(!text.includes(secret), `"${secret}" is still shown`);
  }
  assert.equal(removed, 8);
  // Near miss: everything else is kept as it was.
  for (
    const kept of [
      "[core]",
      "\tbare = false",
      "\tsslVerify = true",
      "\turl = https://example.com/o/r.git",
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      '[url "https://mirror.example/"]',
      "\tinsteadOf = https://example.com/",
    ]
  ) {
    assert.ok(text.includes(kept), `"${kept}" is gone`);
  }
});

Deno.test("scrubGitConfig returns a config without credentials unchanged", () => {
  const config =
    '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = git@github.com:o/r.git\n';
  assert.deepEqual(scrubGitConfig(config), { text: config, removed: 0 });
});

Deno.test("presentedText scrubs repository configs only", () => {
  assert.equal(isGitConfigPath("/w/.git/config"), true);
  assert.equal(isGitConfigPath(".git/config"), true);
  assert.equal(isGitConfigPath("/srv/repo.git/config"), true);
  assert.equal(isGitConfigPath("/w/config"), false);
  assert.equal(isGitConfigPath("/w/.git/configs"), false);
  const text = "url = https://u:p@h/x\n";
  assert.equal(presentedText("/w/notes.txt", text), text);
  assert.equal(presentedText("/w/.git/config", text), "url = https://h/x\n");
});
