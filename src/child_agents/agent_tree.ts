/**
 * What every agent of one run tree shares: the config and its agent definitions, the limits, the
 * slots that bound how many children run at once, the numbering of agent ids, the task store, and
 * the services every child run is assembled with.
 *
 * @module
 */

import type { PendingApproval } from "../approval/mod.ts";
import type { RunServices } from "../assembly/mod.ts";
import type { LoadedAgentDefinition, LoadedConfig, ModelConfig } from "../config/mod.ts";
import type { TaskStore } from "../tasks/mod.ts";

/** Options of {@linkcode AgentTree}. */
export interface AgentTreeOptions {
  config: LoadedConfig;
  /**
   * The root run's services: every child run is assembled with them (its provider made by their
   * `providerFor`, the same approver and network boundary), with the tree's task store.
   */
  services: RunServices;
}

/**
 * The shared state of one agent tree (the main agent and every child it starts). Bounds children
 * running at once to `agent.max_concurrent_children`, across the whole tree.
 *
 * @example
 * ```ts ignore
 * const tree = new AgentTree({ config, services });
 * tree.useStore(new SqliteTaskStore(`${session.folder.dir}/tasks.sqlite`));
 * const release = await tree.acquire(signal);
 * release();
 * ```
 */
export class AgentTree {
  readonly config: LoadedConfig;
  #store: TaskStore | null = null;
  readonly #services: RunServices;
  /**
   * The calls of every child run that needed an approval nobody could give (no approver), with
   * the grant that would let each through: the root run reports them with its own.
   */
  readonly pending: PendingApproval[] = [];
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  readonly #numbers = new Map<string, number>();

  constructor(options: AgentTreeOptions) {
    this.config = options.config;
    this.#services = options.services;
  }

  /** The services a child run is assembled with: the root's, with the tree's task store. */
  get services(): RunServices {
    return { ...this.#services, taskStore: this.store };
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

  /**
   * The model of a child of `definition`: its own, else the config's.
   *
   * @throws {Error} when neither is set, saying where to give one.
   */
  modelOf(definition: LoadedAgentDefinition): ModelConfig {
    const model = definition.model ?? this.config.model;
    if (model === null) {
      throw new Error(
        `agent "${definition.id}" has no "model" and the config has none; give it one in ` +
          `"agents.${definition.id}.model"`,
      );
    }
    return model;
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
