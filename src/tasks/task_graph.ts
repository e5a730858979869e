/**
 * The rules of a task's step graph, as pure functions the store calls inside its transactions:
 * ids well formed and unique, dependencies that exist, no cycle (named when found), text bounds,
 * and readiness.
 *
 * @module
 */

import {
  MAX_AGENT_ID_BYTES,
  MAX_STEPS_PER_TASK,
  MAX_TEXT_BYTES,
  MAX_TITLE_BYTES,
  type NewStep,
  STEP_ID_PATTERN,
  STEP_STATES,
  type StepState,
  type TaskActor,
  TaskStoreError,
} from "./task_model.ts";

const encoder = new TextEncoder();

/**
 * Refuses a text longer than `maxBytes` in UTF-8.
 *
 * @param what What the text is, for the message, e.g. `title of step "build"`.
 * @throws {TaskStoreError} `invalid_input` with `details: { field, bytes, max_bytes }`.
 */
export function checkTextBytes(what: string, value: string, maxBytes: number): void {
  const bytes = encoder.encode(value).length;
  if (bytes > maxBytes) {
    throw new TaskStoreError(
      "invalid_input",
      `Cannot accept the ${what}: it is ${bytes} bytes, more than the ${maxBytes} allowed`,
      { field: what, bytes, max_bytes: maxBytes },
    );
  }
}

/** A step as the graph sees it: its id and what it depends on. */
export interface GraphNode {
  id: string;
  depends_on: readonly string[];
}

/**
 * Checks steps to be added to a task (all of a new task's, or the additions to an existing one):
 * each id matches {@linkcode STEP_ID_PATTERN} and is unique in the task, each title and
 * instructions fit their bounds, each dependency names a step of the task (not itself, not twice),
 * the task stays within {@linkcode MAX_STEPS_PER_TASK}, and the whole graph has no cycle.
 *
 * @param existing The task's steps so far (`[]` for a new task).
 * @param added The steps to add, at least one.
 * @throws {TaskStoreError} `invalid_input` naming the first problem; a cycle is named in order,
 *   `details.cycle` = `["a", "b", "a"]`.
 * @example
 * ```ts
 * import { checkNewSteps } from "./task_graph.ts";
 * checkNewSteps([], [{ id: "build", title: "Build" }, { id: "test", title: "Test", depends_on: ["build"] }]);
 * ```
 */
export function checkNewSteps(existing: readonly GraphNode[], added: readonly NewStep[]): void {
  if (added.length === 0) {
    throw new TaskStoreError("invalid_input", "Cannot add steps: the list is empty", {});
  }
  const total = existing.length + added.length;
  if (total > MAX_STEPS_PER_TASK) {
    throw new TaskStoreError(
      "invalid_input",
      `Cannot add ${added.length} steps: the task would have ${total} steps, more than the ` +
        `${MAX_STEPS_PER_TASK} allowed`,
      { steps: total, max_steps: MAX_STEPS_PER_TASK },
    );
  }
  const ids = new Set(existing.map((step) => step.id));
  for (const step of added) {
    if (!STEP_ID_PATTERN.test(step.id)) {
      throw new TaskStoreError(
        "invalid_input",
        `Cannot add step "${step.id}": an id is 1 to 64 letters, digits, "_", "-" or ".", ` +
          "starting with a letter or digit",
        { step_id: step.id },
      );
    }
    if (ids.has(step.id)) {
      throw new TaskStoreError(
        "invalid_input",
        `Cannot add step "${step.id}": the task already has a step with that id`,
        { step_id: step.id },
      );
    }
    ids.add(step.id);
    checkTextBytes(`title of step "${step.id}"`, step.title, MAX_TITLE_BYTES);
    checkTextBytes(`instructions of step "${step.id}"`, step.instructions ?? "", MAX_TEXT_BYTES);
  }
  for (const step of added) {
    const seen = new Set<string>();
    for (const dependency of step.depends_on ?? []) {
      if (dependency === step.id) {
        throw new TaskStoreError(
          "invalid_input",
          `Cannot add step "${step.id}": it depends on itself (cycle ${step.id} → ${step.id})`,
          { step_id: step.id, cycle: [step.id, step.id] },
        );
      }
      if (!ids.has(dependency)) {
        throw new TaskStoreError(
          "invalid_input",
          `Cannot add step "${step.id}": it depends on "${dependency}", which is not a step of ` +
            "the task",
          { step_id: step.id, dependency },
        );
      }
      if (seen.has(dependency)) {
        throw new TaskStoreError(
          "invalid_input",
          `Cannot add step "${step.id}": it names the dependency "${dependency}" twice`,
          { step_id: step.id, dependency },
        );
      }
      seen.add(dependency);
    }
  }
  const cycle = findCycle([
    ...existing,
    ...added.map((step) => ({ id: step.id, depends_on: step.depends_on ?? [] })),
  ]);
  if (cycle !== null) {
    throw new TaskStoreError(
      "invalid_input",
      `Cannot add the steps: their dependencies form a cycle (${cycle.join(" → ")}); a task ` +
        "is a graph without cycles",
      { cycle },
    );
  }
}

/**
 * Finds a dependency cycle, or null. Iterative depth-first search, so a chain of
 * {@linkcode MAX_STEPS_PER_TASK} steps cannot overflow the stack.
 *
 * @param nodes Steps whose dependencies all name steps of `nodes`.
 * @returns The cycle in dependency order, first id repeated at the end (`["a", "b", "a"]`: a
 *   depends on b, b on a), or null.
 * @example
 * ```ts
 * import { findCycle } from "./task_graph.ts";
 * const cycle = findCycle([{ id: "a", depends_on: ["b"] }, { id: "b", depends_on: ["a"] }]);
 * console.assert(cycle?.join(" → ") === "a → b → a");
 * ```
 */
export function findCycle(nodes: readonly GraphNode[]): string[] | null {
  const dependencies = new Map(nodes.map((node) => [node.id, node.depends_on]));
  const colour = new Map<string, "open" | "closed">();
  for (const start of nodes) {
    if (colour.has(start.id)) continue;
    const path: string[] = [];
    const frames: { id: string; next: number }[] = [];
    const enter = (id: string) => {
      colour.set(id, "open");
      path.push(id);
      frames.push({ id, next: 0 });
    };
    enter(start.id);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { id: string; next: number };
      const dependency = (dependencies.get(frame.id) ?? [])[frame.next];
      if (dependency === undefined) {
        colour.set(frame.id, "closed");
        frames.pop();
        path.pop();
        continue;
      }
      frame.next++;
      const state = colour.get(dependency);
      if (state === "open") return [...path.slice(path.indexOf(dependency)), dependency];
      if (state === undefined && dependencies.has(dependency)) enter(dependency);
    }
  }
  return null;
}

/**
 * The state a not-yet-claimed step should have: `ready` when every dependency is `done`,
 * else `pending`.
 *
 * @param dependsOn The step's dependencies.
 * @param stateOf The current state of a step of the task, by id.
 */
export function waitingState(
  dependsOn: readonly string[],
  stateOf: (id: string) => StepState | undefined,
): "ready" | "pending" {
  return dependsOn.every((id) => stateOf(id) === "done") ? "ready" : "pending";
}

/**
 * Refuses agent and run ids that are empty or longer than {@linkcode MAX_AGENT_ID_BYTES}.
 *
 * @throws {TaskStoreError} `invalid_input`.
 */
export function checkActor(actor: TaskActor): void {
  for (const [field, value] of [["agent id", actor.agent_id], ["run id", actor.run_id]] as const) {
    if (value.length === 0) {
      throw new TaskStoreError(
        "invalid_input",
        `Cannot act on the task store: the ${field} is empty`,
      );
    }
    checkTextBytes(field, value, MAX_AGENT_ID_BYTES);
  }
}

/**
 * How many steps are in each state, keys in lifecycle order, states with none left out.
 *
 * @example
 * ```ts
 * import { countStates } from "./task_graph.ts";
 * console.assert(JSON.stringify(countStates(["done", "ready", "done"])) === '{"ready":1,"done":2}');
 * ```
 */
export function countStates(states: Iterable<string>): Partial<Record<StepState, number>> {
  const counts = new Map<string, number>();
  for (const state of states) counts.set(state, (counts.get(state) ?? 0) + 1);
  const ordered: Partial<Record<StepState, number>> = {};
  for (const state of STEP_STATES) {
    const count = counts.get(state);
    if (count !== undefined) ordered[state] = count;
  }
  return ordered;
}
