/**
 * Hooks: programs (or in-process functions) run before a tool call's decision is used
 * (PreToolUse: allow, deny or ask; they can only restrict) and after it is recorded (PostToolUse:
 * observe only). Fail closed: a PreToolUse hook that fails denies.
 *
 * @module
 */

export { type PostToolUseHook, type PreToolUseHook } from "./hook_types.ts";

export { HookRunner } from "./hook_runner.ts";
export { prepareHooks } from "./prepare_hooks.ts";
