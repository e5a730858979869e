import assert from "node:assert/strict";
import * as nodePath from "node:path";
import {
  MAX_SENSITIVE_FILE_BYTES,
  MAX_SENSITIVE_FILES,
  secretValuesOf,
  sensitiveFileSecrets,
} from "./sensitive_file_secrets.ts";

const ENV_FILE = [
  "# database",
  "export DB_PASSWORD='correct horse battery'",
  'API_TOKEN="tok_4f1c9e2a7b"  # rotated monthly',
  "STRIPE_SIGNING_KEY=whsec-plain-letters",
  "SESSION_SALT: kdf-salt-value",
  "RANDOM_ID=Zq81kV03mXe7Lp",
  "NODE_ENV=development",
  "PORT=8080",
  "DATABASE_URL=postgres://localhost:5432/app",
  "APP_NAME=my-wonderful-application",
  "SHORT_TOKEN=abc",
  "",
].join("\n");

Deno.test("secretValuesOf takes the values of secret-named keys and generated-looking values", () => {
  assert.deepEqual(secretValuesOf(ENV_FILE), [
    "correct horse battery",
    "tok_4f1c9e2a7b",
    "whsec-plain-letters",
    "kdf-salt-value",
    "Zq81kV03mXe7Lp",
  ]);
});

Deno.test("secretValuesOf keeps configuration that is not secret when it is readable words, numbers or plain URLs (near miss)", () => {
  const values = secretValuesOf(ENV_FILE);
  for (const plain of ["development", "8080", "postgres://localhost:5432/app"]) {
    assert.ok(!values.includes(plain), plain);
  }
  assert.ok(!values.includes("my-wonderful-application"));
  assert.ok(!values.includes("abc"), "shorter than the shortest secret");
});

Deno.test("secretValuesOf takes a raw key line and leaves a PEM block to its pattern", () => {
  const pem =
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
  assert.deepEqual(secretValuesOf(pem), []);
  assert.deepEqual(secretValuesOf("8f14e45fceea167a5a36dedd4bea2543\n"), [
    "8f14e45fceea167a5a36dedd4bea2543",
  ]);
});

Deno.test("sensitiveFileSecrets reads sensitive files at any depth and skips .git, node_modules, links and big files", async () => {
  const root = await Deno.makeTempDir({ prefix: "kagent-file-secrets-" });
  try {
    const write = async (path: string, text: string) => {
      await Deno.mkdir(nodePath.dirname(nodePath.join(root, path)), { recursive: true });
      await Deno.writeTextFile(nodePath.join(root, path), text);
    };
    await write(".env", "API_TOKEN=top-level-token-1\n");
    await write("services/api/.env.production", "JWT_SECRET=deep-secret-value-2\n");
    await write("config/master.key", "0123456789abcdef0123456789abcdef\n");
    await write("README.md", "SECRET=not-a-sensitive-file-3\n");
    await write(".git/.env", "API_TOKEN=inside-git-4\n");
    await write("node_modules/pkg/.env", "API_TOKEN=in-packages-5\n");
    await write("big/.env", `API_TOKEN=too-big-6\n${"#".repeat(MAX_SENSITIVE_FILE_BYTES)}\n`);
    await Deno.symlink(nodePath.join(root, "README.md"), nodePath.join(root, "linked.env"));
    const found = sensitiveFileSecrets({
      roots: [root, nodePath.join(root, "services")],
      sensitiveMatch: (path) =>
        /\/\.env(\.[^/]*)?$|\.key$|\/linked\.env$/.test(path) ? "sensitive" : null,
      exclusions: [],
    });
    assert.deepEqual(found.values.sort(), [
      "0123456789abcdef0123456789abcdef",
      "deep-secret-value-2",
      "top-level-token-1",
    ]);
    assert.equal(found.files.length, 3);
    assert.equal(found.incomplete, null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("sensitiveFileSecrets stops at its file bound and says so", async () => {
  const root = await Deno.makeTempDir({ prefix: "kagent-file-secrets-" });
  try {
    for (let index = 0; index <= MAX_SENSITIVE_FILES; index++) {
      await Deno.writeTextFile(nodePath.join(root, `${index}.key`), `k3y-value-${index}-padding\n`);
    }
    const found = sensitiveFileSecrets({
      roots: [root],
      sensitiveMatch: (path) => path.endsWith(".key") ? "*.key" : null,
      exclusions: [],
    });
    assert.equal(found.files.length, MAX_SENSITIVE_FILES);
    assert.match(found.incomplete ?? "", /more than 256 sensitive files/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
