/**
 * The sampling loop of a loaded model: a run's tokens sampled on one sequence, free, under llama.cpp's grammar, or by
 * candidate sampling (our GBNF matcher over the model's top tokens, jump-forward, speculation). The handle
 * (llama-model-handle.ts) plans and evaluates the prompt and hands each run here.
 */
import {
  LlamaGrammarEvaluationState,
  type LlamaContextSequence,
  type LlamaModel,
  type ControlledEvaluateInputItem,
  type Token,
} from "node-llama-cpp";
import { abortError } from "../../abort.js";
import type { CallStats } from "../model-handle.js";
import { SPECULATION_DRAFTS, GRAMMAR_CANDIDATES, DEFAULT_TOP_K, DEFAULT_TOP_P } from "../decoding/defaults.js";
import { GbnfMatcher } from "../gbnf/gbnf-matcher.js";
import type { ParsedGbnf } from "../gbnf/gbnf-parse.js";
import { seededRandom } from "../../random.js";
import type { CompiledGrammar } from "../decoding/grammar-cache.js";
import { acceptTokens, canAcceptTokens } from "../decoding/grammar-state.js";
import { JumpForward, type JumpTokenizer } from "../decoding/jump-forward.js";
import { ReplyMatcher, TokenTexts } from "../decoding/reply-matcher.js";
import { CandidateReply, type NextFeed } from "../decoding/candidate-reply.js";
import { type SamplingBiases } from "../decoding/sampling-biases.js";
import { SequenceSlot } from "./sequence-slot.js";
import { TokenRun } from "../decoding/token-run.js";

/** Sampling defaults of a handle (from `loadModel`). */
export interface LlamaSamplingDefaults {
  temperature: number;
  seed?: number;
}

/** One step of the candidates' generator: the sampled token and the top candidates' probabilities. */
interface CandidateStep {
  token: Token;
  probabilities?: Map<Token, number>;
}

type CandidateIterator = AsyncGenerator<CandidateStep, void, void | Token | Token[]>;

/** What one call samples with. */
interface SamplingCall {
  temperature: number;
  grammar: CompiledGrammar | undefined;
  started: number;
  signal: AbortSignal | undefined;
  /** The call's own stats (its time to first token is set while sampling). */
  stats: CallStats;
  /** Under its grammar, candidate sampling picks the tokens (see TokenSampler.#sampleByCandidates). */
  byCandidates: boolean;
}

/** How a speculation batch's check went (see TokenSampler.#speculate). */
interface DraftCheck {
  /** Drafts the picks confirmed. */
  accepted: number;
  /** Whether a pick ended the check (the later positions are not read). */
  settled: boolean;
  /** No candidate was allowed at the check's last position. */
  fullPass: boolean;
  /** What the last confirmed draft asks to evaluate next. */
  step?: NextFeed | undefined;
  /** The pick that was not a draft. */
  pending?: Token;
}

type DraftOptions = { probabilities: true; options: Record<string, unknown> };

/**
 * The items of a speculation batch: `feed`, the candidates asked after its last token and after each draft; `checked`
 * are the drafts' own items, whose options a settled check removes.
 */
function draftBatch(feed: Token[], drafts: Token[], candidates: DraftOptions) {
  const checked = drafts.map((token): [Token, { generateNext?: DraftOptions }] => [
    token,
    { generateNext: candidates },
  ]);
  const items: ControlledEvaluateInputItem[] = [
    ...feed.slice(0, -1),
    [feed[feed.length - 1], { generateNext: candidates }],
    ...checked,
  ];
  return { items, checked };
}

/** Samples the tokens of one run at a time on a sequence of the handle's context (see LlamaModelHandle). */
export class TokenSampler {
  readonly model: LlamaModel;
  readonly biases: SamplingBiases;
  readonly sampling: LlamaSamplingDefaults;
  /** Jump-forward under a grammar (see LlamaModelHandleParts.jumpForward); a benchmark may switch it (bench-access). */
  jumpForward: boolean;
  /** Candidate sampling's candidates per position (GRAMMAR_CANDIDATES; a benchmark may change it). */
  candidates = GRAMMAR_CANDIDATES;
  /** Speculation under candidate sampling (see LlamaModelHandleParts.speculation); a benchmark may switch it. */
  speculation: boolean;
  readonly #jumpTokenizer: JumpTokenizer;
  readonly #tokenTexts: TokenTexts;
  /**
   * The sampling loop: evaluate `input` and take sampled tokens until the run stops. Free text samples without the
   * ban list (node-llama-cpp rebuilds a token-bias list on every token, a cost a tiny model notices) until a banned
   * token comes up; that position is then sampled again with the list. Under a grammar the list is always on (the
   * grammar pass costs far more, and its state has moved with the token).
   */
  async sample(slot: SequenceSlot, run: TokenRun, input: Token[], call: SamplingCall): Promise<void> {
    if (call.signal?.aborted) throw abortError(call.signal.reason);
    if (call.grammar && call.byCandidates && call.grammar.gbnf)
      return this.#sampleByCandidates(slot, run, input, call, call.grammar, call.grammar.gbnf);
    if (call.grammar) return this.#sampleConstrained(slot.sequence, run, input, call, call.grammar);
    let banLazily = true;
    for (let resample = true; resample;) {
      resample = false;
      const iterator = slot.sequence.evaluate(input, {
        ...this.#samplingOptions(call),
        ...(!banLazily && { tokenBias: () => run.bias }),
      });
      for await (const token of iterator) {
        if (banLazily && this.biases.banned.has(token)) {
          banLazily = false;
          resample = true;
          break;
        }
        if (run.generated.length === 0) call.stats.timeToFirstTokenMs = performance.now() - call.started;
        if (run.take(token)) break;
      }
      if (resample) {
        // The banned token was sampled, not evaluated: step back one token and sample its successor again.
        const held = slot.sequence.contextTokens;
        input = held.slice(await slot.align(held));
      }
    }
  }

  /**
   * Sampling under a grammar. With jump-forward, text the grammar forces (the action's opening, keys, separators,
   * the rest of a unique skill name) is not sampled: its tokens are evaluated in one batch with the token before them
   * (see JumpForward), and a reply the grammar closes ends without sampling its end.
   *
   * A reply the grammar finishes on a sampled token (with our matcher: jump-forward on, or candidate sampling) ends
   * there too: llama.cpp's grammar sampler would evaluate that token only to sample the end, a whole decode for
   * nothing. The sequence then holds every generated token but the last, as after any reply, and the next prompt
   * evaluates it in its prefill batch.
   */
  async #sampleConstrained(
    sequence: LlamaContextSequence,
    run: TokenRun,
    input: Token[],
    call: SamplingCall,
    compiled: CompiledGrammar,
  ): Promise<void> {
    let state = new LlamaGrammarEvaluationState({ model: this.model, grammar: compiled.grammar });
    const jump = this.jumpForwardFor(compiled, state);
    const opening = jump?.start();
    if (opening && run.fits(opening.tokens.length, false)) {
      jump!.commit(opening);
      acceptTokens(state, opening.tokens);
      if (run.takeForced(opening) || opening.finished) return;
      input = [...input, ...opening.tokens];
    }
    const iterator = sequence.evaluate(input, {
      ...this.#samplingOptions(call),
      grammarEvaluationState: () => state,
      tokenBias: () => run.bias,
    });
    try {
      let replacement: Token[] | undefined;
      let last: Token | undefined;
      for (;;) {
        // the state before the next token is sampled (and taken into it), for a forced run that re-tokenizes it
        const before = jump?.active ? state.clone() : undefined;
        run.batches.push(last === undefined ? input : (replacement ?? [last]));
        const next = await iterator.next(replacement);
        if (next.done) return;
        last = next.value;
        if (run.generated.length === 0) call.stats.timeToFirstTokenMs = performance.now() - call.started;
        if (run.take(next.value)) return;
        replacement = undefined;
        const forced = jump?.afterSampled(next.value);
        // the grammar allows nothing but the end: stop without evaluating this token (see above)
        if (!forced && jump?.finished) return;
        if (!forced || !before || !run.fits(forced.tokens.length, forced.replacesLast)) continue;
        jump!.commit(forced);
        if (forced.replacesLast) state = before;
        acceptTokens(state, forced.replacesLast ? forced.tokens : forced.tokens.slice(1));
        if (run.takeForced(forced) || forced.finished) return;
        replacement = forced.tokens;
      }
    } finally {
      await iterator.return();
    }
  }

  /**
   * Sampling under a grammar by candidates: llama.cpp gives the model's top candidates (after the token bias, no
   * grammar in its sampler), our matcher of the same GBNF picks the best one the grammar allows (see pickCandidate)
   * and the generator evaluates it. Only when no candidate is allowed does llama.cpp run its grammar over the whole
   * vocabulary, for that one token (see #fullPass). Jump-forward, the wrap-up and the grounding biases work as under
   * llama.cpp's grammar sampler: the same token run gives the bias, the same matcher the forced text.
   */
  async #sampleByCandidates(
    slot: SequenceSlot,
    run: TokenRun,
    input: Token[],
    call: SamplingCall,
    compiled: CompiledGrammar,
    gbnf: ParsedGbnf,
  ): Promise<void> {
    // with a seed, every call draws the same sequence, as llama.cpp's sampler seeded per call does
    const seed = this.sampling.seed;
    const random = seed !== undefined ? seededRandom(seed) : Math.random;
    const reply = new CandidateReply(run, {
      gbnf,
      texts: this.#tokenTexts,
      jumpTokenizer: this.jumpForward ? this.#jumpTokenizer : undefined,
      ends: (token) => this.model.isEogToken(token) || this.biases.stopTokens.has(token),
      banned: this.biases.banned,
      sampling: { temperature: call.temperature, topP: DEFAULT_TOP_P, random },
    });
    let feed = reply.open(input);
    const generator: { iterator?: CandidateIterator } = {};
    try {
      while (feed) {
        const drafts = this.speculation ? this.#drafts(slot, reply.heldBack, feed.length) : [];
        if (drafts.length > 0) {
          await generator.iterator?.return();
          generator.iterator = undefined;
        }
        const step =
          drafts.length > 0
            ? await this.#speculate(slot, run, call, compiled, feed, drafts, reply)
            : await this.#candidateStep(slot, run, call, compiled, feed, reply, generator);
        feed = step?.feed;
      }
    } finally {
      await generator.iterator?.return();
    }
  }

  /**
   * One position by the candidates' generator (a new one evaluates `feed` first; a running one takes it in place of
   * the token it sampled): the pick, or the full pass when no candidate is allowed, taken into `reply`.
   */
  async #candidateStep(
    slot: SequenceSlot,
    run: TokenRun,
    call: SamplingCall,
    compiled: CompiledGrammar,
    feed: Token[],
    reply: CandidateReply,
    generator: { iterator?: CandidateIterator },
  ): Promise<NextFeed | undefined> {
    run.batches.push(feed);
    let next: IteratorResult<CandidateStep, void>;
    if (generator.iterator) next = await generator.iterator.next(feed);
    else next = await (generator.iterator = this.#candidateIterator(slot.sequence, feed, call, run)).next();
    if (next.done) return undefined;
    if (run.generated.length === 0) call.stats.timeToFirstTokenMs = performance.now() - call.started;
    let token = reply.pick(next.value.probabilities);
    if (token === undefined) {
      await generator.iterator.return();
      generator.iterator = undefined;
      run.fullPasses++;
      token = await this.#fullPass(slot, run, call, compiled, slot.sequence.contextTokens, feed.length);
      if (token === undefined) return undefined;
    }
    return reply.after(token, false);
  }

  /**
   * The drafts to check after `feed` (speculation): the tokens jump-forward held back (the forced text's last tokens,
   * `":"` before a string's content), SPECULATION_DRAFTS at most, within the context.
   */
  #drafts(slot: SequenceSlot, heldBack: Token[], feed: number): Token[] {
    const room = slot.sequence.contextSize - 1 - slot.sequence.nextTokenIndex - feed;
    return heldBack.slice(0, Math.max(0, Math.min(SPECULATION_DRAFTS, room)));
  }

  /**
   * Speculation: evaluate `feed` and `drafts` in one batch, with the top candidates after the last fed token and after
   * each draft. Position by position (node-llama-cpp samples a batch's positions in order, and asks for each one's
   * bias only once the position before is done), the pick is made as without drafts; while it is the next draft, the
   * draft is taken and the next position's candidates, biased for the reply with it, are already there. The first
   * pick that is not a draft ends the check: the drafts after it are erased from the sequence. The reply is the one
   * the same picks make without drafts; only the batches differ. Returns what to evaluate next.
   */
  async #speculate(
    slot: SequenceSlot,
    run: TokenRun,
    call: SamplingCall,
    compiled: CompiledGrammar,
    feed: Token[],
    drafts: Token[],
    reply: CandidateReply,
  ): Promise<NextFeed | undefined> {
    const start = slot.sequence.nextTokenIndex;
    const { items, checked } = draftBatch(feed, drafts, {
      probabilities: true,
      options: {
        temperature: 1,
        topK: this.candidates,
        topP: 1,
        tokenBias: () => run.bias,
        ...(this.sampling.seed !== undefined && { seed: this.sampling.seed }),
      },
    });
    const check: DraftCheck = { accepted: 0, settled: false, fullPass: false };
    run.batches.push([...feed, ...drafts]);
    await slot.sequence.controlledEvaluate(items, {
      onTokenResult: (index, output) => {
        if (check.settled || index < feed.length - 1) return;
        if (run.generated.length === 0) call.stats.timeToFirstTokenMs = performance.now() - call.started;
        const position = index - (feed.length - 1);
        const token = reply.pick(output.next.probabilities);
        if (token === undefined) check.settled = check.fullPass = true;
        else if (position < drafts.length && token === drafts[position]) {
          check.accepted++;
          check.step = reply.after(token, true);
          check.settled = !check.step || check.step.feed.length > 0 || check.step.erase > 0;
        } else {
          check.settled = true;
          check.pending = token;
        }
        // the positions after a settled check are not sampled
        if (check.settled) for (const item of checked.slice(position)) delete item[1].generateNext;
      },
    });
    return this.#afterCheck(slot, run, call, compiled, reply, check, start + feed.length, feed.length);
  }

  /**
   * After a speculation batch: keep the fed tokens (the sequence held `fedTo` tokens with them) and the confirmed
   * drafts (less one a forced run re-tokenizes), erase the rest, and go on from the check's last pick (or the full
   * pass at its position).
   */
  async #afterCheck(
    slot: SequenceSlot,
    run: TokenRun,
    call: SamplingCall,
    compiled: CompiledGrammar,
    reply: CandidateReply,
    check: DraftCheck,
    fedTo: number,
    fed: number,
  ): Promise<NextFeed | undefined> {
    const keep = fedTo + check.accepted - (check.step?.erase ?? 0);
    const held = slot.sequence.contextTokens;
    if (check.fullPass) {
      run.fullPasses++;
      const token = await this.#fullPass(slot, run, call, compiled, held.slice(0, keep), fed + check.accepted);
      return token === undefined ? undefined : reply.after(token, false);
    }
    // (a sliding window that cannot lose its last cells starts over: what it lost is fed again)
    const from = keep < held.length ? await slot.align(held.slice(0, keep + 1)) : keep;
    let step = check.step;
    if (check.pending !== undefined) step = reply.after(check.pending, false);
    else if (step?.feed.length === 0) throw new Error("speculation: no candidates after the batch's last draft");
    return step && { feed: [...held.slice(from, keep), ...step.feed], erase: 0 };
  }

  /** The candidates' generator: top GRAMMAR_CANDIDATES tokens with probabilities, end-of-generation tokens included. */
  #candidateIterator(
    sequence: LlamaContextSequence,
    input: Token[],
    call: SamplingCall,
    run: TokenRun,
  ): CandidateIterator {
    return sequence.evaluateWithMetadata(
      input,
      { probabilities: true },
      {
        temperature: 1,
        topK: this.candidates,
        topP: 1,
        tokenBias: () => run.bias,
        yieldEogToken: true,
        ...(this.sampling.seed !== undefined && { seed: this.sampling.seed }),
      },
    );
  }

  /**
   * No candidate was allowed after `upTo`, the tokens the sequence holds (or should: speculation's rejected drafts
   * are not among them): step back over the last batch (`lastBatch` tokens: evaluated again as they were, so that
   * the logits are the same ones) and sample this position again with llama.cpp's grammar (a state rebuilt over the
   * reply so far), which passes over the whole vocabulary. Undefined: the model ended the reply.
   */
  async #fullPass(
    slot: SequenceSlot,
    run: TokenRun,
    call: SamplingCall,
    compiled: CompiledGrammar,
    upTo: Token[],
    lastBatch: number,
  ): Promise<Token | undefined> {
    const state = new LlamaGrammarEvaluationState({ model: this.model, grammar: compiled.grammar });
    acceptTokens(state, run.generated);
    const from = await slot.align(upTo.slice(0, upTo.length - Math.max(1, lastBatch) + 1));
    const iterator = slot.sequence.evaluate(upTo.slice(from), {
      ...this.#samplingOptions(call),
      grammarEvaluationState: state,
      tokenBias: () => run.bias,
    });
    try {
      const next = await iterator.next();
      return next.done ? undefined : next.value;
    } finally {
      await iterator.return();
    }
  }

  /** Jump-forward for one reply under `compiled`, when it is on and both our GBNF reader and node-llama-cpp can. */
  jumpForwardFor(compiled: CompiledGrammar, state: LlamaGrammarEvaluationState): JumpForward | undefined {
    if (!this.jumpForward || !compiled.gbnf || !canAcceptTokens(state)) return undefined;
    return new JumpForward(new ReplyMatcher(new GbnfMatcher(compiled.gbnf), this.#tokenTexts), this.#jumpTokenizer);
  }

  #samplingOptions(call: SamplingCall) {
    return {
      temperature: call.temperature,
      topK: DEFAULT_TOP_K,
      topP: DEFAULT_TOP_P,
      ...(this.sampling.seed !== undefined && { seed: this.sampling.seed }),
    };
  }

  constructor(
    model: LlamaModel,
    biases: SamplingBiases,
    sampling: LlamaSamplingDefaults,
    levers: { jumpForward: boolean; speculation: boolean },
  ) {
    this.model = model;
    this.biases = biases;
    this.sampling = sampling;
    this.jumpForward = levers.jumpForward;
    this.speculation = levers.speculation;
    this.#jumpTokenizer = {
      tokenize: (text) => model.tokenize(text, false),
      detokenize: (tokens) => model.detokenize(tokens, false),
    };
    this.#tokenTexts = new TokenTexts((tokens) => model.detokenize(tokens, false));
  }
}
