/**
 * Hooks: programs (or in-process functions) run before a tool call's decision is used
 * (PreToolUse: allow, deny or ask; they can only restrict) and after it is recorded (PostToolUse:
 * observe only). Fail closed: a PreToolUse hook that fails denies.
 *
 * @module
 */

export {
  type HookAnswer,
  type HookDecision,
  type HookEvent,
  HookFailure,
  type HookInput,
  type HookTargetScope,
  type PostToolUseHook,
  type PostToolUseInput,
  type PreToolUseHook,
} from "./hook_types.ts";
export { checkHookAnswer, type ParsedHookAnswer, parseHookAnswer } from "./parse_hook_answer.ts";
export {
  type CommandHookEnvironment,
  type CommandHookSpec,
  commandPostToolUseHook,
  commandPreToolUseHook,
} from "./command_hook.ts";
export {
  type HookCall,
  HookRunner,
  type HookRunnerOptions,
  hookScope,
  type PreToolUseVerdict,
} from "./hook_runner.ts";
export { type PreparedHooks, prepareHooks, type PrepareHooksOptions } from "./prepare_hooks.ts";
