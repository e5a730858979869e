/**
 * The argument policy without per-program grammars: what each argv means now. An attack that a
 * grammar once reported (`git -c`, `rg --pre`, `sed -i`, `tar --to-command`…) is not known-safe:
 * without an allow rule naming its program it asks, and under bubblewrap the kernel bounds what
 * it can reach (the effect tests are in tests/command_attacks_test.ts and
 * tests/kernel_boundary_test.ts). Interpreters and wrappers still give their
 * `unrestricted_execution` finding; near misses give no finding.
 */
import assert from "node:assert/strict";
import { analyzeArgv, argumentValues, programKey } from "./argv_analysis.ts";
import { isKnownSafeCommand } from "./known_safe_command.ts";

/** `"<kind> <id> <index>"`, e.g. `"file_write argv:git:output 2"`: the finding a grammar gave. */
type Expected = string;
type Attack = [argv: string[], expected: Expected];

const HOME = "/home/user";

/** Every finding of `argv` as `"<kind> <id> <index>"`. */
function summary(argv: readonly string[]): string[] {
  return analyzeArgv(argv).map(({ kind, id, index }) => `${kind} ${id} ${index}`);
}

/**
 * The attack is stopped by the policy: an unrestricted program gives its finding; any other
 * attack a grammar once reported is not known-safe, so it asks unless a rule names its program.
 */
function assertReports(argv: readonly string[], expected: Expected): void {
  const [kind, id, index] = expected.split(" ");
  if (kind !== "unrestricted_execution") {
    assert.equal(
      isKnownSafeCommand(argv),
      false,
      `${JSON.stringify(argv)} (once ${id}) must not be known-safe`,
    );
    return;
  }
  const found = analyzeArgv(argv).some((finding) =>
    finding.kind === kind && finding.id === id && finding.index === Number(index)
  );
  assert.ok(
    found,
    `${JSON.stringify(argv)} must report ${kind} ${id} at ${index}: ${
      JSON.stringify(summary(argv))
    }`,
  );
}

/** The near miss gives no finding at all. */
function assertClean(argv: readonly string[]): void {
  assert.deepEqual(analyzeArgv(argv), [], `${JSON.stringify(argv)} must stay clean`);
}

function checkPairs(attacks: readonly Attack[], nearMisses: readonly string[][]): void {
  for (const [argv, expected] of attacks) assertReports(argv, expected);
  for (const argv of nearMisses) assertClean(argv);
}

const UNRESTRICTED = (id: string): Expected => `unrestricted_execution ${id} 0`;

Deno.test("analyzeArgv reports unrestricted execution when CASES.md wrappers and interpreters run", () => {
  const attacks: string[][] = [
    ["bash", "-c", "touch /tmp/p"],
    ["sh", "-c", "touch /tmp/p"],
    ["env", "rm", "-rf", "/"],
    ["xargs", "rm"],
    ["python3", "-c", "import os; os.system('id')"],
    ["node", "-e", "require('child_process').execSync('id')"],
    ["deno", "eval", "Deno.exit(0)"],
    ["bash", "--version"],
    ["env"],
  ];
  for (const argv of attacks) {
    const findings = analyzeArgv(argv);
    assert.equal(findings.length, 1, JSON.stringify(summary(argv)));
    assert.equal(findings[0]?.kind, "unrestricted_execution");
    assert.equal(findings[0]?.index, 0);
    assert.equal(findings[0]?.argument, argv[0]);
  }
  // Near misses: bounded programs given the same arguments.
  for (
    const argv of [
      ["echo", "-c", "touch /tmp/p"],
      ["cat", "-e", "rm"],
      ["ls", "eval"],
      ["grep", "-e", "python3", "src"],
      ["echo", "$(touch /tmp/p)", "`id`", "a\ntouch /tmp/p"],
    ]
  ) assertClean(argv);
});

Deno.test("analyzeArgv reports every program group the brief names when run bare", () => {
  const names =
    ("sh bash dash zsh ksh mksh fish csh tcsh busybox python python2 python3 python3.11 pypy " +
      "node nodejs bun deno perl ruby php lua luajit tclsh wish Rscript julia osascript pwsh " +
      "powershell env xargs nice nohup timeout stdbuf setsid sudo doas su chroot unshare nsenter " +
      "strace ltrace gdb time watch flock script expect make npx npm pnpm yarn awk gawk mawk " +
      "nawk vim vi nvim emacs ed ex ssh scp docker kubectl coreutils toybox less pytest vitest " +
      "jest").split(" ");
  for (const name of names) {
    assert.equal(analyzeArgv([name])[0]?.kind, "unrestricted_execution", name);
  }
});

Deno.test("analyzeArgv matches unrestricted programs when spelled by path, case, version or extension", () => {
  checkPairs(
    [
      [["/usr/bin/python3.12", "-c", "x"], UNRESTRICTED("argv:interpreter")],
      [["python3.13t"], UNRESTRICTED("argv:interpreter")],
      [["C:\\Python\\PYTHON.EXE"], UNRESTRICTED("argv:interpreter")],
      [["/bin/BASH", "-c", "id"], UNRESTRICTED("argv:shell")],
      [["/usr/bin/vim.basic"], UNRESTRICTED("argv:editor")],
      [["perl5.36.0", "-e", "x"], UNRESTRICTED("argv:interpreter")],
      [["lua5.4"], UNRESTRICTED("argv:interpreter")],
      [["pip-3.11", "install", "x"], UNRESTRICTED("argv:build-tool")],
      [["/bin/busybox", "sh"], UNRESTRICTED("argv:multi-call")],
    ],
    [["shellcheck", "a.sh"], ["envsubst"], ["nodemon"], ["makeself"], ["pythonista"], [
      "/usr/bin/bashful",
    ]],
  );
});

Deno.test("analyzeArgv reports git global options when they set config or move the repository", () => {
  checkPairs(
    [
      [["git", "-c", "core.pager=touch /tmp/p", "log"], "code_execution argv:git:config-option 1"],
      [
        ["git", "-ccore.sshCommand=touch /tmp/p", "fetch"],
        "code_execution argv:git:config-option 1",
      ],
      [["git", "--config-env=core.pager=EVIL", "log"], "code_execution argv:git:config-option 1"],
      [
        ["git", "--config-env", "core.pager=EVIL", "log"],
        "code_execution argv:git:config-option 1",
      ],
      [["git", "--exec-path=/tmp/evil", "status"], "code_execution argv:git:exec-path 1"],
      [["git", "-p", "log"], "code_execution argv:git:pager 1"],
      [["git", "--paginate", "log"], "code_execution argv:git:pager 1"],
      [["git", "-C", "/elsewhere", "status"], "unchecked argv:git:repository-location 1"],
      [["git", "--git-dir=/x/.git", "log"], "unchecked argv:git:repository-location 1"],
      [["git", "--work-tree", "/x", "status"], "unchecked argv:git:repository-location 1"],
      [["git", "--bare", "log"], "unchecked argv:git:repository-location 1"],
      [["git", "--namespace=x", "log"], "unchecked argv:git:repository-location 1"],
      [["git", "--list-cmds=main"], "unchecked argv:git:global-option 1"],
      [["git", "--frobnicate", "status"], "unchecked argv:git:global-option 1"],
    ],
    [
      ["git", "--no-pager", "log", "--oneline"],
      ["git", "-P", "status"],
      ["git", "--literal-pathspecs", "--no-optional-locks", "status"],
      ["git", "--version"],
      ["git", "--exec-path"],
      ["git", "--help"],
    ],
  );
});

Deno.test("analyzeArgv analyzes the git subcommand when global options take values", () => {
  for (
    const expected of [
      "code_execution argv:git:config-option 1",
      "unchecked argv:git:repository-location 3",
      "file_write argv:git:output 6",
    ]
  ) assertReports(["git", "-c", "a.b=c", "-C", "/x", "diff", "--output=/y"], expected);
  assert.deepEqual(summary(["git", "-c", "a.b=c", "-C", "/x", "diff", "--output=/y"]), []);
  // The value of -c is not mistaken for the subcommand.
  assertReports(
    ["git", "-c", "x=y", "clone", "--upload-pack=x", "u"],
    "code_execution argv:git:upload-pack 4",
  );
});

Deno.test("analyzeArgv reports git long options when abbreviated to a unique prefix", () => {
  checkPairs(
    [
      [
        ["git", "clone", "--upload-pack=touch /tmp/p", "u", "d"],
        "code_execution argv:git:upload-pack 2",
      ],
      [["git", "clone", "--upload-p=touch /tmp/p", "u"], "code_execution argv:git:upload-pack 2"],
      [
        ["git", "clone", "--upload-pa", "touch /tmp/p", "u"],
        "code_execution argv:git:upload-pack 2",
      ],
      [["git", "clone", "--u=touch /tmp/p", "u"], "code_execution argv:git:upload-pack 2"],
      [["git", "fetch", "--upload-pack", "x", "origin"], "code_execution argv:git:upload-pack 2"],
      [["git", "ls-remote", "--upload-pack=x", "u"], "code_execution argv:git:upload-pack 2"],
      [["git", "push", "--receive-pack=x", "origin"], "code_execution argv:git:receive-pack 2"],
      [["git", "push", "--receive", "x", "origin"], "code_execution argv:git:receive-pack 2"],
      [["git", "push", "--exec=x", "origin"], "code_execution argv:git:exec 2"],
      [["git", "archive", "--remote=u", "--exec=x", "HEAD"], "code_execution argv:git:exec 3"],
      [["git", "rebase", "--exec=touch /tmp/p", "HEAD~1"], "code_execution argv:git:exec 2"],
      [["git", "rebase", "--ex", "touch /tmp/p", "HEAD~1"], "code_execution argv:git:exec 2"],
    ],
    [
      ["git", "fetch", "--unshallow"],
      ["git", "fetch", "--update-head-ok", "origin"],
      ["git", "log", "--exclude=refs/x", "--all"],
      ["git", "push", "--set-upstream", "origin", "main"],
      ["git", "clone", "--depth", "1", "https://example.com/r.git"],
    ],
  );
});

Deno.test("analyzeArgv reports git file writes when --output or -o names a file", () => {
  checkPairs(
    [
      [["git", "diff", `--output=${HOME}/.bashrc`], "file_write argv:git:output 2"],
      [["git", "diff", "--output", `${HOME}/.bashrc`], "file_write argv:git:output 2"],
      [["git", "diff", "--outp=x"], "file_write argv:git:output 2"],
      [["git", "log", "-p", "--output=x"], "file_write argv:git:output 3"],
      [["git", "archive", "-o", "/tmp/a.tar", "HEAD"], "file_write argv:git:output 2"],
      [["git", "format-patch", "-o", "/tmp", "--stdout"], "file_write argv:git:output 2"],
      [["git", "format-patch", "HEAD~1"], "file_write argv:git:writes-files 1"],
      [["git", "bundle", "create", "/tmp/b", "HEAD"], "file_write argv:git:writes-files 1"],
      [["git", "bugreport"], "file_write argv:git:writes-files 1"],
    ],
    [
      ["git", "status"],
      ["git", "log", "--oneline", "-5"],
      ["git", "diff", "--stat"],
      ["git", "diff", "--", "a.txt"],
      ["git", "show", "HEAD:README.md"],
      ["git", "log", "--output-indicator-new=+", "-p"],
      ["git", "format-patch", "--stdout", "HEAD~1"],
      ["git", "bundle", "verify", "b.bundle"],
      ["git", "checkout-index", "--temp", "a.txt"],
      ["git", "archive", "HEAD"],
    ],
  );
});

Deno.test("analyzeArgv reports git options that run code when given to a bounded subcommand", () => {
  checkPairs(
    [
      [["git", "diff", "--ext-diff"], "code_execution argv:git:ext-diff 2"],
      [["git", "log", "-p", "--textconv"], "code_execution argv:git:textconv 3"],
      [["git", "grep", "-Ocat", "x"], "code_execution argv:git:pager 2"],
      [["git", "grep", "--open-files-in-pager=cat", "x"], "code_execution argv:git:pager 2"],
      [["git", "rebase", "-x", "touch /tmp/p", "HEAD~1"], "code_execution argv:git:exec 2"],
      [["git", "rebase", "-ix", "id", "HEAD~1"], "code_execution argv:git:exec 2"],
      [["git", "clone", "-u", "touch /tmp/p", "u"], "code_execution argv:git:upload-pack 2"],
      [["git", "clone", "-c", "core.fsmonitor=id", "u"], "code_execution argv:git:config-option 2"],
      [
        ["git", "clone", "--config", "core.fsmonitor=id", "u"],
        "code_execution argv:git:config-option 2",
      ],
      [["git", "clone", "--template=/tmp/t", "u"], "code_execution argv:git:template 2"],
      [["git", "init", "--template", "/tmp/t"], "code_execution argv:git:template 2"],
      [["git", "help", "--web", "log"], "code_execution argv:git:help-browser 2"],
      [["git", "--help", "-w", "log"], "code_execution argv:git:help-browser 2"],
    ],
    [
      ["git", "diff", "--text"],
      ["git", "diff", "--no-ext-diff", "--no-textconv"],
      ["git", "grep", "-e", "-c"],
      ["git", "grep", "-o", "-n", "pattern"],
      ["git", "rebase", "-i", "HEAD~2"],
      ["git", "commit", "--template=msg.txt"],
      ["git", "help", "log"],
      ["git", "fetch", "-u", "origin"],
      ["git", "push", "-u", "origin", "main"],
    ],
  );
});

Deno.test("analyzeArgv reports git subcommands when they run commands or write config", () => {
  const runs = (
    argv: string[],
    index = 1,
  ): Attack => [argv, `code_execution argv:git:runs-commands ${index}`];
  checkPairs(
    [
      runs(["git", "submodule", "foreach", "touch /tmp/p"]),
      runs(["git", "submodule", "--quiet", "foreach", "id"]),
      runs(["git", "bisect", "run", "./test.sh"]),
      runs(["git", "filter-branch", "--tree-filter", "id"]),
      runs(["git", "difftool", "-x", "id"]),
      runs(["git", "mergetool"]),
      runs(["git", "daemon", "--export-all"]),
      runs(["git", "instaweb"]),
      runs(["git", "web--browse", "http://x"]),
      runs(["git", "credential", "fill"]),
      runs(["git", "credential-store", "get"]),
      runs(["git", "hook", "run", "pre-commit"]),
      runs(["git", "remote-ext", "origin", "sh -c id"]),
      runs(["git", "maintenance", "start"]),
      runs(["git-shell", "-c", "id"], 0),
      runs(["/usr/lib/git-core/git-credential-cache", "get"], 0),
      [["git", "config", "core.pager", "touch /tmp/p"], "code_execution argv:git:config-write 1"],
      [["git", "config", "--global", "alias.x", "!id"], "code_execution argv:git:config-write 1"],
      [["git", "config", "--add", "core.pager", "x"], "code_execution argv:git:config-write 1"],
      [["git", "config", "--get-r", "x"], "code_execution argv:git:config-write 1"],
      [["git", "config", "-e"], "code_execution argv:git:config-write 1"],
      [["git", "config", "set", "core.pager", "x"], "code_execution argv:git:config-write 1"],
      [["git", "lfs", "pull"], "unchecked argv:git:unknown-subcommand 1"],
      [["git-upload-pack", "/elsewhere"], "unchecked argv:git:repository-server 0"],
      [["git", "receive-pack", "/elsewhere"], "unchecked argv:git:repository-server 1"],
    ],
    [
      ["git", "submodule", "update", "--init"],
      ["git", "bisect", "start"],
      ["git", "maintenance", "run", "--task=gc"],
      ["git", "config", "--list"],
      ["git", "config", "-l", "--show-origin"],
      ["git", "config", "--get-regexp", "^alias\\."],
      ["git", "config", "--file=.gitmodules", "--get", "submodule.x.url"],
      ["git", "config", "user.name"],
      ["git", "config", "get", "core.pager"],
      ["git", "remote", "-v"],
    ],
  );
});

Deno.test("analyzeArgv reports git transports when an address runs a command or helper", () => {
  checkPairs(
    [
      [
        ["git", "clone", "ext::sh -c touch% /tmp/p", "d"],
        "code_execution argv:git:ext-transport 2",
      ],
      [["git", "clone", "--", "ext::sh -c id", "d"], "code_execution argv:git:ext-transport 3"],
      [["git", "fetch", "EXT::sh -c id"], "code_execution argv:git:ext-transport 2"],
      [
        ["git", "archive", "--remote=ext::sh -c id", "HEAD"],
        "code_execution argv:git:ext-transport 2",
      ],
      [["git", "remote", "add", "x", "ext::sh -c id"], "code_execution argv:git:ext-transport 4"],
      [
        ["git", "-c", "protocol.ext.allow=always", "clone", "ext::sh", "d"],
        "code_execution argv:git:ext-transport 4",
      ],
      [["git", "clone", "fd::3", "d"], "unchecked argv:git:fd-transport 2"],
      [["git", "clone", "evil::x", "d"], "unchecked argv:git:remote-helper 2"],
      [
        ["git", "clone", "ssh://-oProxyCommand=id/x", "d"],
        "code_execution argv:git:ssh-option-host 2",
      ],
    ],
    [
      ["git", "clone", "https://example.com/r.git", "d"],
      ["git", "clone", "git@github.com:o/r.git"],
      ["git", "clone", "ssh://git@example.com/r.git"],
      ["git", "grep", "std::vector"],
      ["git", "show", "HEAD:src/a.ts"],
    ],
  );
});

Deno.test("analyzeArgv reports git merge strategies when they are not built in", () => {
  checkPairs(
    [
      [["git", "merge", "-s", "evil", "x"], "unchecked argv:git:merge-strategy 2"],
      [["git", "merge", "--strategy=evil", "x"], "unchecked argv:git:merge-strategy 2"],
      [["git", "pull", "-sevil"], "unchecked argv:git:merge-strategy 2"],
      [["git", "cherry-pick", "--strategy", "evil", "abc"], "unchecked argv:git:merge-strategy 2"],
    ],
    [
      ["git", "merge", "-s", "ours", "x"],
      ["git", "merge", "--strategy=ort", "-X", "theirs", "x"],
      ["git", "cherry-pick", "-s", "abc"],
      ["git", "merge", "--strategy-option=theirs", "x"],
    ],
  );
});

Deno.test("analyzeArgv reports a dangerous spelling when it is the value of another option", () => {
  // Arity is not guessed: a wrong guess would hide a real option, so values are checked too.
  checkPairs(
    [
      [["git", "commit", "-m", "--exec=x"], "code_execution argv:git:exec 3"],
      [["git", "diff", "-O", "--", "--output=/tmp/x"], "file_write argv:git:output 4"],
      [["rg", "-g", "-e", "--pre", "x", "src"], "code_execution argv:rg:pre 3"],
    ],
    [
      ["git", "commit", "-m", "use --upload-pack carefully"],
      ["git", "commit", "-m", "-c is fine", "--", "a.txt"],
      ["rg", "--regexp=--pre", "src"],
    ],
  );
});

Deno.test("analyzeArgv reports rg options when they run preprocessors or decompressors", () => {
  checkPairs(
    [
      [["rg", "--pre", "./evil.sh", "x"], "code_execution argv:rg:pre 1"],
      [["rg", "--pre=./evil.sh", "x"], "code_execution argv:rg:pre 1"],
      [["rg", "--pre-glob", "*.pdf", "x"], "code_execution argv:rg:pre 1"],
      [["rg", "-z", "x"], "code_execution argv:rg:search-zip 1"],
      [["rg", "-iz", "x"], "code_execution argv:rg:search-zip 1"],
      [["rg", "-zez", "x"], "code_execution argv:rg:search-zip 1"],
      [["rg", "--search-zip", "x"], "code_execution argv:rg:search-zip 1"],
      [["rg", "--hostname-bin=./evil", "x"], "code_execution argv:rg:hostname-bin 1"],
      [["rg", "-n", "x", "--", "--pre"], "code_execution argv:rg:pre 4"],
    ],
    [
      ["rg", "--pretty", "pre", "src"],
      ["rg", "--no-config", "-n", "foo", "src"],
      ["rg", "-e", "pre", "-S", "src"],
      ["rg", "--no-pre", "x"],
      ["rg", "--files", "-g", "*.zip"],
      ["rg", "-ez", "src"],
    ],
  );
});

Deno.test("analyzeArgv reports find actions when they run commands or write files", () => {
  checkPairs(
    [
      [["find", ".", "-name", "*.ts", "-exec", "rm", "{}", ";"], "code_execution argv:find:exec 4"],
      [["find", ".", "-execdir", "id", "+"], "code_execution argv:find:exec 2"],
      [["find", ".", "-ok", "rm", "{}", ";"], "code_execution argv:find:exec 2"],
      [["find", ".", "-okdir", "rm", "{}", ";"], "code_execution argv:find:exec 2"],
      [["find", ".", "-delete"], "file_write argv:find:delete 2"],
      [["find", ".", "-fprint", `${HOME}/.bashrc`], "file_write argv:find:fprint 2"],
      [["find", ".", "-fprint0", "x"], "file_write argv:find:fprint 2"],
      [["find", ".", "-fprintf", "x", "%p"], "file_write argv:find:fprint 2"],
      [["find", "/usr/bin/find", "-fls", "x"], "file_write argv:find:fprint 2"],
    ],
    [
      ["find", ".", "-name", "*.ts", "-print"],
      ["find", ".", "-type", "f", "-executable"],
      ["find", ".", "-printf", "%p\\n"],
      ["find", ".", "-name", "exec"],
      ["find", ".", "-name", "delete", "-ls"],
    ],
  );
});

Deno.test("analyzeArgv reports tar options when they run programs or write elsewhere", () => {
  const runs = (
    argv: string[],
    index: number,
  ): Attack => [argv, `code_execution argv:tar:runs-command ${index}`];
  checkPairs(
    [
      runs(["tar", "-xf", "a.tar", "--checkpoint=1", "--checkpoint-action=exec=id"], 4),
      runs(["tar", "-xf", "a.tar", "--checkpoint-a=exec=id"], 3),
      runs(["tar", "-xf", "a.tar", "--to-command=sh"], 3),
      runs(["tar", "--to-com", "sh", "-xf", "a.tar"], 1),
      runs(["tar", "-I", "sh -c id", "-xf", "a.tar"], 1),
      runs(["tar", "-xIcmd", "-f", "a.tar"], 1),
      runs(["tar", "--use-compress-program=id", "-xf", "a.tar"], 1),
      runs(["tar", "--use-c=id", "-xf", "a.tar"], 1),
      runs(["tar", "-cf", "a.tar", "-F", "./next.sh", "."], 3),
      runs(["tar", "-cf", "a.tar", "--info-script=x", "."], 3),
      runs(["tar", "-cf", "a.tar", "--new-volume-script=x", "."], 3),
      runs(["tar", "--rmt-command=x", "-cf", "h:a.tar", "."], 1),
      runs(["tar", "--rsh-command=x", "-cf", "h:a.tar", "."], 1),
      runs(["tar", "xfI", "a.tar", "cmd"], 1),
      [["tar", "-cf", "a.tar", "--index-file=/tmp/x", "."], "file_write argv:tar:side-file 3"],
      [["tar", "-cf", "a.tar", "--remove-files", "src"], "file_write argv:tar:remove-files 3"],
      [["tar", "-czgsnap", "-f", "a.tgz", "src"], "file_write argv:tar:side-file 1"],
      [["tar", "cgf", "snap", "a.tgz", "src"], "file_write argv:tar:side-file 1"],
      [["tar", "-xf", "host:a.tar"], "code_execution argv:tar:remote-archive 1"],
      [["tar", "xf", "user@host:a.tar"], "code_execution argv:tar:remote-archive 1"],
      [["tar", "-x", "--file=host:/a.tar"], "code_execution argv:tar:remote-archive 2"],
    ],
    [
      ["tar", "xf", "a.tar"],
      ["tar", "-xzf", "a.tgz"],
      ["tar", "-czf", "out.tgz", "src"],
      ["tar", "tvf", "a.tar"],
      ["tar", "--checkpoint=100", "-xf", "a.tar"],
      ["tar", "-xf", "a.tar", "--to-stdout"],
      ["tar", "-xOf", "a.tar", "member"],
      ["tar", "-tf", "./a:b.tar"],
      ["tar", "-xf", "host:a.tar", "--force-local"],
      // The rest of a cluster after -f, -T or -C is their value, not options (getopt(3)).
      ["tar", "-czfgood.tgz", "src"],
      ["tar", "-cfIFgP.tar", "src"],
      ["tar", "-Tlist", "-cf", "a.tar"],
      ["tar", "-xzf", "a.tgz", "-C", "dir"],
    ],
  );
});

Deno.test("analyzeArgv leaves options that only choose where files go to the path check", () => {
  // The mount profile bounds where a command reads and writes; resolve_command_test.ts shows the
  // path check naming these values when they point outside the roots.
  for (
    const argv of [
      ["tar", "-xf", "a.tar", "-C", "/elsewhere"],
      ["tar", "-xf", "a.tar", "--directory=/x"],
      ["tar", "-xPf", "a.tar"],
      ["tar", "xPf", "a.tar"],
      ["git", "checkout-index", "-a", "--prefix=/tmp/"],
      ["git", "apply", "--unsafe-paths", "p.diff"],
      ["git", "init", "--separate-git-dir=/x"],
    ]
  ) assertClean(argv);
});

Deno.test("analyzeArgv reports sed options when they edit in place or read a script file", () => {
  const inPlace = (
    argv: string[],
    index: number,
  ): Attack => [argv, `file_write argv:sed:in-place ${index}`];
  checkPairs(
    [
      inPlace(["sed", "-i", "s/a/b/", "f"], 1),
      inPlace(["sed", "-i.bak", "s/a/b/", "f"], 1),
      inPlace(["sed", "-ni", "p", "f"], 1),
      inPlace(["sed", "-in", "p", "f"], 1),
      inPlace(["sed", "-Ee", "s/a/b/", "-i", "f"], 3),
      inPlace(["sed", "--in-place=.bak", "s/a/b/", "f"], 1),
      inPlace(["sed", "--in-pl", "s/a/b/", "f"], 1),
      inPlace(["sed", "s/a/b/", "f", "-i"], 3),
      inPlace(["sed", "-I", "", "s/a/b/", "f"], 1),
      [["sed", "-f", "script.sed", "f"], "unchecked argv:sed:script-file 1"],
      [["sed", "--file=script.sed", "f"], "unchecked argv:sed:script-file 1"],
      [["sed", "-l", "s/a/b/w x", "f"], "unchecked argv:sed:unchecked 1"],
      [["sed", "--frobnicate", "p"], "unchecked argv:sed:unchecked 1"],
    ],
    [
      ["sed", "-n", "1,5p", "f"],
      ["sed", "-E", "-s", "-u", "-z", "p", "f"],
      ["sed", "--quiet", "--posix", "--debug", "p", "f"],
      ["sed", "-l", "72", "l", "f"],
      ["sed", "--", "p", "-i"],
    ],
  );
});

Deno.test("analyzeArgv reports sed scripts when they execute commands or write files", () => {
  const exec = (
    argv: string[],
    index: number,
  ): Attack => [argv, `code_execution argv:sed:execute ${index}`];
  const write = (
    argv: string[],
    index: number,
  ): Attack => [argv, `file_write argv:sed:write ${index}`];
  checkPairs(
    [
      exec(["sed", "s/a/b/e", "f"], 1),
      exec(["sed", "s/x/y/ge", "f"], 1),
      exec(["sed", "s|a|b|e", "f"], 1),
      exec(["sed", "1e touch /tmp/p", "f"], 1),
      exec(["sed", "e", "f"], 1),
      exec(["sed", "p;e id", "f"], 1),
      exec(["sed", "/x/{\ne id\n}", "f"], 1),
      exec(["sed", "s/\\/e/x/;e", "f"], 1),
      exec(["sed", "-n", "-e", "p", "-e", "s/a/b/e", "f"], 5),
      exec(["sed", "--expression=s/a/b/e", "f"], 1),
      exec(["sed", "b x e id", "f"], 1),
      write(["sed", "s/a/b/w out", "f"], 1),
      write(["sed", "s/a/b/ w out", "f"], 1),
      write(["sed", "-n", `1w ${HOME}/.bashrc`, "f"], 2),
      write(["sed", "-n", "$W out", "f"], 2),
      write(["sed", "/re/I,+3w out", "f"], 1),
      [["sed", "s/[/]/x/e", "f"], "unchecked argv:sed:unparsed-script 1"],
      [["sed", "s/a/b", "f"], "unchecked argv:sed:unparsed-script 1"],
      [["sed", "k", "f"], "unchecked argv:sed:unparsed-script 1"],
      [["sed", "s/a/b/x", "f"], "unchecked argv:sed:unparsed-script 1"],
    ],
    [
      ["sed", "s/w/x/g", "f"],
      ["sed", "-e", "s/e/E/", "f"],
      ["sed", "s/[[:alpha:]]/e/g", "f"],
      ["sed", "s/a/b/3p", "f"],
      ["sed", "y/ew/EW/", "f"],
      ["sed", "/re/I!d", "f"],
      ["sed", "-n", "/start/,/end/p", "f"],
      ["sed", ":a;N;$!ba;s/\\n/ /g", "f"],
      ["sed", "$!N;P;D", "f"],
      ["sed", "0~3 p;q5", "f"],
      ["sed", "a e id; w out", "f"],
      ["sed", "-e", "a\\", "-e", "e id", "f"],
      ["sed", "1i\\\nwe\\\ne", "f"],
      ["sed", "r /etc/hostname", "f"],
      ["sed", "s/a/b/w /dev/stdout", "f"],
      ["sed", "# e id\np", "f"],
      ["sed", "--sandbox", "s/a/b/e", "f"],
      ["sed", "\\%e%d", "f"],
    ],
  );
});

Deno.test("analyzeArgv reports sort, split and man options when they run programs or write", () => {
  checkPairs(
    [
      [["sort", "--compress-program=sh", "f"], "code_execution argv:sort:compress-program 1"],
      [["sort", "--com=sh", "f"], "code_execution argv:sort:compress-program 1"],
      [["sort", "-o", `${HOME}/.bashrc`, "f"], "file_write argv:sort:output 1"],
      [["sort", "--output=x", "f"], "file_write argv:sort:output 1"],
      [["sort", "-no", "x", "f"], "file_write argv:sort:output 1"],
      [["split", "--filter=sh -c id", "f"], "code_execution argv:split:filter 1"],
      [["man", "-P", "sh -c id", "ls"], "code_execution argv:man:pager 1"],
      [["man", "--pager=id", "ls"], "code_execution argv:man:pager 1"],
      [["man", "-Hfirefox", "ls"], "code_execution argv:man:pager 1"],
      [["man", "-C", "/tmp/man.conf", "ls"], "unchecked argv:man:config-file 1"],
    ],
    [
      ["sort", "-n", "-k2", "f"],
      ["sort", "-u", "--check", "f"],
      ["sort", "-to", "-k2", "f"],
      ["split", "-l", "10", "f", "part-"],
      ["man", "ls"],
      ["man", "-k", "printf"],
    ],
  );
});

Deno.test("analyzeArgv reports nothing when the program has no analyzer", () => {
  for (
    const argv of [
      ["ls", "-la", "--exec"],
      ["cat", "--pre", "x"],
      ["wc", "-l", "f"],
      ["head", "-n", "5", "f"],
      ["tail", "-f", "f"],
      ["grep", "-r", "--output=x", "ext::sh"],
      ["diff", "-u", "a", "b"],
      ["echo", "-c", "core.pager=x"],
      ["true"],
      ["/usr/bin/printf", "%s", "-exec"],
    ]
  ) assertClean(argv);
});

Deno.test("analyzeArgv reports an unchecked finding when argv names no program", () => {
  assert.deepEqual(summary([]), ["unchecked argv:no-program 0"]);
  assert.deepEqual(summary(["/usr/bin/"]), ["unchecked argv:no-program 0"]);
});

Deno.test("analyzeArgv findings point at their argument and cite a source when reported", () => {
  const samples: string[][] = [
    ["git", "-c", "x=y", "clone", "--upload-p=x", "ext::sh", "--template=t", "-u", "x"],
    ["git", "diff", "--output=x", "--ext-diff", "--textconv"],
    ["rg", "--pre", "x", "-z", "--hostname-bin=y"],
    ["find", ".", "-exec", "x", ";", "-delete", "-fls", "y"],
    ["tar", "-xIcmd", "-P", "-C", "/x", "-f", "h:a", "--index-file=i"],
    ["sed", "-i", "-e", "s/a/b/e;w x", "-f", "s", "-e", "k"],
    ["sort", "-o", "x", "--compress-program=y"],
    ["bash", "-c", "id"],
  ];
  for (const argv of samples) {
    const findings = analyzeArgv(argv);
    assert.equal(isKnownSafeCommand(argv), false, JSON.stringify(argv));
    for (const finding of findings) {
      assert.equal(finding.argument, argv[finding.index], JSON.stringify(finding));
      assert.match(finding.id, /^argv:[a-z-]+(:[a-z-]+)?$/);
      assert.match(finding.reason, /\(.+\)/, `${finding.id} must cite its source`);
    }
  }
});

Deno.test("programs that had a grammar are judged by the known-safe list, never as unrestricted", () => {
  for (const name of ["git", "rg", "find", "tar", "sed", "sort", "split", "man"]) {
    assert.notEqual(analyzeArgv([name])[0]?.kind, "unrestricted_execution", name);
  }
  for (const argv of [["git", "status"], ["rg", "x"], ["find", "."], ["sed", "-n", "1p", "f"]]) {
    assert.equal(isKnownSafeCommand(argv), true, JSON.stringify(argv));
  }
  for (const name of ["tar", "sort", "split", "man", "zip"]) {
    assert.equal(isKnownSafeCommand([name, "x"]), false, name);
  }
});

Deno.test("programKey keeps the lower-case basename when given paths and extensions", () => {
  assert.equal(programKey("/usr/bin/git"), "git");
  assert.equal(programKey("C:\\Git\\bin\\GIT.EXE"), "git");
  assert.equal(programKey("rg"), "rg");
  assert.equal(programKey("/usr/bin/"), "");
});

Deno.test("argumentValues reads every value a cluster may carry when no grammar says which letter owns it", () => {
  const values = (argv: string[]) =>
    argumentValues(argv).map(({ index, value }) => `${index}:${value}`);
  assert.deepEqual(values(["tar", "-czfgood.tgz", "src"]), ["1:zfgood.tgz", "2:src"]);
  assert.deepEqual(values(["tar", "-cf/abs/out.tar", "src"]), [
    "1:f/abs/out.tar",
    "1:/abs/out.tar",
    "2:src",
  ]);
  assert.deepEqual(values(["tar", "-xzf", "a.tgz", "-C", "dir"]), ["1:zf", "2:a.tgz", "4:dir"]);
  assert.deepEqual(values(["sort", "-T/abs", "-t/", "-k2", "f"]), ["1:/abs", "4:f"]);
  assert.deepEqual(values(["rg", "-f/abs/patterns"]), ["1:/abs/patterns"]);
  // A search text is not a path (git -S, -G, -L; rg and grep -e; sort and cut separators).
  assert.deepEqual(values(["git", "log", "-S/api", "-L/re/,+2:f", "-C/x"]), ["1:log", "4:/x"]);
  assert.deepEqual(values(["rg", "-e/api/", "src"]), ["2:src"]);
  assert.deepEqual(values(["tar", "-cf.git/hooks/x"]), ["1:f.git/hooks/x", "1:.git/hooks/x"]);
  assert.deepEqual(values(["sed", "-n", "-f/abs/s.sed", "-i.bak"]), ["2:/abs/s.sed", "3:.bak"]);
  assert.deepEqual(values(["find", "/x", "-newer", "f", "-name", "*.ts"]), [
    "1:/x",
    "2:ewer",
    "3:f",
    "4:ame",
    "5:*.ts",
  ]);
  // One character after the first letter is a separator; "-" alone is standard input.
  assert.deepEqual(values(["cp", "-t/abs", "a"]), ["1:/abs", "2:a"]);
  assert.deepEqual(values(["cut", "-d/", "-f2", "f"]), ["3:f"]);
  assert.deepEqual(values(["cat", "-", "--", "-x/y"]), ["3:-x/y"]);
});

Deno.test("argumentValues splits key=value spellings when operands or values hold them", () => {
  const values = (argv: string[]) =>
    argumentValues(argv).map(({ index, value }) => `${index}:${value}`);
  assert.deepEqual(values(["dd", "if=/etc/passwd", "of=out.txt"]), [
    "1:if=/etc/passwd",
    "1:/etc/passwd",
    "2:of=out.txt",
    "2:out.txt",
  ]);
  assert.deepEqual(values(["curl", "--form=f=@/x", "file:///y"]), [
    "1:f=@/x",
    "1:@/x",
    "2:file:///y",
  ]);
  // A message with blanks before the = is text, not a key.
  assert.deepEqual(values(["git", "commit", "-m", "set PATH=/usr/bin"]), [
    "1:commit",
    "3:set PATH=/usr/bin",
  ]);
});
