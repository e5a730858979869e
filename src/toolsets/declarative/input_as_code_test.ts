import assert from "node:assert/strict";
import { inputAsCodeReason } from "./input_as_code.ts";
import { analyzeShellTemplate } from "./shell_template.ts";

function execReason(command: string, args: string[]): string | null {
  return inputAsCodeReason({ command_type: "exec", command, args }, []);
}

function shellReason(script: string, args: string[] = []): string | null {
  const analysis = analyzeShellTemplate(script);
  assert.ok(analysis.ok, `${script}: ${analysis.ok ? "" : analysis.reason}`);
  return inputAsCodeReason({ command_type: "shell", command: script, args }, analysis.commands);
}

Deno.test("inputAsCodeReason finds a shell or an interpreter given a templated argument", () => {
  for (
    const [command, args] of [
      ["sh", ["-c", "{{text}}"]],
      ["/bin/bash", ["-c", "echo {{text}}"]],
      ["python3.12", ["-c", "{{code}}"]],
      ["node", ["/opt/tool.js", "{{path}}"]],
      ["awk", ["{{program}}"]],
      ["env", ["{{program}}"]],
      ["busybox", ["sh", "-c", "{{text}}"]],
      ["make", ["{{target}}"]],
    ] as const
  ) {
    const reason = execReason(command, [...args]);
    assert.ok(reason !== null, `${command} ${args.join(" ")}`);
    assert.match(reason, /fills in the input/);
  }
});

Deno.test("inputAsCodeReason finds a program that would read its code from standard input", () => {
  for (
    const [command, args] of [
      ["sh", []],
      ["sh", ["-s"]],
      ["python3", ["-"]],
      ["xargs", ["rm"]],
      ["sh", ["-c", "fixed"]],
    ] as const
  ) {
    assert.match(execReason(command, [...args]) ?? "", /standard input/, command);
  }
});

Deno.test("inputAsCodeReason exempts fixed scripts and bounded programs (near miss)", () => {
  assert.equal(execReason("sh", ["./count.sh"]), null);
  assert.equal(execReason("python3", ["/opt/tools/report.py", "--json"]), null);
  assert.equal(execReason("awk", ["{ print $1 }"]), null);
  assert.equal(execReason("echo", ["{{text}}"]), null);
  assert.equal(execReason("git", ["show", "{{rev}}"]), null);
});

Deno.test("inputAsCodeReason finds shell-mode commands that run or name input", () => {
  for (
    const [script, args] of [
      ["eval {{text}}", []],
      ['eval "$1"', ["{{text}}"]],
      ["sh -c {{text}}", []],
      ['"$@"', ["{{text}}"]],
      ["$tool {{text}}", []],
      [". {{path}}", []],
      ["trap {{text}} EXIT", []],
      ["export {{text}}", []],
      ['read "$1"', ["{{text}}"]],
      ["printf {{format}} x", []],
      ['x=$(eval "$1"); echo {{text}}', ["{{text}}"]],
      ['cat <<EOF\n$(eval "$1")\nEOF', ["{{text}}"]],
    ] as const
  ) {
    const template = script.replace("{{format}}", "{{text}}").replace("{{path}}", "{{text}}");
    assert.ok(shellReason(template, [...args]) !== null, script);
  }
});

Deno.test("inputAsCodeReason accepts shell-mode commands that take input as data (near miss)", () => {
  assert.equal(shellReason("echo {{text}}"), null);
  assert.equal(shellReason('printf "%s\\n" {{text}} "$1"', ["{{text}}"]), null);
  assert.equal(shellReason("export A={{text}}; git log -- {{text}}"), null);
  assert.equal(shellReason("grep -n -- {{text}} notes.txt | head -n 5"), null);
  assert.equal(shellReason("cat <<'EOF'\n$(eval \"$1\")\nEOF", ["{{text}}"]), null);
  // Input reaches nothing: a computed command name is the author's own.
  assert.equal(shellReason('"$@"', ["fixed"]), null);
});
