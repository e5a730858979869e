/**
 * The agent loop and its model providers.
 *
 * @module
 */

export {
  ModelError,
  type ModelMessage,
  type ModelProvider,
  type RunContext,
  type TokenUsage,
} from "./model_provider.ts";
export { type AgentOutcome, runAgent } from "./agent_loop.ts";

export { DynamicSystemBlocks } from "./dynamic_system.ts";
export { buildSystemPrompt, type SystemPrompt } from "./system_prompt.ts";
export { ScriptProvider } from "./providers/script_provider.ts";
export { type ResumeStart } from "./resume_start.ts";
export { TokenBudget } from "./token_budget.ts";
export { readRecordedConversation } from "./recorded_conversation.ts";
