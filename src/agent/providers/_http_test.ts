import assert from "node:assert/strict";
import { ModelError } from "../model_provider.ts";
import { parseRetryAfter, postJson } from "./_http.ts";
import { ResponseTooLargeError } from "../../network/mod.ts";

type Answer = Response | Error | "hang";

function fakeFetch(answers: Answer[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init: init ?? {} });
    const answer = answers.shift();
    if (answer === undefined) return Promise.reject(new Error("no more answers"));
    if (answer === "hang") {
      return new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    }
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }) as typeof fetch;
  return { fetchImpl, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers });

function recorder() {
  const sleeps: number[] = [];
  return {
    sleeps,
    sleep: (ms: number) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelError);
    return error;
  }
  throw new Error("expected a rejection");
}

Deno.test("postJson waits for Retry-After after a 429 then returns the JSON", async () => {
  const { fetchImpl, calls } = fakeFetch([
    json(429, { error: "slow down" }, { "retry-after": "2" }),
    json(200, { ok: true }),
  ]);
  const { sleeps, sleep } = recorder();
  const result = await postJson("https://api.example/v1/x", { a: 1 }, {
    headers: { authorization: "Bearer secret" },
    timeoutMs: 1000,
    fetch: fetchImpl,
    sleep,
  });
  assert.deepEqual(result, { ok: true });
  assert.deepEqual(sleeps, [2000]);
  assert.equal(calls.length, 2);
  assert.equal(calls[0]?.init.body, '{"a":1}');
});

Deno.test("postJson gives up after the retries with the status and no headers", async () => {
  const { fetchImpl, calls } = fakeFetch([
    json(500, { error: "boom" }),
    json(502, { error: "boom" }),
    json(503, { error: "still boom" }),
  ]);
  const { sleeps, sleep } = recorder();
  const error = await rejection(postJson("https://api.example/v1/x", {}, {
    headers: { authorization: "Bearer secret" },
    timeoutMs: 1000,
    retries: 2,
    backoffMs: 100,
    fetch: fetchImpl,
    sleep,
    random: () => 0.5,
  }));
  assert.equal(error.code, "provider_failed");
  assert.equal(error.details.status, 503);
  assert.equal(error.details.attempts, 3);
  assert.match(String(error.details.body_excerpt), /still boom/);
  assert.match(error.message, /HTTP 503: still boom \(after 3 attempts\)/);
  assert.doesNotMatch(JSON.stringify({ ...error.details, m: error.message }), /secret/);
  assert.equal(calls.length, 3);
  // As the SDKs: the base doubling, shortened by up to 25 % (random 0.5: 12.5 %).
  assert.deepEqual(sleeps, [87, 175]);
});

Deno.test("postJson retries connection errors", async () => {
  const { fetchImpl } = fakeFetch([new TypeError("connection refused"), json(200, [1])]);
  const { sleep } = recorder();
  const result = await postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    fetch: fetchImpl,
    sleep,
  });
  assert.deepEqual(result, [1]);
});

Deno.test("postJson reports a timeout when the server does not answer in time", async () => {
  const { fetchImpl, calls } = fakeFetch(["hang", "hang"]);
  const { sleep } = recorder();
  const error = await rejection(postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 20,
    retries: 1,
    fetch: fetchImpl,
    sleep,
  }));
  assert.match(error.message, /no response within 20 ms \(after 2 attempts\)/);
  assert.equal(error.details.timeout_ms, 20);
  assert.equal(calls.length, 2);
});

Deno.test("postJson does not retry a 400", async () => {
  const { fetchImpl, calls } = fakeFetch([json(400, { error: "bad tools" }), json(200, {})]);
  const { sleeps, sleep } = recorder();
  const error = await rejection(postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    fetch: fetchImpl,
    sleep,
  }));
  assert.equal(error.details.status, 400);
  assert.equal(calls.length, 1);
  assert.deepEqual(sleeps, []);
});

Deno.test("postJson fails on a 200 whose body is not JSON", async () => {
  const { fetchImpl } = fakeFetch([new Response("<html>", { status: 200 })]);
  const error = await rejection(postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    fetch: fetchImpl,
  }));
  assert.match(error.message, /not JSON/);
  assert.equal(error.details.body_excerpt, "<html>");
});

Deno.test("parseRetryAfter reads seconds and HTTP dates up to 60 s, and no longer wait", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("3", now), 3000);
  assert.equal(parseRetryAfter("60", now), 60_000);
  // Above 60 s the SDKs fall back to their own backoff: no server wait.
  assert.equal(parseRetryAfter("600", now), null);
  assert.equal(parseRetryAfter("Wed, 01 Jan 2025 00:00:10 GMT", now), 10_000);
  assert.equal(parseRetryAfter("Wed, 01 Jan 2025 01:00:00 GMT", now), null);
  assert.equal(parseRetryAfter("Tue, 31 Dec 2024 23:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("soon", now), null);
  assert.equal(parseRetryAfter(null, now), null);
});

Deno.test("postJson honours retry-after-ms before Retry-After, as the SDKs do", async () => {
  const { fetchImpl, calls } = fakeFetch([
    json(429, {}, { "retry-after-ms": "12.5", "retry-after": "30" }),
    json(529, { type: "overloaded_error" }, { "retry-after": "1" }),
    json(200, { ok: true }),
  ]);
  const { sleeps, sleep } = recorder();
  const result = await postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    fetch: fetchImpl,
    sleep,
  });
  assert.deepEqual(result, { ok: true });
  assert.deepEqual(sleeps, [13, 1000]);
  assert.equal(calls.length, 3);
});

Deno.test("postJson retries 408, 409 and 529, and follows x-should-retry both ways", async () => {
  const { fetchImpl, calls } = fakeFetch([
    json(408, {}),
    json(409, {}),
    json(529, {}),
    json(400, {}, { "x-should-retry": "true" }),
    json(200, { ok: true }),
  ]);
  const { sleeps, sleep } = recorder();
  const result = await postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    retries: 4,
    backoffMs: 1,
    fetch: fetchImpl,
    sleep,
    random: () => 0,
  });
  assert.deepEqual(result, { ok: true });
  assert.equal(calls.length, 5);
  // 1 ms doubling: 1, 2, 4, 8.
  assert.deepEqual(sleeps, [1, 2, 4, 8]);
  // Near miss: a 503 the server marks x-should-retry false is not retried.
  const refused = fakeFetch([json(503, {}, { "x-should-retry": "false" }), json(200, {})]);
  const error = await rejection(postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    fetch: refused.fetchImpl,
    sleep,
  }));
  assert.equal(error.details.status, 503);
  assert.equal(refused.calls.length, 1);
});

Deno.test("postJson backoff stops doubling at 16 times the first wait (8 s by default)", async () => {
  const answers = Array.from({ length: 7 }, () => json(500, {}));
  const { fetchImpl } = fakeFetch(answers);
  const { sleeps, sleep } = recorder();
  await rejection(postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    retries: 6,
    fetch: fetchImpl,
    sleep,
    random: () => 0,
  }));
  assert.deepEqual(sleeps, [500, 1000, 2000, 4000, 8000, 8000]);
});

Deno.test("postJson does not wait out a Retry-After above 60 s: its own backoff applies, as the SDKs do", async () => {
  const { fetchImpl, calls } = fakeFetch([
    json(429, {}, { "retry-after": "3600" }),
    json(503, {}, { "retry-after-ms": "90000" }),
    json(429, {}, { "retry-after": "2" }),
    json(200, { ok: true }),
  ]);
  const { sleeps, sleep } = recorder();
  const result = await postJson("https://api.example/v1/x", {}, {
    headers: {},
    timeoutMs: 1000,
    retries: 3,
    backoffMs: 100,
    random: () => 0,
    fetch: fetchImpl,
    sleep,
  });
  assert.deepEqual(result, { ok: true });
  assert.equal(calls.length, 4);
  // The hour and the 90 s were not waited for (backoff 100, then 200); the 2 s was (near miss).
  assert.deepEqual(sleeps, [100, 200, 2000]);
});

Deno.test("postJson keeps the reason an error body gives in the message", async () => {
  const { fetchImpl } = fakeFetch([
    json(400, { error: { message: 'model "gpt-x" does not exist', type: "invalid_request" } }),
    new Response("upstream exploded\nstack…", { status: 400 }),
    json(400, { unrelated: true }),
  ]);
  const options = { headers: {}, fetch: fetchImpl, timeoutMs: 1000, retries: 0 };
  const structured = await rejection(postJson("https://api.example.com/v1", {}, options));
  assert.equal(
    structured.message,
    'Cannot call "api.example.com": HTTP 400: model "gpt-x" does not exist',
  );
  const plain = await rejection(postJson("https://api.example.com/v1", {}, options));
  assert.equal(plain.message, 'Cannot call "api.example.com": HTTP 400: upstream exploded');
  // Near miss: a body with no reason leaves the status alone.
  const none = await rejection(postJson("https://api.example.com/v1", {}, options));
  assert.equal(none.message, 'Cannot call "api.example.com": HTTP 400');
});

Deno.test("postJson reports a redirect as a redirect with its Location, never retried", async () => {
  const { fetchImpl, calls } = fakeFetch([
    new Response(null, { status: 302, headers: { location: "https://elsewhere.example/v1" } }),
  ]);
  const error = await rejection(
    postJson("https://api.example.com/v1", {}, {
      headers: {},
      fetch: fetchImpl,
      timeoutMs: 1000,
      retries: 2,
    }),
  );
  assert.equal(calls.length, 1);
  assert.match(
    error.message,
    /^Cannot call "api\.example\.com": it redirects \(HTTP 302\) to "https:\/\/elsewhere\.example\/v1"; kagent-run does not follow redirects/,
  );
  assert.equal(error.details.location, "https://elsewhere.example/v1");
});

Deno.test("postJson reports an answer over the response cap as too large, never as a connection failure, and does not retry", async () => {
  const tooLarge = new ResponseTooLargeError(
    'Cannot read the response of "api.example.com": it is larger than 16777216 bytes',
    16_777_216,
  );
  const { fetchImpl, calls } = fakeFetch([tooLarge, new Error("connection reset")]);
  const options = {
    headers: {},
    fetch: fetchImpl,
    timeoutMs: 1000,
    retries: 2,
    sleep: () => Promise.resolve(),
  };
  const error = await rejection(postJson("https://api.example.com/v1", {}, options));
  assert.equal(calls.length, 1);
  assert.equal(
    error.message,
    'Cannot call "api.example.com": its answer is larger than 16777216 bytes, the most kagent-run reads from a model',
  );
  assert.doesNotMatch(error.message, /connection failed/);
  // Near miss: a real connection failure still says so (and is retried).
  const { fetchImpl: reset } = fakeFetch([new Error("connection reset")]);
  const failed = await rejection(
    postJson("https://api.example.com/v1", {}, { ...options, fetch: reset, retries: 0 }),
  );
  assert.match(failed.message, /connection failed \(connection reset\)/);
});
