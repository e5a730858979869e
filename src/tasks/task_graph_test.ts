import assert from "node:assert/strict";
import { checkNewSteps, findCycle, waitingState } from "./task_graph.ts";
import { MAX_STEPS_PER_TASK, type NewStep, type StepState, TaskStoreError } from "./task_model.ts";

/** The error `body` throws, asserted to be a TaskStoreError with `code`. */
function refusal(body: () => void, code = "invalid_input"): TaskStoreError {
  try {
    body();
  } catch (error) {
    assert.ok(error instanceof TaskStoreError, String(error));
    assert.equal(error.code, code);
    return error;
  }
  assert.fail("expected a TaskStoreError");
}

Deno.test("checkNewSteps refuses a cycle and names it in dependency order", () => {
  const error = refusal(() =>
    checkNewSteps([], [
      { id: "a", title: "A", depends_on: ["c"] },
      { id: "b", title: "B", depends_on: ["a"] },
      { id: "c", title: "C", depends_on: ["b"] },
      { id: "d", title: "D" },
    ])
  );
  assert.deepEqual(error.details.cycle, ["a", "c", "b", "a"]);
  assert.match(error.message, /form a cycle \(a → c → b → a\)/);
});

Deno.test("checkNewSteps refuses a step that depends on itself", () => {
  const error = refusal(() => checkNewSteps([], [{ id: "a", title: "A", depends_on: ["a"] }]));
  assert.deepEqual(error.details.cycle, ["a", "a"]);
});

Deno.test("findCycle tells a shared dependency (no cycle) from a two-step cycle", () => {
  const existing = [{ id: "a", depends_on: ["b"] }, { id: "b", depends_on: [] }];
  assert.equal(findCycle([...existing, { id: "c", depends_on: ["a"] }]), null);
  assert.deepEqual(findCycle([{ id: "a", depends_on: ["c"] }, { id: "c", depends_on: ["a"] }]), [
    "a",
    "c",
    "a",
  ]);
});

Deno.test("checkNewSteps refuses an unknown dependency, a duplicate id and a repeated dependency", () => {
  const unknown = refusal(() =>
    checkNewSteps([], [{ id: "test", title: "T", depends_on: ["biuld"] }])
  );
  assert.match(unknown.message, /depends on "biuld", which is not a step of the task/);
  const duplicate = refusal(() =>
    checkNewSteps([{ id: "build", depends_on: [] }], [{ id: "build", title: "Again" }])
  );
  assert.match(duplicate.message, /already has a step with that id/);
  const twice = refusal(() =>
    checkNewSteps([], [{ id: "a", title: "A" }, { id: "b", title: "B", depends_on: ["a", "a"] }])
  );
  assert.match(twice.message, /names the dependency "a" twice/);
  refusal(() => checkNewSteps([], [{ id: "has space", title: "X" }]));
  refusal(() => checkNewSteps([], []));
  // Near miss: the same graph without the slips is accepted, dependencies on existing steps too.
  checkNewSteps([{ id: "build", depends_on: [] }], [
    { id: "test", title: "T", depends_on: ["build"] },
    { id: "ship.v2", title: "S", depends_on: ["build", "test"] },
  ]);
});

Deno.test("checkNewSteps holds a task to MAX_STEPS_PER_TASK steps, counting existing ones", () => {
  const steps = (count: number, from = 0): NewStep[] =>
    Array.from({ length: count }, (_, index) => ({ id: `s${from + index}`, title: "S" }));
  checkNewSteps([], steps(MAX_STEPS_PER_TASK));
  refusal(() => checkNewSteps([], steps(MAX_STEPS_PER_TASK + 1)));
  const existing = steps(MAX_STEPS_PER_TASK - 1).map((step) => ({ id: step.id, depends_on: [] }));
  checkNewSteps(existing, steps(1, 500));
  const error = refusal(() => checkNewSteps(existing, steps(2, 500)));
  assert.equal(error.details.max_steps, MAX_STEPS_PER_TASK);
});

Deno.test("findCycle walks a chain of 100 steps without a cycle and finds one closed at its end", () => {
  const chain = Array.from({ length: 100 }, (_, index) => ({
    id: `s${index}`,
    depends_on: index === 0 ? [] : [`s${index - 1}`],
  }));
  assert.equal(findCycle(chain), null);
  chain[0] = { id: "s0", depends_on: ["s99"] };
  assert.equal(findCycle(chain)?.length, 101);
});

Deno.test("waitingState is ready only when every dependency is done", () => {
  const states = new Map<string, StepState>([["a", "done"], ["b", "claimed"]]);
  assert.equal(waitingState([], (id) => states.get(id)), "ready");
  assert.equal(waitingState(["a"], (id) => states.get(id)), "ready");
  assert.equal(waitingState(["a", "b"], (id) => states.get(id)), "pending");
});
