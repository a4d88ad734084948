import { TokenBias, type LlamaModel } from "node-llama-cpp";
import type { DecisionOptions, GroundingOptions, JsonSchema } from "../model-handle.js";
import { replySteerFor } from "../grounding/grounding-setup.js";
import type { GroundingVocabulary } from "../grounding/grounding-steer.js";
import type { ReplySteer } from "../grounding/reply-steer.js";

/**
 * One constrained call's steer (the decision and grounding: ../grounding/grounding-setup.ts) and the token bias it
 * writes into, with the banned tokens set to never unless `bans` is false (candidate sampling leaves them out itself);
 * undefined when the call has no steer.
 */
export function groundingFor(
  model: LlamaModel,
  vocabulary: GroundingVocabulary,
  grounding: GroundingOptions | undefined,
  schema: JsonSchema | undefined,
  bans = true,
  decision?: DecisionOptions,
): { steer: ReplySteer; bias: TokenBias } | undefined {
  const steer = replySteerFor(vocabulary, grounding, schema, decision);
  if (!steer) return undefined;
  const bias = new TokenBias(model.tokenizer);
  if (bans && vocabulary.banned.size > 0) bias.set([...vocabulary.banned], "never");
  return { steer, bias };
}
