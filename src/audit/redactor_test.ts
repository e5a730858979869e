import assert from "node:assert/strict";
import { MAX_TOKEN_MATCH_CHARS, Redactor } from "./redactor.ts";
import { deeperThanMarker, MAX_VALUE_DEPTH } from "../result/mod.ts";

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

Deno.test("Redactor.redactText replaces cloud, CI and registry tokens when they appear in text", () => {
  const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." +
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  const cases: [string, string][] = [
    [
      "aws_access_key_id=ASIAY34FZKBOKMUTVV7A\n",
      "aws_access_key_id=[REDACTED:aws_access_key_id]\n",
    ],
    [
      `ghu_${"k9".repeat(18)} ghr_${"Q".repeat(36)}`,
      "[REDACTED:github_token] [REDACTED:github_token]",
    ],
    [`gho_${"a".repeat(36)}`, "[REDACTED:github_token]"],
    ["CI_TOKEN=glpat-xYz12_3AbCdEfGhIjKlMn", "CI_TOKEN=[REDACTED:gitlab_token]"],
    ["deploy gldt-AbCdEfGhIjKlMnOpQrStUv12", "deploy [REDACTED:gitlab_token]"],
    ["slack xoxp-2048-1024-abcdef123456 end", "slack [REDACTED:slack_token] end"],
    [
      `//registry.npmjs.org/:_authToken=npm_${"aB3".repeat(12)}`,
      "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]",
    ],
    [`password = pypi-AgEIcHlwaS5vcmc${"CJ8_-x".repeat(10)}`, "password = [REDACTED:pypi_token]"],
    ['key: "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"', 'key: "[REDACTED:google_api_key]"'],
    [`STRIPE=sk_live_${"4eC39HqLyjWDarjtT1zdp7dc".repeat(2)}`, "STRIPE=[REDACTED:stripe_key]"],
    [`rk_test_${"51Hx".repeat(8)}`, "[REDACTED:stripe_key]"],
    [`OPENAI=sk-proj-${"Ab1_".repeat(12)}`, "OPENAI=[REDACTED:openai_key]"],
    [`sk-ant-api03-${"Zz9-".repeat(10)}`, "[REDACTED:anthropic_key]"],
    [`id_token=${jwt}&state=1`, "id_token=[REDACTED:jwt]&state=1"],
    [`Authorization: Bearer ${jwt}`, "Authorization: Bearer [REDACTED:bearer_token]"],
    [`cut ${jwt.slice(0, 60)}`, "cut [REDACTED:jwt]"],
    [
      "origin\thttps://gitlab-ci-token:64_abcdef123@gitlab.example.com/acme/api.git (fetch)",
      "origin\thttps://[REDACTED:url_credentials]@gitlab.example.com/acme/api.git (fetch)",
    ],
  ];
  for (const [input, expected] of cases) assert.equal(redactor.redactText(input), expected, input);
});

Deno.test("Redactor.redactText removes every private key block kind when it is PEM armoured", () => {
  for (const label of ["OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]) {
    const block = `-----BEGIN ${label}-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END ${label}-----`;
    assert.equal(redactor.redactText(`a\n${block}\nb`), "a\n[REDACTED:private_key]\nb", label);
  }
  const pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF4\n=abcd\n" +
    "-----END PGP PRIVATE KEY BLOCK-----";
  assert.equal(redactor.redactText(`${pgp}\nrest`), "[REDACTED:private_key]\nrest");
  // A key glued to a token: the block is found first, the token on what is left.
  const glued = `sk-${
    "a".repeat(24)
  }-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----`;
  assert.equal(redactor.redactText(glued), "[REDACTED:openai_key][REDACTED:private_key]");
  // The near miss: public halves and certificates are not secrets.
  for (
    const kept of [
      "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF4\n-----END PGP PUBLIC KEY BLOCK-----",
      "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+g\n-----END CERTIFICATE-----",
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9v user@host",
    ]
  ) assert.equal(redactor.redactText(kept), kept);
});

Deno.test("Redactor.redactText keeps hashes, UUIDs and token-like words when they lack a token's shape", () => {
  const nearMisses = [
    // Hex object names and digests, UUIDs: never tokens.
    "commit 0b9edae4f1c2d3e4a5b6c7d8e9f00112233445566",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "run 0f8c0a6e-3f6e-4d1b-9b7e-2a1c5d9e4f10",
    "AKIA is a prefix, ASIAN food, ASIAY34FZKBOKMUTVV7",
    "glpat-short and glpatch-notes-for-the-quarterly-review",
    "npm_config_registry npm_package_version npm_lifecycle_event",
    `npm_${"a".repeat(20)}`,
    "pypi-publish-workflow-for-the-quarterly-release-of-packages",
    "AIzaTooShort",
    "sk_live_short task_test_abcdefghijklmnopqrstuvwxyz desk_live_abcdefghijklmnopqrstuvwxyz",
    "eyJhbGciOiJIUzI1NiJ9 alone, and eyJhbGciOiJIUzI1NiJ9.notAPayload.x",
    "xoxo-kisses",
    // URLs without a password: a user alone, a port, an address in a path.
    "ssh://git@github.com/acme/api.git https://example.com:8443/a?b=c@d http://host/x@y",
  ];
  for (const text of nearMisses) assert.equal(redactor.redactText(text), text, text);
});

Deno.test("Redactor.spans stays within the match cap when a token runs on for megabytes", () => {
  const runs = [
    `-----BEGIN PRIVATE KEY-----\n${"A".repeat(40_000)}`,
    `-----BEGIN PGP PRIVATE KEY BLOCK-----\n${"B".repeat(40_000)}`,
    `glpat-${"c".repeat(40_000)}`,
    `npm_${"d".repeat(40_000)}`,
    `pypi-AgE${"e".repeat(40_000)}`,
    `sk_live_${"f".repeat(40_000)}`,
    `eyJhbGciOiJSUzI1NiJ9.eyJ${"h".repeat(40_000)}.${"i".repeat(2_000)}`,
  ];
  for (const text of runs) {
    const spans = redactor.spans(text);
    assert.ok(spans.length >= 1, text.slice(0, 12));
    for (const span of spans) {
      assert.ok(span.end - span.start <= MAX_TOKEN_MATCH_CHARS, text.slice(0, 12));
    }
    assert.ok(redactor.maxMatchChars >= MAX_TOKEN_MATCH_CHARS);
  }
});

Deno.test("Redactor redacts a secret too long for the combined prefilter pattern, and near text stays", () => {
  // 16,000 escaped characters make V8 refuse the one-alternation prefilter ("too large"): the
  // stages must still run, not throw.
  const secret = `long-${"q7".repeat(8_000)}`;
  const redactor = new Redactor({ secrets: [secret] });
  const text = `before ${secret} after`;
  assert.ok(!redactor.redactText(text).includes(secret));
  assert.ok(redactor.redactText(text).startsWith("before "));
  assert.equal(redactor.redactText("plain text without it"), "plain text without it");
});

Deno.test("redactText gives a long text the same result when it comes again, also after other long texts", () => {
  const secret = "long-secret-value-0123456789";
  const redactor = new Redactor({ secrets: [secret] });
  const texts = Array.from(
    { length: 6 },
    (_, index) => `${"line of output\n".repeat(40)}${index} ${secret} token ghp_${"a".repeat(36)}`,
  );
  const first = texts.map((text) => redactor.redactText(text));
  for (const [index, text] of [...texts, ...texts.toReversed()].entries()) {
    const redacted = redactor.redactText(text);
    assert.equal(redacted, first[texts.indexOf(text)], `round ${index}`);
    assert.ok(!redacted.includes(secret) && !redacted.includes("ghp_aaaa"));
  }
  // Near miss: a long text without secrets comes back unchanged, from the cache too.
  const plain = "nothing to hide here\n".repeat(30);
  assert.equal(redactor.redactText(plain), plain);
  assert.equal(redactor.redactText(plain), plain);
});

/** The job token actions/checkout persists, as `git config --list` and `.git/config` show it. */
const JOB_TOKEN = `ghs_${"k7Q2".repeat(9)}`;
const JOB_BASIC = btoa(`x-access-token:${JOB_TOKEN}`);

Deno.test("Redactor.redactText removes Basic credentials when their base64 decodes to a password", () => {
  const cases: [string, string][] = [
    [
      `\textraheader = AUTHORIZATION: basic ${JOB_BASIC}`,
      "\textraheader = AUTHORIZATION: basic [REDACTED:basic_credentials]",
    ],
    [
      `http.https://github.com/.extraheader=AUTHORIZATION: basic ${JOB_BASIC}\ncore.bare=false`,
      "http.https://github.com/.extraheader=AUTHORIZATION: basic [REDACTED:basic_credentials]\n" +
      "core.bare=false",
    ],
    // Any user, any password of a token's length, the word in any case, padding or not.
    [
      `Authorization: Basic ${btoa("deploy:correct-horse-9")}`,
      "Authorization: Basic [REDACTED:basic_credentials]",
    ],
    [`BASIC\t${btoa("u:12345678").replace(/=+$/, "")};`, "BASIC\t[REDACTED:basic_credentials];"],
    // The job token's base64 without the word before it (copied, echoed, in a URL).
    [`echo ${JOB_BASIC} | base64 -d`, "echo [REDACTED:basic_credentials] | base64 -d"],
    // A GitHub token scheme header.
    [
      `Authorization: token abcdef0123456789abcdef`,
      "Authorization: token [REDACTED:authorization_token]",
    ],
  ];
  for (const [input, expected] of cases) assert.equal(redactor.redactText(input), expected, input);
  for (const [input] of cases) {
    const redacted = redactor.redactText(input);
    assert.ok(!redacted.includes(JOB_TOKEN) && !redacted.includes(JOB_BASIC.slice(0, 30)), input);
  }
});

Deno.test("Redactor.redactText keeps ordinary base64 and basic prose when they decode to no password (near miss)", () => {
  const nearMisses = [
    "basic authentication is not enough here",
    "a basic building block of the runtime",
    `Basic ${btoa("user:short")}`, // a password shorter than a token
    `basic ${btoa("no colon in this decoded text")}`,
    `basic ${btoa("\u0001\u0002binary:00000000000")}`,
    "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    `data:image/png;base64,${btoa("\x89PNG\r\n\x1a\nIHDR")}`,
    "the token budget: token count 12345678",
    "Authorization: token required for this endpoint",
  ];
  for (const text of nearMisses) assert.equal(redactor.redactText(text), text, text);
});

Deno.test("Redactor.redactValue leaves out what is nested past the depth bound, secrets included", () => {
  const withSecret = (levels: number) =>
    JSON.parse(
      `${"[".repeat(levels)}{"token":"ghp_${"a".repeat(36)}"}${"]".repeat(levels)}`,
    );
  const deep = redactor.redactValue(withSecret(100_000));
  const text = JSON.stringify(deep);
  assert.ok(text.includes(deeperThanMarker()));
  assert.ok(!text.includes("ghp_"));
  // Near miss: at the bound the object is reached and its secret redacted, not dropped.
  const shallow = JSON.stringify(redactor.redactValue(withSecret(MAX_VALUE_DEPTH - 1)));
  assert.ok(shallow.includes("[REDACTED:"), shallow.slice(-80));
  assert.ok(!shallow.includes(deeperThanMarker()));
});
