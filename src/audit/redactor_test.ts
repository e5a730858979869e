import assert from "node:assert/strict";
import { Redactor } from "./redactor.ts";

const redactor = new Redactor({ secrets: [] });

Deno.test("Redactor.redactText replaces each token kind when it appears in text", () => {
  const cases: [string, string][] = [
    ["key sk-abcdefghijklmnopqrstuvwxyz012345 end", "key [REDACTED:openai_key] end"],
    ["sk-proj-Abc_def-1234567890abcdefghij", "[REDACTED:openai_key]"],
    ["ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "ANTHROPIC=[REDACTED:anthropic_key]"],
    [`token ghp_${"a1B2".repeat(9)}`, "token [REDACTED:github_token]"],
    [`ghs_${"Z".repeat(40)}.`, "[REDACTED:github_token]."],
    [`github_pat_${"11ABCDEFG0_".repeat(3)}`, "[REDACTED:github_token]"],
    ["id=AKIAIOSFODNN7EXAMPLE;", "id=[REDACTED:aws_access_key_id];"],
    ["xoxb-123456789012-abcdefghij", "[REDACTED:slack_token]"],
    [
      "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig==",
      "Authorization: Bearer [REDACTED:bearer_token]",
    ],
  ];
  for (const [input, expected] of cases) assert.equal(redactor.redactText(input), expected, input);
});

Deno.test("Redactor.redactText removes a PEM private key block when it spans lines", () => {
  const pem = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEA7x",
    "abcdEFGH==",
    "-----END RSA PRIVATE KEY-----",
  ].join("\n");
  assert.equal(
    redactor.redactText(`before\n${pem}\nafter`),
    "before\n[REDACTED:private_key]\nafter",
  );
  assert.equal(
    redactor.redactText("-----BEGIN PRIVATE KEY-----\nMIIEvQ (output cut here"),
    "[REDACTED:private_key]",
  );
  const publicKey = "-----BEGIN PUBLIC KEY-----\nMFkwEwYH\n-----END PUBLIC KEY-----";
  assert.equal(redactor.redactText(publicKey), publicKey);
});

Deno.test("Redactor.redactText keeps ordinary text when it only resembles a token", () => {
  const nearMisses = [
    "skeleton key",
    "risk-assessment-for-the-quarterly-review",
    "task-abcdefghijklmnopqrstuvwxyz",
    "sk-short",
    "ghp_tooShort123",
    "AKIAIOSFODNN7EXAMPLEX",
    "the bearer of bad news",
    "Bearer short",
    "xoxb-123",
  ];
  for (const text of nearMisses) assert.equal(redactor.redactText(text), text, text);
});

Deno.test("Redactor.redactText replaces env secret values when they appear anywhere", () => {
  const withSecrets = new Redactor({ secrets: ["p@ss.w0rd+x(y)", "abc", "p@ss.w0rd+x(y)-longer"] });
  assert.equal(
    withSecrets.redactText("a=p@ss.w0rd+x(y)-longer b=p@ss.w0rd+x(y) c=abc"),
    "a=[REDACTED:secret_env] b=[REDACTED:secret_env] c=abc",
  );
  assert.equal(withSecrets.redactText("pXssXw0rd+x(y)"), "pXssXw0rd+x(y)");
});

Deno.test("Redactor ignores short secrets when they are under 8 characters", () => {
  const short = new Redactor({ secrets: ["abc", "1234567", "", "  abc  "] });
  assert.equal(short.redactText("abc 1234567 abcdefg"), "abc 1234567 abcdefg");
});

Deno.test("Redactor.fromEnvironment reads values through the given reader when names are listed", () => {
  const env: Record<string, string> = {
    OPENAI_API_KEY: "not-a-pattern-but-secret",
    MY_TOKEN: "tok3n-value-with-newline\n",
  };
  const seen: string[] = [];
  const fromEnv = Redactor.fromEnvironment(["OPENAI_API_KEY", "MISSING", "MY_TOKEN"], (name) => {
    seen.push(name);
    return env[name];
  });
  assert.deepEqual(seen, ["OPENAI_API_KEY", "MISSING", "MY_TOKEN"]);
  assert.equal(
    fromEnv.redactText("x not-a-pattern-but-secret y tok3n-value-with-newline z"),
    "x [REDACTED:secret_env] y [REDACTED:secret_env] z",
  );
});

Deno.test("Redactor.redactValue redacts nested strings and secret-named keys when copying", () => {
  const input = {
    tool: "exec.run_command",
    arguments: { argv: ["curl", "-H", "Authorization: Bearer abcdefgh12345678"] },
    headers: { Authorization: "Basic dXNlcjpwYXNz", "X-Api-Key": "plain", accept: "text/html" },
    nested: [{ password: "hunter2" }, { client_secret: ["a", "b"] }, { accessToken: "t" }],
    usage: { max_tokens: 1000, input_tokens: 12, token_count: 3 },
    note: "ghp_" + "x".repeat(36),
    empty: { password: "" },
  };
  const snapshot = structuredClone(input);
  const output = redactor.redactValue(input);
  assert.deepEqual(output, {
    tool: "exec.run_command",
    arguments: { argv: ["curl", "-H", "Authorization: Bearer [REDACTED:bearer_token]"] },
    headers: {
      Authorization: "[REDACTED:key_name]",
      "X-Api-Key": "[REDACTED:key_name]",
      accept: "text/html",
    },
    nested: [
      { password: "[REDACTED:key_name]" },
      { client_secret: ["[REDACTED:key_name]", "[REDACTED:key_name]"] },
      { accessToken: "[REDACTED:key_name]" },
    ],
    usage: { max_tokens: 1000, input_tokens: 12, token_count: 3 },
    note: "[REDACTED:github_token]",
    empty: { password: "" },
  });
  assert.deepEqual(input, snapshot);
});

Deno.test("Redactor.redactValue marks cycles when a value refers to itself", () => {
  const value: Record<string, unknown> = { name: "loop", when: new Date(0) };
  value.self = value;
  assert.deepEqual(redactor.redactValue(value), {
    name: "loop",
    when: "1970-01-01T00:00:00.000Z",
    self: "[Circular]",
  });
  const shared = { a: 1 };
  assert.deepEqual(redactor.redactValue([shared, shared]), [{ a: 1 }, { a: 1 }]);
});
