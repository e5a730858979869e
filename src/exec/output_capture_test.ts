import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { MAX_TOKEN_MATCH_CHARS, Redactor } from "../audit/redactor.ts";
import {
  OutputCapture,
  type OutputCaptureOptions,
  redactionMarginBytes,
} from "./output_capture.ts";
import { tempDir } from "./_test_support.ts";
import { exists } from "../testing/path_exists.ts";

const encoder = new TextEncoder();
const SECRET = "canary-secret-4f1d9e27";
const redactor = new Redactor({ secrets: [SECRET] });
const redact = (text: string) => redactor.redactText(text);

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Feeds `text` as UTF-8 in chunks of `size` bytes (boundaries fall inside characters). */
async function capture(
  text: string | Uint8Array,
  size: number,
  options: OutputCaptureOptions,
) {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  const output = new OutputCapture(options);
  for (let offset = 0; offset < bytes.length; offset += size) {
    await output.write(bytes.slice(offset, offset + size));
  }
  return await output.finish();
}

async function withRunDir(body: (runDir: string, artifactsDir: string) => Promise<void>) {
  const runDir = await tempDir("kagent-capture-");
  try {
    await body(runDir, join(runDir, "artifacts"));
  } finally {
    await Deno.remove(runDir, { recursive: true });
  }
}

Deno.test("OutputCapture keeps the whole text and writes no artifact when the stream fits", async () => {
  await withRunDir(async (runDir, artifactsDir) => {
    const { result, artifact } = await capture("one\ntwo\n", 3, {
      limitBytes: 64,
      artifact: { artifactsDir, runDir, maxBytes: 1024 },
    });
    assert.deepEqual(result, {
      head: "one\ntwo\n",
      tail: "",
      bytes: 8,
      truncated: false,
      text: "one\ntwo\n",
    });
    assert.equal(artifact, null);
    assert.equal(await exists(artifactsDir), false);
  });
});

Deno.test("OutputCapture keeps head and tail with the omitted count when the stream exceeds the limit", async () => {
  const text = "0123456789".repeat(100);
  const { result } = await capture(text, 7, { limitBytes: 20, artifact: null });
  assert.equal(result.head, "0123456789");
  assert.equal(result.tail, "0123456789");
  assert.equal(result.bytes, 1000);
  assert.equal(result.truncated, true);
  assert.equal(result.text, "0123456789\n… [980 bytes omitted] …\n0123456789");
});

Deno.test("OutputCapture keeps the tail right when many small chunks wrap its ring", async () => {
  const text = Array.from({ length: 5000 }, (_, index) => `${index}\n`).join("");
  const { result } = await capture(text, 3, { limitBytes: 40_000, artifact: null });
  assert.equal(result.truncated, false);
  assert.equal(result.text, text);
  const long = await capture(text.repeat(4), 5, { limitBytes: 40_000, artifact: null });
  assert.ok(text.endsWith(long.result.tail));
  assert.equal(encoder.encode(long.result.tail).length, 20_000);
});

Deno.test("OutputCapture decodes characters whole when chunk boundaries fall inside them", async () => {
  await withRunDir(async (runDir, artifactsDir) => {
    const text = "é€😀 ".repeat(50);
    for (const size of [1, 2, 3, 5]) {
      const whole = await capture(text, size, { limitBytes: 1024, artifact: null });
      assert.equal(whole.result.text, text);
      const stored = await capture(text, size, {
        limitBytes: 16,
        artifact: { artifactsDir, runDir, maxBytes: 1 << 20 },
        redact,
      });
      assert.ok(stored.artifact !== null);
      assert.equal(await Deno.readTextFile(join(runDir, stored.artifact.ref)), text);
    }
  });
});

Deno.test("OutputCapture cuts head and tail on character boundaries when a cut falls inside a character", async () => {
  // 11 bytes: "€" is 3 bytes, so byte 5 (half of 10) falls inside the second one.
  for (const size of [1, 4, 64]) {
    const { result } = await capture("a€€" + "x".repeat(30) + "€€b", size, {
      limitBytes: 10,
      artifact: null,
    });
    assert.equal(result.head, "a€");
    assert.equal(result.tail, "€b");
    assert.ok(!result.text.includes("\uFFFD"), result.text);
    assert.ok(encoder.encode(result.head).length <= 5 && encoder.encode(result.tail).length <= 5);
  }
});

Deno.test("OutputCapture redacts a secret split across two chunks in the artifact", async () => {
  await withRunDir(async (runDir, artifactsDir) => {
    const line = `token=${SECRET} and more\n`;
    const text = "ordinary line\n".repeat(10) + line + "x".repeat(200) + "\n";
    const splitAt = 140 + line.indexOf(SECRET) + 5;
    const output = new OutputCapture({
      limitBytes: 32,
      artifact: { artifactsDir, runDir, maxBytes: 1 << 20 },
      redact,
    });
    await output.write(encoder.encode(text.slice(0, splitAt)));
    await output.write(encoder.encode(text.slice(splitAt)));
    const { artifact } = await output.finish();
    assert.ok(artifact !== null);
    const stored = await Deno.readTextFile(join(runDir, artifact.ref));
    assert.ok(!stored.includes(SECRET.slice(0, 12)) && !stored.includes(SECRET.slice(-10)), stored);
    // Near miss: the rest of the text is kept as it was.
    assert.equal(stored, text.replace(SECRET, "[REDACTED:secret_env]"));
  });
});

Deno.test("OutputCapture redacts a secret across the head cut before cutting", async () => {
  const prefix = "a".repeat(15) + " ";
  for (const size of [1, 7, 1024]) {
    const { result } = await capture(`${prefix}${SECRET} ${"b".repeat(200)}`, size, {
      limitBytes: 40,
      artifact: null,
      redact,
    });
    assert.equal(result.head, `${prefix}[RED`);
    // Near miss: an ordinary word at the same place is shown cut, as it is.
    const plain = await capture(`${prefix}ordinary-word-4f1d9e27 ${"b".repeat(200)}`, size, {
      limitBytes: 40,
      artifact: null,
      redact,
    });
    assert.equal(plain.result.head, `${prefix}ordi`);
  }
});

Deno.test("OutputCapture redacts a secret across the tail cut before cutting", async () => {
  const { result } = await capture(`${"b".repeat(200)} ${SECRET} ${"c".repeat(10)}`, 9, {
    limitBytes: 40,
    artifact: null,
    redact,
  });
  assert.equal(result.tail, `cret_env] ${"c".repeat(10)}`);
  assert.ok(!result.text.includes(SECRET.slice(-8)));
});

Deno.test("OutputCapture redacts a private key whose lines arrive in separate chunks", async () => {
  await withRunDir(async (runDir, artifactsDir) => {
    const body = Array.from(
      { length: 20 },
      (_, index) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${index}`,
    );
    const key = ["-----BEGIN PRIVATE KEY-----", ...body, "-----END PRIVATE KEY-----"];
    const output = new OutputCapture({
      limitBytes: 16,
      artifact: { artifactsDir, runDir, maxBytes: 1 << 20 },
      redact,
    });
    await output.write(encoder.encode("before\n"));
    for (const line of key) await output.write(encoder.encode(`${line}\n`));
    await output.write(encoder.encode("after\n"));
    const { artifact } = await output.finish();
    assert.ok(artifact !== null);
    const stored = await Deno.readTextFile(join(runDir, artifact.ref));
    assert.ok(!stored.includes("MIIEvQIBADAN"), stored);
    assert.equal(stored, "before\n[REDACTED:private_key]\nafter\n");
  });
});

Deno.test("OutputCapture keeps a line longer than 64 KiB intact in the artifact", async () => {
  await withRunDir(async (runDir, artifactsDir) => {
    const line = "word ".repeat(40_000) + "\n";
    const { artifact } = await capture(line, 4096, {
      limitBytes: 100,
      artifact: { artifactsDir, runDir, maxBytes: 1 << 20 },
      redact,
    });
    assert.ok(artifact !== null);
    assert.equal(await Deno.readTextFile(join(runDir, artifact.ref)), line);
  });
});

Deno.test("OutputCapture caps the artifact at maxBytes and names it by its sha256", async () => {
  await withRunDir(async (runDir, artifactsDir) => {
    const text = "€".repeat(2000); // 6,000 bytes
    const { result, artifact } = await capture(text, 100, {
      limitBytes: 50,
      artifact: { artifactsDir, runDir, maxBytes: 1000 },
    });
    assert.ok(artifact !== null);
    const stored = await Deno.readFile(join(runDir, artifact.ref));
    assert.deepEqual(artifact, {
      ref: `artifacts/${sha256(stored)}.txt`,
      sha256: sha256(stored),
      bytes: 999,
      media_type: "text/plain; charset=utf-8",
      truncated: true,
      original_bytes: 6000,
    });
    assert.equal(new TextDecoder().decode(stored), "€".repeat(333));
    assert.equal(result.bytes, 6000);
    assert.deepEqual([...Deno.readDirSync(artifactsDir)].map((entry) => entry.name), [
      `${artifact.sha256}.txt`,
    ]);
  });
});

Deno.test("OutputCapture marks the artifact truncated when the cap falls exactly on a chunk end", async () => {
  await withRunDir(async (runDir, artifactsDir) => {
    for (const options of [{}, { redact }]) {
      const text = "a\n".repeat(1000); // 2,000 bytes in chunks of 100: the cap is hit exactly
      const { artifact } = await capture(text, 100, {
        limitBytes: 50,
        artifact: { artifactsDir, runDir, maxBytes: 1000 },
        ...options,
      });
      assert.ok(artifact !== null);
      assert.equal(artifact.bytes, 1000);
      assert.equal(artifact.truncated, true);
      // Near miss: a stream that ends exactly at the cap is complete.
      const exact = await capture(text.slice(0, 1000), 100, {
        limitBytes: 50,
        artifact: { artifactsDir, runDir, maxBytes: 1000 },
        ...options,
      });
      assert.ok(exact.artifact !== null);
      assert.equal(exact.artifact.bytes, 1000);
      assert.equal(exact.artifact.truncated, false);
    }
  });
});

Deno.test("OutputCapture throws from finish and leaves no file when the artifact cannot be written", async () => {
  await withRunDir(async (runDir) => {
    await Deno.writeTextFile(join(runDir, "blocker"), "a file where the folder should be");
    const output = new OutputCapture({
      limitBytes: 4,
      artifact: { artifactsDir: join(runDir, "blocker", "artifacts"), runDir, maxBytes: 100 },
    });
    await output.write(encoder.encode("more than four bytes"));
    await assert.rejects(() => output.finish());
    assert.deepEqual([...Deno.readDirSync(runDir)].map((entry) => entry.name), ["blocker"]);
  });
});

Deno.test("OutputCapture throws RangeError when a limit is negative", () => {
  assert.throws(() => new OutputCapture({ limitBytes: -1, artifact: null }), RangeError);
});

/** A secret just short of the longest match: three of them shrink to 63 bytes when redacted. */
const LONG = `long-secret-${"k".repeat(MAX_TOKEN_MATCH_CHARS - 400)}`;
const longRedact = new Redactor({ secrets: [LONG] }).forStreams();
const MARGIN = redactionMarginBytes(MAX_TOKEN_MATCH_CHARS);
const MARKERS = "[REDACTED:secret_env]".repeat(3);

Deno.test("OutputCapture shows no part of a secret cut by the head window's far edge", async () => {
  // The head window (100 + MARGIN bytes) holds three whole secrets and the start of a fourth;
  // redacted, the three shrink to 63 bytes, so a head cut after redaction alone would show the
  // fourth's start. The window is cut where no secret can be unfinished first.
  const window = 100 + MARGIN;
  for (const inside of [1, 700, window - 3 * LONG.length - 1]) {
    const start = window - inside;
    const text = LONG.repeat(3).padEnd(start, "y") + LONG + "z".repeat(3 * MARGIN);
    for (const size of [4096, 65_536]) {
      const { result } = await capture(text, size, {
        limitBytes: 200,
        artifact: null,
        redact: longRedact,
      });
      assert.ok(!result.head.includes("kkkk") && !result.head.includes("long-secret"), result.head);
      // The cut falls inside the third secret's stretch, so the head ends before it.
      assert.ok(result.head.startsWith("[REDACTED:secret_env]".repeat(2)), result.head);
    }
  }
  // Near miss: without secrets the head is the stream's first 100 bytes.
  const plain = await capture("y".repeat(4 * MARGIN), 4096, {
    limitBytes: 200,
    artifact: null,
    redact: longRedact,
  });
  assert.equal(plain.result.head, "y".repeat(100));
});

Deno.test("OutputCapture shows no part of a secret cut by the tail window's start", async () => {
  // Mirror image: the tail window (100 + MARGIN bytes) starts inside a secret and ends with three.
  const window = 100 + MARGIN;
  for (const inside of [1, 700, window - 3 * LONG.length - 1]) {
    const tail = LONG.slice(LONG.length - inside) + LONG.repeat(3);
    const text = "a".repeat(3 * MARGIN) + LONG.slice(0, LONG.length - inside) +
      tail.padStart(window, "y");
    const { result } = await capture(text, 4096, {
      limitBytes: 200,
      artifact: null,
      redact: longRedact,
    });
    assert.ok(!result.tail.includes("kkkk"), result.tail);
    assert.ok(result.tail.endsWith(MARKERS), result.tail);
  }
  // Near miss: without secrets the tail is the stream's last 100 bytes.
  const plain = await capture("y".repeat(4 * MARGIN) + "end", 4096, {
    limitBytes: 200,
    artifact: null,
    redact: longRedact,
  });
  assert.equal(plain.result.tail, "y".repeat(97) + "end");
});
