/**
 * What `agent.plan_template` and `agent.task_template` return: a plan to fill in before work of
 * several steps, and an example task with the rules a task must keep.
 *
 * A plan is the main agent's own outline of the work (goal, facts, steps with dependencies and
 * checks, risks, verification); it lives in the conversation. A task is the plan's steps made
 * shared state: stored, claimable by workers, each step with an owner and a result.
 *
 * @module
 */

import { MAX_STEPS_PER_TASK } from "./task_model.ts";

/** The plan template, as markdown for the model to fill in. */
export const PLAN_TEMPLATE = `# Plan: <the goal in one line>

## Goal
<What is true when the work is done, and how you will check it.>

## Facts and constraints
- <What you know: files read, tools available, limits of this run.>
- <What you assume and still have to verify.>

## Steps
| id | what | depends on | done when |
| -- | ---- | ---------- | --------- |
| <survey> | <read the relevant files> | - | <the files to change are named> |
| <change> | <make the change> | survey | <the change is written> |
| <check> | <run the checks> | change | <the checks pass> |

## Risks
- <What could go wrong, and what you will do then.>

## Verification
- <The checks that prove the goal: tests, commands, files to read.>

Steps that can run in parallel should not depend on each other. For work that other agents
share, create a task from the steps with agent.task_create (same ids and dependencies).
`;

/** The section names of {@linkcode PLAN_TEMPLATE}, in order. */
export const PLAN_SECTIONS = [
  "Goal",
  "Facts and constraints",
  "Steps",
  "Risks",
  "Verification",
] as const;

/** An example of `agent.task_create`'s arguments. */
export const TASK_EXAMPLE = {
  title: "Add input validation to the settings form",
  description: "Reject empty and over-long names in src/settings.ts; done when the tests pass.",
  steps: [
    {
      id: "survey",
      title: "Find where settings are parsed",
      instructions: "Read src/settings.ts and its tests; report the functions to change.",
    },
    {
      id: "tests",
      title: "Write failing tests",
      instructions: "Add tests for an empty and a 300-character name.",
      depends_on: ["survey"],
    },
    {
      id: "change",
      title: "Validate the name",
      instructions: "Make the tests pass without changing other behaviour.",
      depends_on: ["survey", "tests"],
    },
  ],
};

/** The rules shown with {@linkcode TASK_EXAMPLE}. */
export const TASK_RULES = [
  `A task has 1 to ${MAX_STEPS_PER_TASK} steps; each step id is unique in the task ` +
  '(letters, digits, "_", "-", ".").',
  "depends_on names steps of the same task; the dependencies must not form a cycle.",
  "A step is ready when all its dependencies are done; steps without dependencies are ready " +
  "at once. An agent claims a ready step (only one agent can), works on it, and reports it " +
  "done or failed with a result.",
  "Instructions should say what to do and what to report, so that an agent that sees only " +
  "the step can do it.",
  "Only the creator changes, completes, fails or cancels the task; completing needs every " +
  "step done.",
];
