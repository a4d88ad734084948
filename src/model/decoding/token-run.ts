import type { LlamaModel, Token, TokenBias } from "node-llama-cpp";
import type { ReplySteer } from "../grounding/reply-steer.js";
import type { Candidates } from "../grounding/decision-steer.js";
import { JsonStringState } from "./json-string-state.js";
import type { SamplingBiases } from "./sampling-biases.js";
import { inLoop } from "./loop-guard.js";
import { TextAssembler } from "./text-assembler.js";

/** What one reply's token run is built from: the handle's model, stops and biases, and this call's limits. */
export interface TokenRunSetup {
  model: LlamaModel;
  /** Token ids that end the turn (not kept in the reply). */
  stopTokens: ReadonlySet<Token>;
  /** A text that ends the turn when the template's end marker is not one token. */
  stopText: string | undefined;
  /** Whether a grammar constrains the reply (past `budget`, the run then wraps up instead of stopping). */
  constrained: boolean;
  /** Tokens the reply may take (maxTokens, within the context). */
  budget: number;
  /** Tokens it may never pass (the budget plus the grammar's wrap-up, within the context). */
  hardLimit: number;
  /** Sampling biases: the usual one, the wrap-up ones, grounding's ends of a value (see SamplingBiases). */
  biases: SamplingBiases["biases"];
  onToken?: (text: string) => void;
  signal?: AbortSignal;
  /**
   * The call's steer (its decision at branch points and its grounding in values: see replySteer) and the bias it
   * writes its per-token logits into (the banned tokens set to never, like `biases.base`); absent: no steering.
   */
  grounding?: { steer: ReplySteer; bias: TokenBias };
}

/**
 * The reply of one `generate` call, token by token: which tokens it kept, when to stop, the bias to sample the next
 * token with (the wrap-up past the budget), the text handed to `onToken`, and the reply's text at the end.
 */
export class TokenRun {
  readonly generated: Token[] = [];
  /** Tokens the model sampled, and tokens fed without sampling (jump-forward), in `generated` now. */
  sampled = 0;
  forced = 0;
  /** Samplings that needed llama.cpp's grammar pass over the whole vocabulary (candidate sampling's fallback). */
  fullPasses = 0;
  /**
   * The batches the model evaluated for this reply, in order (the prompt's tail first; a full pass's second look at
   * a batch not counted): the benchmark replays them without a grammar to price the sampling alone.
   */
  readonly batches: Token[][] = [];
  /** Each sampling: where in `generated` its token went, and the token the model sampled there. */
  readonly samples: [position: number, token: Token][] = [];
  /** The bias for the next token. */
  bias: TokenBias;
  /** Set when the signal aborted between two tokens. */
  aborted = false;
  /**
   * The model's top candidates at the position about to be taken, with their probabilities, when the sampler read
   * them (candidate sampling): the decision reports its branch points with them.
   */
  candidates: Candidates | undefined;
  readonly #setup: TokenRunSetup;
  /**
   * Text is assembled token by token only when someone needs it as it comes (onToken, a text stop); otherwise the
   * reply is detokenized once at the end, which keeps the per-token cost at raw-evaluate level.
   */
  readonly #streamText: boolean;
  readonly #assembler: TextAssembler;
  readonly #jsonState = new JsonStringState();
  /** Past the budget, or in a loop: the reply is being closed (constrained replies only). */
  #wrappingUp = false;
  /** The tokens the grounding bias changed for the last sampling (set back to 0 before the next). */
  #steered: Token[] = [];

  constructor(setup: TokenRunSetup) {
    this.#setup = setup;
    this.bias = setup.biases.base;
    this.#streamText = setup.onToken !== undefined || setup.stopText !== undefined || setup.grounding !== undefined;
    this.#assembler = new TextAssembler(setup.model, setup.stopText);
  }

  /** Take one sampled token; returns true when generation stops here (a stop, the limit, an abort). */
  take(token: Token): boolean {
    if (this.#setup.stopTokens.has(token)) return true;
    this.#setup.grounding?.steer.picked(token, this.candidates);
    this.candidates = undefined;
    this.samples.push([this.generated.length, token]);
    this.generated.push(token);
    this.sampled++;
    return this.#afterText(this.#streamText && this.#assembler.push(token));
  }

  /** Whether `count` more tokens (replacing the last one, with `replacesLast`) stay within the hard limit. */
  fits(count: number, replacesLast: boolean): boolean {
    return this.generated.length - (replacesLast ? 1 : 0) + count <= this.#setup.hardLimit;
  }

  /**
   * Take tokens the grammar forces (jump-forward): `tokens` follow the last sampled token, or replace it
   * (`replacesLast`: its text re-tokenized with theirs); `text` is what they add. Returns true when generation stops.
   */
  takeForced(run: { tokens: readonly Token[]; replacesLast: boolean; forced: number; text: string }): boolean {
    if (run.replacesLast) this.generated.pop();
    // after a sample that stays, `tokens` begin with it: it is in `generated` already
    this.generated.push(...run.tokens.slice(run.tokens.length - run.forced - (run.replacesLast ? 1 : 0)));
    this.forced += run.forced;
    return this.#afterText(this.#streamText && this.#assembler.pushText(run.text));
  }

  /** After the reply grew: hand text to `onToken`, then check the stop text, the abort, the limits. */
  #afterText(stop: boolean): boolean {
    const { onToken, signal, budget, hardLimit } = this.#setup;
    if (onToken) {
      const piece = this.#assembler.takeEmittable(stop);
      if (piece !== "") onToken(piece);
    }
    if (stop) return true;
    if (signal?.aborted) {
      this.aborted = true;
      return true;
    }
    if (this.generated.length >= hardLimit) return true;
    if (this.generated.length >= budget && !this.#setup.constrained) return true;
    if (this.#setup.constrained && (this.#wrappingUp || this.generated.length >= budget || inLoop(this.generated))) {
      this.#wrappingUp = true;
      this.#wrapUp();
    } else if (this.#setup.grounding) this.#ground(this.#setup.grounding);
    return false;
  }

  /** Grounding: the bias for the next token from the steer (copy bonus, closing a runaway value, none). */
  #ground(grounding: { steer: ReplySteer; bias: TokenBias }): void {
    const steering = grounding.steer.next(this.#assembler.text);
    const { base, endString, endNumber } = this.#setup.biases;
    if (steering.type === "close-string") this.bias = endString;
    else if (steering.type === "close-value") this.bias = endNumber;
    if (steering.type !== "bias") {
      if (steering.type === "none") this.bias = base;
      return;
    }
    const byLogit = new Map<number, Token[]>([[0, this.#steered.filter((token) => !steering.logits.has(token))]]);
    for (const [token, logit] of steering.logits) {
      const group = byLogit.get(logit);
      if (group) group.push(token);
      else byLogit.set(logit, [token]);
    }
    for (const [logit, tokens] of byLogit) grounding.bias.set(tokens, { logit });
    this.#steered = [...steering.logits.keys()];
    this.bias = grounding.bias;
  }

  /**
   * Past the budget or in a loop, under a grammar: favour closing the string the reply is in, or else closing its
   * containers.
   */
  #wrapUp(): void {
    const text = this.#streamText ? this.#assembler.text : this.#setup.model.detokenize(this.generated, false);
    const { wrapUpInString, wrapUpBetweenValues } = this.#setup.biases;
    this.bias = this.#jsonState.update(text) ? wrapUpInString : wrapUpBetweenValues;
  }

  /** End of generation: flush a trailing partial character. */
  finish(): void {
    this.#assembler.finish();
  }

  /** The reply's text (stop text excluded); what `onToken` has not had yet is handed to it now. */
  reply(): string {
    if (!this.#streamText) return this.#setup.model.detokenize(this.generated, false);
    if (this.#setup.onToken) {
      const rest = this.#assembler.takeEmittable(true);
      if (rest !== "") this.#setup.onToken(rest);
    }
    return this.#assembler.text;
  }
}
