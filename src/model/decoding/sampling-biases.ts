import { TokenBias, type LlamaModel, type Token } from "node-llama-cpp";
import type { ChatFormat } from "../../prompt/chat-format.js";
import { WRAP_UP_LOGIT_BIAS } from "./defaults.js";
import type { TokenClasses } from "../grounding/token-classes.js";

/** A model's stops and sampling biases, built once per handle (see TokenRunSetup). */
export interface SamplingBiases {
  /** Banned tokens never sampled: the usual bias, and the wrap-up ones inside a JSON string and between values. */
  biases: {
    base: TokenBias;
    wrapUpInString: TokenBias;
    wrapUpBetweenValues: TokenBias;
    /** Grounding's close of a runaway value: every token that ends a string (a number) alike (TokenClasses.stringEnds). */
    endString: TokenBias;
    endNumber: TokenBias;
  };
  /**
   * The same biases without the banned tokens (`base` is empty): candidate sampling leaves banned tokens out when it
   * picks, and a bias of thousands of `never`s rebuilt for every token would cost more than the pick.
   */
  open: SamplingBiases["biases"];
  /** Tokens never to be sampled (see TokenClasses.banned), as a set for the lazy check of free-text generation. */
  banned: ReadonlySet<Token>;
  /** Token ids that end a turn without being end-of-generation tokens (a text-only end marker of a template). */
  stopTokens: ReadonlySet<Token>;
  /** The end-of-turn text, when it is not one token. */
  stopText: string | undefined;
}

/**
 * The stops and biases of `model` under `chatFormat`: banned tokens never, and for the wrap-up after `maxTokens`
 * (inside a string favour closing it, between values favour closing containers and, half as much, separators).
 */
export function samplingBiases(model: LlamaModel, chatFormat: ChatFormat, classes: TokenClasses): SamplingBiases {
  const endTokens = model.tokenize(chatFormat.endOfTurn, true);
  const endIsOneToken = endTokens.length === 1;
  const stopTokens = new Set(endIsOneToken && !model.isEogToken(endTokens[0]) ? endTokens : []);
  const stopText = endIsOneToken || chatFormat.endOfTurn === "" ? undefined : chatFormat.endOfTurn;
  // A template's end-of-turn marker must stay writable even when its text is empty.
  const banned = new Set(classes.banned.filter((token) => !stopTokens.has(token)));
  const build = (bans: boolean): SamplingBiases["biases"] => {
    const base = new TokenBias(model.tokenizer);
    const wrapUpInString = new TokenBias(model.tokenizer);
    const wrapUpBetweenValues = new TokenBias(model.tokenizer);
    const endString = new TokenBias(model.tokenizer);
    const endNumber = new TokenBias(model.tokenizer);
    if (bans)
      for (const token of banned)
        for (const bias of [base, wrapUpInString, wrapUpBetweenValues, endString, endNumber]) bias.set(token, "never");
    for (const token of classes.stringClosers) wrapUpInString.set(token, { logit: WRAP_UP_LOGIT_BIAS });
    for (const token of classes.containerClosers) wrapUpBetweenValues.set(token, { logit: WRAP_UP_LOGIT_BIAS });
    for (const token of classes.separators) wrapUpBetweenValues.set(token, { logit: WRAP_UP_LOGIT_BIAS / 2 });
    for (const token of classes.stringEnds) endString.set(token, { logit: WRAP_UP_LOGIT_BIAS });
    for (const token of classes.numberEnds) endNumber.set(token, { logit: WRAP_UP_LOGIT_BIAS });
    return { base, wrapUpInString, wrapUpBetweenValues, endString, endNumber };
  };
  return { biases: build(true), open: build(false), banned, stopTokens, stopText };
}
