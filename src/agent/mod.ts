/**
 * The agent loop and its model providers.
 *
 * @module
 */

export {
  ModelError,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type RunContext,
  type TokenUsage,
  type TurnStop,
  type TurnStopReason,
} from "./model_provider.ts";
export { type AgentOptions, type AgentOutcome, type EndReason, runAgent } from "./agent_loop.ts";
export { countResults, type ResultCounts } from "../runtime/mod.ts";
export {
  DEFAULT_INSTRUCTION_FILES,
  type DynamicSystem,
  DynamicSystemBlocks,
  type DynamicSystemOptions,
  type MemoryContextSource,
} from "./dynamic_system.ts";
export { buildSystemPrompt, type SystemPrompt, type SystemPromptInput } from "./system_prompt.ts";
export { ScriptProvider } from "./providers/script_provider.ts";
export { type ResumeStart } from "./resume_start.ts";
export {
  readRecordedConversation,
  type RecordedConversation,
  type WaitingTurn,
} from "./recorded_conversation.ts";
