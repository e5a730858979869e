import assert from "node:assert/strict";
import { isKnownSafeCommand } from "./known_safe_command.ts";

const safe = (argv: string[]) => assert.equal(isKnownSafeCommand(argv), true, argv.join(" "));
const unsafe = (argv: string[]) => assert.equal(isKnownSafeCommand(argv), false, argv.join(" "));

Deno.test("isKnownSafeCommand refuses programs that run a command they are given (zip -TT, --unzip-command)", () => {
  unsafe(["zip", "-T", "-TT", "sh -c id", "a.zip", "f"]);
  unsafe(["zip", "-T", "--unzip-command=sh -c id", "a.zip", "f"]);
  unsafe(["zip", "-r", "a.zip", "src"]);
  unsafe(["tar", "-czf", "a.tgz", "src"]);
  unsafe(["sort", "-o", "x", "f"]);
  unsafe(["uniq", "in", "out"]);
  unsafe(["npm", "test"]);
  unsafe(["sh", "-c", "ls"]);
  unsafe([]);
});

Deno.test("isKnownSafeCommand keeps rg, find and base64 when no option runs a program or writes", () => {
  safe(["rg", "-n", "TODO", "src"]);
  safe(["rg", "--no-config", "-e", "zebra", "."]);
  unsafe(["rg", "--pre", "./evil.sh", "x"]);
  unsafe(["rg", "--pre=./evil.sh", "x"]);
  unsafe(["rg", "--pre-glob", "*.txt", "x"]);
  unsafe(["rg", "-z", "x"]);
  unsafe(["rg", "-iz", "x"]);
  unsafe(["rg", "--search-zip", "x"]);
  unsafe(["rg", "--hostname-bin=/bin/sh", "x"]);
  safe(["find", ".", "-name", "*.ts", "-type", "f"]);
  for (const action of ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls"]) {
    unsafe(["find", ".", action, "x", ";"]);
  }
  safe(["base64", "-d", "f"]);
  unsafe(["base64", "--output=x", "f"]);
});

Deno.test("isKnownSafeCommand allows git's reading subcommands with a small option list only", () => {
  safe(["git", "status", "--short"]);
  safe(["git", "log", "--oneline", "-5", "--", "src"]);
  safe(["git", "diff", "--stat", "HEAD~1"]);
  safe(["git", "show", "HEAD:README.md"]);
  safe(["git", "diff", "--", "--output=x"]);
  unsafe(["git", "diff", "--output=x"]);
  unsafe(["git", "diff", "--out=x"]); // An abbreviation of --output.
  unsafe(["git", "diff", "--ext-diff"]);
  unsafe(["git", "show", "--textconv"]);
  unsafe(["git", "-c", "core.pager=id", "log"]);
  unsafe(["git", "-C", "/elsewhere", "status"]);
  unsafe(["git", "push"]);
  unsafe(["git", "commit", "-m", "x"]);
  unsafe(["git"]);
});

Deno.test("isKnownSafeCommand judges the program by its basename, path and Debian alternative", () => {
  safe(["/usr/bin/ls", "-la"]);
  safe(["/usr/bin/which.debianutils", "git"]);
  safe(["sed", "-n", "1,20p", "f"]);
  unsafe(["sed", "-n", "1p", "-i", "f"]);
  unsafe(["sed", "s/a/b/", "f"]);
  unsafe(["/bin/busybox", "ls"]);
});
