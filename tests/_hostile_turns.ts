// A seeded generator of hostile model turns, as an OpenAI-compatible chat completions server would
// send them: tool calls with arguments deep, wide, huge, in odd Unicode (lone surrogates
// included), invalid or not even text; duplicate, missing and odd ids; unknown tools; cut-off,
// filtered and refused turns; bodies that are not a completion at all. The same seed gives the same
// turns, so a failure replays with KAGENT_PROPERTY_SEED.

/** A small seeded PRNG (mulberry32): the same seed, the same sequence. */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Strings no tokenizer should emit but the wire allows. */
const ODD_TEXTS = [
  "\ud800",
  "a\udfffb",
  "\ud83d",
  "\u0000nul",
  "\u202eevil\u202c",
  "\ufeffbom",
  "e\u0301\u0301\u0301",
  "👩‍👩‍👧‍👦",
  "\u2028line\u2029",
  "..",
  "/etc/passwd",
  "../outside/secret.txt",
  ".env",
  "\\\\?\\C:\\",
  "{{run.id}}",
  "",
];

const TOOL_NAMES = [
  "fs__read_file",
  "fs__list_files",
  "fs__grep_files",
  "fs__write_file",
  "fs__edit_file",
  "fs__delete_file",
  "exec__run_command",
  "skills__list_skills",
  "memory__recall_memory",
  "nope__nothing",
  "fs.read_file",
  "",
  "fs__read_file\u0000",
  "__proto__",
  "constructor",
  "mcp__x__y",
  "\ud800",
];

function oddText(random: Random): string {
  let text = "";
  for (let index = random.below(4); index >= 0; index -= 1) text += random.pick(ODD_TEXTS);
  return text;
}

/** Arguments text nested `levels` deep in arrays and objects, valid JSON. */
function deepText(random: Random, levels: number): string {
  const object = random.chance(0.5);
  const open = object ? '{"a":'.repeat(levels) : "[".repeat(levels);
  const close = object ? "}".repeat(levels) : "]".repeat(levels);
  return `{"path":"README.md","deep":${open}${JSON.stringify(oddText(random))}${close}}`;
}

/** A random JSON value, bounded in size. */
function value(random: Random, budget: number): unknown {
  const kind = random.below(budget <= 0 ? 4 : 7);
  switch (kind) {
    case 0:
      return oddText(random);
    case 1:
      return random.pick([0, -1, 1e308, -0, 3.5, Number.MAX_SAFE_INTEGER + 2]);
    case 2:
      return random.pick([true, false, null]);
    case 3:
      return random.pick(["README.md", "src/main.ts", ".", "deliverables/x.md"]);
    case 4:
      return Array.from({ length: random.below(4) }, () => value(random, budget - 1));
    default: {
      const record: Record<string, unknown> = {};
      for (let index = random.below(4); index > 0; index -= 1) {
        const key = random.pick([
          "path",
          "content",
          "edits",
          "pattern",
          "__proto__",
          "x",
          "\ud800",
        ]);
        Object.defineProperty(record, key, {
          value: value(random, budget - 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return record;
    }
  }
}

/** What `function.arguments` carries: mostly text, sometimes not even that. */
export function argumentsOf(random: Random): unknown {
  const kind = random.below(20);
  if (kind === 0) return deepText(random, random.pick([300, 3_000, 20_000, 200_000]));
  if (kind === 1) return deepText(random, random.pick([31, 32, 33, 255, 256, 257]));
  if (kind === 2) {
    // Wide: many keys or many items.
    return random.chance(0.5)
      ? JSON.stringify(Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i])))
      : `{"path":"README.md","items":[${Array.from({ length: 5_000 }, () => "0").join(",")}]}`;
  }
  if (kind === 3 && random.chance(0.05)) {
    // Huge: past the 1 MiB arguments limit.
    return JSON.stringify({ path: "a.txt", content: "x".repeat(1_100_000) });
  }
  if (kind === 4) {
    return random.pick([
      "",
      "{",
      "nul",
      '{"path":',
      "{'path': 'a'}",
      '{"path":"a",}',
      "[1,2",
      "NaN",
      '"\\ud800"',
      '{"path":"\\ud800"}',
      "{}".repeat(3),
      "\u0000",
    ]);
  }
  if (kind === 5) return random.pick([null, 42, true, { path: "README.md" }, ["a"]]);
  if (kind === 6) return `{"path":"README.md","n":1e999}`;
  if (kind < 12) {
    return JSON.stringify(
      random.pick([
        { path: "README.md" },
        { path: "." },
        { path: oddText(random) },
        { pattern: "TODO", path: "." },
        { path: "deliverables/note.md", content: oddText(random) },
        { path: "README.md", edits: [{ old: "Demo", new: oddText(random) }] },
      ]),
    );
  }
  return JSON.stringify(value(random, 4));
}

/** One tool call as the wire may carry it. */
function toolCall(random: Random, index: number, ids: string[]): Record<string, unknown> {
  const id = random.chance(0.15) && ids.length > 0
    ? random.pick(ids) // a duplicate
    : random.chance(0.05)
    ? random.pick(["", oddText(random)])
    : `call_${index}_${random.below(1_000_000)}`;
  ids.push(id);
  const call: Record<string, unknown> = {
    id,
    type: random.chance(0.97) ? "function" : "custom",
    function: { name: random.pick(TOOL_NAMES), arguments: argumentsOf(random) },
  };
  if (random.chance(0.02)) delete call.id;
  if (random.chance(0.02)) call.function = random.pick([null, "fs__read_file", {}]);
  return call;
}

/**
 * The next answer of the hostile server. With probability `endChance` an answer that ends the run:
 * a final text, a refused, cut-off or filtered turn, an HTTP error or a body that is no completion;
 * otherwise a turn of 0 to 6 tool calls that the loop must answer and go on from.
 */
export function hostileAnswer(random: Random, turn: number, endChance: number): Response {
  const usage = { prompt_tokens: 11, completion_tokens: 7 };
  const ids: string[] = [];
  const calls = () =>
    Array.from({ length: 1 + random.below(6) }, (_, index) => toolCall(random, index, ids));
  if (random.chance(endChance)) {
    switch (random.below(7)) {
      case 0:
        return new Response("not json at all \ud800", { status: 200 });
      case 1:
        return Response.json({ choices: [] });
      case 2:
        return Response.json({ error: { message: "overloaded \ud800" } }, { status: 500 });
      case 3:
        return Response.json({
          choices: [{
            index: 0,
            message: { role: "assistant", content: null, refusal: oddText(random) },
          }],
          usage,
        });
      case 4:
        return Response.json({
          choices: [{
            index: 0,
            message: { role: "assistant", content: null, tool_calls: calls() },
            finish_reason: random.pick(["length", "content_filter"]),
          }],
          usage,
        });
      default:
        return Response.json({
          choices: [{
            index: 0,
            message: { role: "assistant", content: `Done ${oddText(random)}` },
            finish_reason: "stop",
          }],
          usage,
        });
    }
  }
  return Response.json({
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: random.chance(0.3) ? oddText(random) : null,
        tool_calls: calls(),
      },
      finish_reason: "tool_calls",
    }],
    usage: random.chance(0.9) ? usage : { prompt_tokens: -1, completion_tokens: "x" },
    id: `turn-${turn}`,
  });
}
