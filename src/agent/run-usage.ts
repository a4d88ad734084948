import type { ModelHandle } from "../model/model-handle.js";
import { estimateTokens } from "../memory/token-counter.js";
import type { AgentState } from "./agent-state.js";
import type { ModelCallTokens } from "./events.js";

/**
 * Count one model call into the run's usage: its prompt and generated tokens as the model reported them; for a model
 * that reports none, the prompt counted with its tokenizer (`countTokens`) when it has one, and otherwise, like the
 * reply, estimated from the text (the usage is then marked `estimated`). Returns the call's counts.
 */
export async function recordUsage(
  state: AgentState,
  call: { tokens?: ModelCallTokens; text: string },
  prompt: string,
  model: Pick<ModelHandle, "countTokens">,
): Promise<{ inputTokens: number; outputTokens: number; estimated: boolean }> {
  const estimated = call.tokens === undefined;
  const inputTokens =
    call.tokens?.prompt ??
    (typeof model.countTokens === "function" ? await model.countTokens(prompt) : estimateTokens(prompt));
  const outputTokens = call.tokens?.generated ?? estimateTokens(call.text);
  state.usage.inputTokens += inputTokens;
  state.usage.outputTokens += outputTokens;
  state.usage.largestPrompt = Math.max(state.usage.largestPrompt, inputTokens);
  if (estimated) state.usage.estimated = true;
  return { inputTokens, outputTokens, estimated };
}
