import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { analyzeShellTemplate } from "./shell_template.ts";
import { fillShell } from "./template.ts";
import { exists } from "../../testing/path_exists.ts";

const REFUSED: readonly (readonly [string, string])[] = [
  ["echo '{{text}}'", "inside single quotes"],
  ["echo 'a' '{{text}}b'", "inside single quotes"],
  ['echo "{{text}}"', "inside double quotes"],
  ['echo "a $b {{text}}"', "inside double quotes"],
  ["echo `echo {{text}}`", "inside backticks"],
  ['echo "`echo {{text}}`"', "inside double quotes"],
  ["echo $(echo {{text}})", "inside $(…)"],
  ['echo "$(echo {{text}})"', "inside $(…)"],
  ["echo $(echo $(echo {{text}}))", "inside $(…)"],
  ["echo ${x:-{{text}}}", "inside ${…}"],
  ["echo $(( {{text}} + 1 ))", "inside $((…))"],
  ["echo $'{{text}}'", "inside $'…' quotes"],
  ["cat <<EOF\n{{text}}\nEOF", "inside a here-document"],
  ["cat <<'EOF'\nline {{text}}\nEOF", "inside a here-document"],
  ["cat <<-EOF\n\t{{text}}\n\tEOF\necho done", "inside a here-document"],
  ["cat <<{{text}}\nx\n", "in a here-document delimiter"],
  ["echo ok # {{text}}", "inside a comment"],
  ["# {{text}}\necho ok", "inside a comment"],
  ["echo \\{{text}}", "right after a backslash"],
  ["echo ${{text}}", "right after $"],
  ["{{text}} --version", "as a command name"],
  ["A=1 {{text}}", "as a command name"],
  ["echo a; then {{text}}", "as a command name"],
  ["echo a | x{{text}}", "as a command name"],
];

Deno.test("analyzeShellTemplate refuses a placeholder that single quotes cannot keep one word", () => {
  for (const [script, where] of REFUSED) {
    const analysis = analyzeShellTemplate(script);
    assert.equal(analysis.ok, false, `accepted: ${JSON.stringify(script)}`);
    if (!analysis.ok) assert.ok(analysis.reason.includes(where), `${script}: ${analysis.reason}`);
  }
});

/** Scripts with bare placeholders only: each must load. */
const ACCEPTED = [
  "echo {{text}}",
  "echo a{{text}}b {{ text }}",
  "printf '%s|' {{text}} {{text}}; echo",
  'A={{text}}; printf "%s\\n" "$A"',
  "case {{text}} in a) echo a;; *) echo other;; esac",
  'for x in {{text}}; do printf "%s\\n" "$x"; done',
  "test -n {{text}} && echo {{text}} >/dev/null 2>&1",
  "cat <<'EOF'\nbody $(not run)\nEOF\necho {{text}}",
  "cat <<-EOF\n\tbody\n\tEOF\necho {{text}}",
  "echo {{text}} # a comment",
  'x=$(echo fixed) && echo {{text}} "$x"',
  "echo ~{{text}} *{{text}}",
  'f() { printf "%s\\n" "$1"; }; f {{text}}',
  "( echo {{text}} ); { echo {{text}}; }",
  "echo {{text}}|cat",
  "echo {{text}}>/dev/null; echo 2>&1 {{text}}",
  "echo \\\\{{text}}",
  "echo '{{'{{text}}",
];

Deno.test("analyzeShellTemplate accepts bare placeholders (near miss)", () => {
  for (const script of ACCEPTED) {
    const analysis = analyzeShellTemplate(script);
    assert.ok(analysis.ok, `${script}: ${analysis.ok ? "" : analysis.reason}`);
  }
});

Deno.test("analyzeShellTemplate reports commands with the arguments input can reach", () => {
  const analysis = analyzeShellTemplate(
    'A={{text}} git log -- "$1" 2>/dev/null | head -n 5\nif eval {{text}}; then x=$(sh -c "$0"); fi',
  );
  assert.ok(analysis.ok);
  const summary = analysis.commands.map((command) =>
    `${command.name}:${command.arguments.map((argument) => argument.carriesInput ? 1 : 0).join("")}`
  );
  assert.deepEqual(summary.sort(), ["eval:1", "git:001", "head:00", "sh:01"]);
  const computed = analyzeShellTemplate('"$@"; $tool {{text}}');
  assert.ok(computed.ok);
  assert.deepEqual(computed.commands.map((command) => command.computed), [true, true]);
});

const HOSTILE = (marker: string) => [
  `$(touch ${marker})`,
  `\`touch ${marker}\``,
  `'; touch ${marker}; '`,
  `"; touch ${marker}; "`,
  `a\ntouch ${marker}`,
  `\\'; touch ${marker}; #`,
  `'$(touch ${marker})'`,
  `x'\n touch ${marker}\n'`,
  "\\",
  "'",
  `$'\\x27'; touch ${marker}`,
  `}; touch ${marker}; {`,
  `EOF\ntouch ${marker}`,
];

Deno.test("every accepted script, filled with hostile values, runs none of them in sh", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-shell-template-" });
  try {
    const marker = nodePath.join(folder, "marker");
    const shells = ["/bin/sh", "/bin/bash"];
    for (const shell of shells) {
      for (const script of ACCEPTED) {
        for (const text of HOSTILE(marker)) {
          await new Deno.Command(shell, {
            args: ["-c", fillShell(script, { text }), "tool", text],
            cwd: folder,
            clearEnv: true,
            env: { PATH: "/usr/bin:/bin", HOME: folder },
            stdout: "null",
            stderr: "null",
          }).output();
          assert.equal(await exists(marker), false, `${shell}: ${script} with ${text}`);
        }
      }
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

// Backticks are refused because sh reads their text twice (`\\` becomes `\`), which changes
// the value; one that ends them early leaves an unbalanced quote, which dash will not parse.
Deno.test("the refused places would run a value in sh (the refusals are not vacuous)", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-shell-template-" });
  try {
    const marker = nodePath.join(folder, "marker");
    for (
      const [script, text] of [
        ["echo '{{text}}'", `$(touch ${marker})`],
        ['echo "{{text}}"', `$(touch ${marker})`],
        ["cat <<EOF\n{{text}}\nEOF", `$(touch ${marker})`],
        ["echo ok # {{text}}", `\ntouch ${marker}\n`],
        ["echo \\{{text}}", `$(touch ${marker})'`],
      ] as const
    ) {
      await new Deno.Command("/bin/sh", {
        args: ["-c", fillShell(script, { text })],
        cwd: folder,
        clearEnv: true,
        env: { PATH: "/usr/bin:/bin", HOME: folder },
        stdout: "null",
        stderr: "null",
      }).output();
      assert.equal(await exists(marker), true, `${script} did not run ${JSON.stringify(text)}`);
      await Deno.remove(marker);
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
