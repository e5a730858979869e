/**
 * What every agent of one run tree shares: the config and its agent definitions, the limits, the
 * slots that bound how many children run at once, the numbering of agent ids, the task store, and
 * how a child's model provider and session are made.
 *
 * @module
 */

import type { ModelProvider } from "../agent/mod.ts";
import type { PendingApproval } from "../approval/mod.ts";
import type { LoadedAgentDefinition, LoadedConfig, ModelConfig } from "../config/mod.ts";
import type { SessionOptions } from "../session/mod.ts";
import type { TaskStore } from "../tasks/mod.ts";

/** The session options every child run gets from the root (who approves, the environment…). */
export type ChildSessionOptions = Pick<
  SessionOptions,
  | "env"
  | "approver"
  | "approvalTimeoutMs"
  | "memoryFetch"
  | "mcpFetch"
  | "toolsFetch"
  | "workerEntry"
  | "tools"
  | "probeBubblewrap"
  | "environmentNames"
  | "handlerTimeoutMs"
  | "hooks"
  | "now"
>;

/** Options of {@linkcode AgentTree}. */
export interface AgentTreeOptions {
  config: LoadedConfig;
  /**
   * Builds the provider of a child's model: its definition's `model`, else the config's. Called
   * once per child (a script provider replays its plan from the start for each child).
   */
  providerFor: (model: ModelConfig, definition: LoadedAgentDefinition) => Promise<ModelProvider>;
  /**
   * The task store every agent of the tree shares (the root run's `tasks.sqlite`); it may be given
   * later, once the root run's folder exists ({@linkcode AgentTree.useStore}).
   */
  store?: TaskStore;
  /** Passed to every child's session. @default {} */
  session?: ChildSessionOptions;
}

/**
 * The shared state of one agent tree (the main agent and every child it starts). Bounds children
 * running at once to `agent.max_concurrent_children`, across the whole tree.
 *
 * @example
 * ```ts ignore
 * const tree = new AgentTree({ config, providerFor });
 * tree.useStore(new SqliteTaskStore(`${session.folder.dir}/tasks.sqlite`));
 * const release = await tree.acquire(signal);
 * release();
 * ```
 */
export class AgentTree {
  readonly config: LoadedConfig;
  #store: TaskStore | null;
  readonly session: ChildSessionOptions;
  /**
   * The calls of every child run that needed an approval nobody could give (no approver), with
   * the grant that would let each through: the root run reports them with its own.
   */
  readonly pending: PendingApproval[] = [];
  readonly #providerFor: AgentTreeOptions["providerFor"];
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  readonly #numbers = new Map<string, number>();

  constructor(options: AgentTreeOptions) {
    this.config = options.config;
    this.#store = options.store ?? null;
    this.session = options.session ?? {};
    this.#providerFor = options.providerFor;
  }

  /** Sets the task store (once the root run's folder exists). */
  useStore(store: TaskStore): void {
    this.#store = store;
  }

  /**
   * The tree's task store.
   *
   * @throws {Error} when none was given yet (a bug of the caller).
   */
  get store(): TaskStore {
    if (this.#store === null) throw new Error("Bug: the agent tree has no task store yet");
    return this.#store;
  }

  /** The definition named `id`, or undefined. */
  definition(id: string): LoadedAgentDefinition | undefined {
    return Object.hasOwn(this.config.agents, id) ? this.config.agents[id] : undefined;
  }

  /** Every definition, in config order. */
  get definitions(): LoadedAgentDefinition[] {
    return Object.values(this.config.agents);
  }

  /** A fresh agent id for a child of `definition`: `<definition>-<n>`, n from 1 in the tree. */
  nextAgentId(definition: string): string {
    const number = (this.#numbers.get(definition) ?? 0) + 1;
    this.#numbers.set(definition, number);
    return `${definition}-${number}`;
  }

  /** The provider of a child of `definition`: its own model, else the config's. */
  async providerFor(definition: LoadedAgentDefinition): Promise<ModelProvider> {
    const model = definition.model ?? this.config.model;
    if (model === null) {
      throw new Error(
        `agent "${definition.id}" has no "model" and the config has none; give it one in ` +
          `"agents.${definition.id}.model"`,
      );
    }
    return await this.#providerFor(model, definition);
  }

  /**
   * Waits for a free child slot (`agent.max_concurrent_children` across the tree). Resolves to
   * the function that frees it (call it once).
   *
   * @throws (as a rejection) the signal's reason when it aborts while waiting.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    const limit = this.config.agent.max_concurrent_children;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      this.#waiting.shift()?.();
    };
    if (this.#running < limit) {
      this.#running += 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener("abort", abort);
        this.#running += 1;
        resolve(release);
      };
      const abort = () => {
        const index = this.#waiting.indexOf(start);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason ?? new Error("aborted"));
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener("abort", abort, { once: true });
      this.#waiting.push(start);
    });
  }
}
