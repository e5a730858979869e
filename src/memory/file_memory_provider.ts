/**
 * A {@linkcode MemoryProvider} over JSON Lines files: one file a scope, `<folder>/<scope>.jsonl`,
 * except `project`, kept per project in `<folder>/projects/<key>.jsonl` (see
 * `project_identity.ts`); ranked recall with BM25.
 *
 * @module
 */

import * as nodePath from "node:path";
import { bm25Scores, tokenize } from "./_bm25.ts";
import {
  DEFAULT_MEMORY_SCOPES,
  MemoryError,
  type MemoryProvider,
  type MemoryRecord,
  memoryRecordSchema,
  validateContent,
  validateLimit,
  validateQuery,
  validateScope,
  validateTags,
} from "./memory_provider.ts";

/** Options of {@linkcode FileMemoryProvider}. */
export interface FileMemoryProviderOptions {
  /**
   * Absolute folder of the scope files, created on the first write. It must be outside the run's
   * workspace (the caller checks), or tools could rewrite memories behind the provider's back.
   * `null`: there is no memory folder (the default one lies inside the workspace and was dropped);
   * recall then finds nothing and a write fails with `unavailable`.
   */
  folder: string | null;
  /** Allowed scope names. @default ["run", "project", "user"] */
  scopes?: readonly string[];
  /** The clock for `created_at`. @default () => new Date() */
  now?: () => Date;
  /** Makes record ids. @default crypto.randomUUID */
  newId?: () => string;
  /**
   * The key of the workspace's project (`ProjectIdentity.key`): the `project` scope is kept in
   * `<folder>/projects/<key>.jsonl`, so workspaces of other projects never see it. `null` keeps
   * it in `<folder>/project.jsonl`, shared by every workspace using the folder. @default null
   */
  projectKey?: string | null;
}

/**
 * Stores memories as JSON Lines, one file a scope (mode 0600). Writes and reads go through one
 * queue, so appends never interleave and a recall sees every earlier write. Lines that are not a
 * valid record (a torn last line, a hand edit) are skipped on recall.
 *
 * Recall scores the scope's records with BM25 (k1 = 1.2, b = 0.75) over lower-case words and
 * returns those with a positive score, best first, ties broken by recency (newest first). A
 * query with no words returns the newest records, with score 0.
 *
 * @example
 * ```ts
 * import { FileMemoryProvider } from "./file_memory_provider.ts";
 * const folder = await Deno.makeTempDir();
 * const provider = new FileMemoryProvider({ folder });
 * await provider.write("Tests need --allow-net=127.0.0.1", "project", ["testing"]);
 * const [best] = await provider.recall("allow net tests", "project", 5);
 * console.assert(best?.tags[0] === "testing");
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export class FileMemoryProvider implements MemoryProvider {
  /** Always `file`. */
  readonly name = "file";
  readonly #folder: string | null;
  readonly #scopes: readonly string[];
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #projectKey: string | null;
  #queue: Promise<unknown> = Promise.resolve();

  /** @param options See {@linkcode FileMemoryProviderOptions}. */
  constructor(options: FileMemoryProviderOptions) {
    if (options.folder !== null && !nodePath.isAbsolute(options.folder)) {
      throw new TypeError(`Cannot open memory folder "${options.folder}": it is not absolute`);
    }
    this.#folder = options.folder;
    this.#scopes = options.scopes ?? DEFAULT_MEMORY_SCOPES;
    this.#now = options.now ?? (() => new Date());
    this.#newId = options.newId ?? (() => crypto.randomUUID());
    const key = options.projectKey ?? null;
    if (key !== null && !/^[0-9a-f]{8,64}$/.test(key)) {
      throw new TypeError(
        `Cannot use project key "${key}": it is not 8 to 64 lower-case hex digits`,
      );
    }
    this.#projectKey = key;
  }

  /**
   * The file of a scope (validated), e.g. `<folder>/user.jsonl`, or `<folder>/projects/<key>.jsonl`
   * for `project` with a project key; null when there is no memory folder.
   */
  fileOf(scope: string): string | null {
    const name = validateScope(scope, this.#scopes);
    if (this.#folder === null) return null;
    if (name === "project" && this.#projectKey !== null) {
      return nodePath.join(this.#folder, "projects", `${this.#projectKey}.jsonl`);
    }
    return nodePath.join(this.#folder, `${name}.jsonl`);
  }

  /** See {@linkcode MemoryProvider.recall}. */
  async recall(query: string, scope: string, limit: number): Promise<MemoryRecord[]> {
    validateQuery(query);
    validateLimit(limit);
    const file = this.fileOf(scope);
    if (file === null) return [];
    return await this.#enqueue(async () => rank(query, await readRecords(file, scope), limit));
  }

  /** See {@linkcode MemoryProvider.write}. */
  async write(content: string, scope: string, tags: string[]): Promise<MemoryRecord> {
    validateContent(content);
    const file = this.fileOf(scope);
    if (file === null) {
      throw new MemoryError(
        "unavailable",
        `Cannot write memory to scope "${scope}": there is no memory folder (the default one ` +
          'lies inside the workspace; set "memory.folder" to a folder outside it)',
        { scope },
      );
    }
    const record: MemoryRecord = {
      id: this.#newId(),
      scope,
      content,
      tags: validateTags(tags),
      created_at: this.#now().toISOString(),
    };
    return await this.#enqueue(async () => {
      try {
        await Deno.mkdir(nodePath.dirname(file), { recursive: true, mode: 0o700 });
        await Deno.writeTextFile(file, JSON.stringify(record) + "\n", {
          append: true,
          create: true,
          mode: 0o600,
        });
      } catch (error) {
        throw new MemoryError(
          "unavailable",
          `Cannot write memory to "${file}": ${reasonOf(error)}`,
          { file },
          { cause: error },
        );
      }
      return record;
    });
  }

  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}

async function readRecords(file: string, scope: string): Promise<MemoryRecord[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw new MemoryError(
      "unavailable",
      `Cannot recall memory from "${file}": ${reasonOf(error)}`,
      { file },
      { cause: error },
    );
  }
  const records: MemoryRecord[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const result = memoryRecordSchema.safeParse(parsed);
    if (result.success && result.data.scope === scope) {
      const { score: _score, ...record } = result.data;
      records.push(record);
    }
  }
  return records;
}

/** BM25 ranking, ties (and the no-word query) by recency: later `created_at`, then later line. */
function rank(query: string, records: MemoryRecord[], limit: number): MemoryRecord[] {
  const scores = bm25Scores(query, records.map((record) => record.content));
  const hasWords = tokenize(query).length > 0;
  const scored = records
    .map((record, index) => ({ record, index, score: scores[index] ?? 0 }))
    .filter((entry) => !hasWords || entry.score > 0);
  scored.sort((left, right) =>
    right.score - left.score ||
    right.record.created_at.localeCompare(left.record.created_at) ||
    right.index - left.index
  );
  return scored.slice(0, limit).map(({ record, score }) => ({ ...record, score }));
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
