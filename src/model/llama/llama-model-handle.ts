import {
  LlamaGrammarEvaluationState,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
  type ControlledEvaluateInputItem,
  type Token,
} from "node-llama-cpp";
import { abortError, raceAbort } from "../../abort.js";
import type { ChatFormat } from "../../prompt/chat-format.js";
import type { CallStats, GenerateOptions, GenerationStats, ModelHandle, ModelInfo } from "../model-handle.js";
import { DEFAULT_MAX_TOKENS_PER_STEP } from "../../defaults.js";
import {
  DEFAULT_CANDIDATE_SAMPLING,
  DEFAULT_JUMP_FORWARD,
  DEFAULT_SPECULATION,
  SPECULATION_DRAFTS,
  GRAMMAR_CANDIDATES,
  DEFAULT_TOP_K,
  DEFAULT_TOP_P,
  GRAMMAR_WRAP_UP_TOKENS,
} from "../decoding/defaults.js";
import { PROMPT_CACHE_MIN_TOKENS } from "./defaults.js";
import { GbnfMatcher } from "../gbnf/gbnf-matcher.js";
import type { ParsedGbnf } from "../gbnf/gbnf-parse.js";
import { seededRandom } from "../../random.js";
import { groundingVocabulary } from "../grounding/grounding-setup.js";
import { groundingFor } from "./steer-bias.js";
import type { GroundingVocabulary } from "../grounding/grounding-steer.js";
import { openBenchAccess, type LastReply } from "./bench-access.js";
import { addCall, emptyStats, endCall, startCall, type CallRecord } from "./generation-stats.js";
import type { CompiledGrammar, GrammarCache } from "../decoding/grammar-cache.js";
import { acceptTokens, canAcceptTokens } from "../decoding/grammar-state.js";
import { JumpForward, type JumpTokenizer } from "../decoding/jump-forward.js";
import { ReplyMatcher, TokenTexts } from "../decoding/reply-matcher.js";
import { CandidateReply, type NextFeed } from "../decoding/candidate-reply.js";
import type { PromptCache } from "./prompt-cache.js";
import type { LlamaBackend } from "./llama-runtime.js";
import { commonPrefixLength, promptTokens, withBos } from "./prompt-tokens.js";
import { samplingBiases, type SamplingBiases } from "../decoding/sampling-biases.js";
import { SequencePool, SequenceSlot } from "./sequence-slot.js";
import type { TokenClasses } from "../grounding/token-classes.js";
import { TokenRun } from "../decoding/token-run.js";

/** {@link ModelInfo} plus what only a loaded llama.cpp model knows. */
export interface LlamaModelInfo extends ModelInfo {
  /** The context the model was trained for (`contextLength` is the window of this handle's context). */
  trainContextLength: number;
}

/** Sampling defaults of a handle (from `loadModel`). */
export interface LlamaSamplingDefaults {
  temperature: number;
  seed?: number;
}

/** Everything a handle is built from; see `loadModel`. */
export interface LlamaModelHandleParts {
  model: LlamaModel;
  context: LlamaContext;
  info: LlamaModelInfo;
  chatFormat: ChatFormat;
  grammars: GrammarCache;
  tokenClasses: TokenClasses;
  threads: number;
  backend: LlamaBackend;
  sampling: LlamaSamplingDefaults;
  /**
   * Under a grammar, evaluate the text it forces in one batch instead of sampling it token by token (jump-forward).
   * The reply is the same text the grammar allows either way; on is faster. Default true.
   */
  jumpForward?: boolean;
  /**
   * Under a grammar, pick each token among the model's top candidates with our GBNF matcher, and run llama.cpp's
   * pass over the whole vocabulary only when none is allowed (candidate sampling); false: llama.cpp's grammar
   * sampler decides every token. Default true (DEFAULT_CANDIDATE_SAMPLING).
   */
  candidateSampling?: boolean;
  /** Under candidate sampling, check the tokens jump-forward held back in the batch before them (DEFAULT_SPECULATION). */
  speculation?: boolean;
  /** Where a prompt's shared opening is saved and restored across processes; absent: no prompt cache. */
  promptCache?: PromptCache;
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
  /** Under its grammar, candidate sampling picks the tokens (see LlamaModelHandle.#sampleByCandidates). */
  byCandidates: boolean;
}

/** How a speculation batch's check went (see LlamaModelHandle.#speculate). */
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

/**
 * A loaded GGUF model behind the {@link ModelHandle} interface: one llama.cpp context with one sequence (or more:
 * `loadModel`'s `sequences`), each used by one `generate` at a time (more calls queue).
 *
 * - Prompts are tokenized with special tokens on: the chat markup the agent rendered (`<start_of_turn>`, ...) becomes
 *   control tokens; the BOS the GGUF asks for is put first (a prompt that begins with `<bos>` gets no second one). Untrusted text must already be neutralized
 *   (the chat formats do it).
 * - KV-cache reuse: a prompt that extends what the sequence holds (the previous prompt, the reply, new turns) only
 *   evaluates the new tokens, and the sequence is never erased for it (Gemma's sliding-window attention would lose
 *   its window). Any other prompt keeps the longest common token prefix that is still valid and evaluates the rest.
 * - `jsonSchema` compiles to a compact GBNF grammar (cached per schema). When `maxTokens` is reached mid-value, up to
 *   GRAMMAR_WRAP_UP_TOKENS more tokens close the value (closing tokens favoured): a constrained reply always parses.
 * - Tokens with empty text (`<pad>`, `<unusedN>`, turn markers) are never sampled; generation stops at end of turn /
 *   end of sequence, which the returned text excludes.
 * - `signal` stops generation between two tokens (or two prompt slices) and rejects with an AbortError at once; the
 *   handle stays usable.
 */
export class LlamaModelHandle implements ModelHandle {
  readonly info: LlamaModelInfo;
  readonly chatFormat: ChatFormat;
  /** Threads llama.cpp evaluates with (shown by `doctor` and the benchmark). */
  readonly threads: number;
  /** `cpu`, or the GPU API the model's layers run on. */
  readonly backend: LlamaBackend;
  /** The loader applies a call's decision offsets at its reply's branch points (see GenerateOptions.decision). */
  readonly scoresDecisions = true;

  readonly #model: LlamaModel;
  readonly #context: LlamaContext;
  readonly #pool: SequencePool;
  readonly #grammars: GrammarCache;
  readonly #sampling: LlamaSamplingDefaults;
  /** Stops, banned tokens and wrap-up biases (see samplingBiases). */
  readonly #biases: SamplingBiases;
  /** What the grounding bias looks tokens up in (see GenerateOptions.grounding). */
  readonly #groundingVocabulary: GroundingVocabulary;
  readonly #jumpTokenizer: JumpTokenizer;
  readonly #promptCache: PromptCache | undefined;
  /** Jump-forward under a grammar (see LlamaModelHandleParts.jumpForward); a benchmark may switch it (bench-access). */
  #jumpForward: boolean;
  /** Candidate sampling under a grammar (see LlamaModelHandleParts.candidateSampling), and how many candidates. */
  #candidateSampling: boolean;
  #candidates = GRAMMAR_CANDIDATES;
  #speculation: boolean;
  readonly #tokenTexts: TokenTexts;
  /** Whether this node-llama-cpp can rebuild a grammar state by hand (checked on the first grammar). */
  #stateCheck: boolean | undefined;
  #lastReply: LastReply = { promptTokens: [], tokens: [], samples: [], fullPasses: 0, batches: [] };
  #stats: GenerationStats = emptyStats();
  readonly #inFlight = new Set<Promise<unknown>>();
  #disposed = false;

  constructor(parts: LlamaModelHandleParts) {
    this.info = Object.freeze({ ...parts.info });
    this.chatFormat = parts.chatFormat;
    this.threads = parts.threads;
    this.backend = parts.backend;
    this.#model = parts.model;
    this.#context = parts.context;
    const window = parts.model.fileInsights.swaSize;
    this.#pool = new SequencePool(
      Array.from({ length: parts.context.totalSequences }, () => new SequenceSlot(parts.context.getSequence(), window)),
    );
    this.#grammars = parts.grammars;
    this.#sampling = parts.sampling;
    this.#jumpForward = parts.jumpForward ?? DEFAULT_JUMP_FORWARD;
    this.#candidateSampling = parts.candidateSampling ?? DEFAULT_CANDIDATE_SAMPLING;
    this.#speculation = parts.speculation ?? DEFAULT_SPECULATION;
    this.#promptCache = parts.promptCache;
    const model = parts.model;
    this.#jumpTokenizer = {
      tokenize: (text) => model.tokenize(text, false),
      detokenize: (tokens) => model.detokenize(tokens, false),
    };
    this.#tokenTexts = new TokenTexts((tokens) => model.detokenize(tokens, false));
    this.#biases = samplingBiases(parts.model, parts.chatFormat, parts.tokenClasses);
    this.#groundingVocabulary = groundingVocabulary(parts.tokenClasses, this.#biases.banned);
    const lastReply = () => structuredClone(this.#lastReply);
    const llamaObjects = () => ({ model: this.#model, context: this.#context, sequence: this.#pool.slots[0].sequence });
    openBenchAccess(this, {
      get lastReply() {
        return lastReply();
      },
      get llamaObjects() {
        return llamaObjects();
      },
      setJumpForward: (on) => (this.#jumpForward = on),
      setCandidateSampling: (on, candidates = GRAMMAR_CANDIDATES) => {
        this.#candidateSampling = on;
        this.#candidates = candidates;
      },
      setSpeculation: (on) => (this.#speculation = on),
    });
  }

  /**
   * Token counts and timings of the call that finished last, and lifetime totals; a snapshot (later calls do not
   * change it). Under concurrency (several sequences) the last call may be another caller's: a caller's own counts
   * come to its `GenerateOptions.onStats`.
   */
  get stats(): GenerationStats {
    return structuredClone(this.#stats);
  }

  /** The context window of each sequence, in tokens. */
  get contextSize(): number {
    return this.#pool.slots[0].sequence.contextSize;
  }

  /** How many `generate` calls may run at once (the context's sequences; more wait). */
  get sequences(): number {
    return this.#pool.slots.length;
  }

  /**
   * Tokenize text the way `generate` does (special tokens on). `generate` also puts the BOS the GGUF asks for
   * (`tokenizer.ggml.add_bos_token`) before a whole prompt that does not begin with it; this does not, so that a
   * fragment of a prompt counts as it will be appended.
   */
  tokenize(text: string): Token[] {
    return this.#model.tokenize(text, true);
  }

  /** Tokens `generate` evaluates for `prompt` as a whole prompt: its tokens, and the BOS the GGUF asks for. */
  countTokens(prompt: string): number {
    return withBos(this.#model.tokenize(prompt, true), this.#bos).length;
  }

  /** A constrained reply may take GRAMMAR_WRAP_UP_TOKENS past maxTokens to close its JSON. */
  get replyOverrun(): number {
    return GRAMMAR_WRAP_UP_TOKENS;
  }

  /** The BOS token to put before a whole prompt, or undefined when the model asks for none. */
  get #bos(): Token | undefined {
    const tokens = this.#model.tokens;
    return tokens.shouldPrependBosToken && tokens.bos !== null ? tokens.bos : undefined;
  }

  /**
   * Generate a reply to `prompt` (already rendered in the model's chat markup). Calls run one per sequence (see
   * `loadModel`'s `sequences`); more wait for a free one, in order.
   */
  generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    if (typeof prompt !== "string") return Promise.reject(new TypeError("generate: prompt must be a string"));
    const signal = options.signal;
    const run = this.#pool.acquire(prompt).then(async (slot) => {
      try {
        if (signal?.aborted) throw abortError(signal.reason);
        return await this.#generate(slot, prompt, options);
      } finally {
        this.#pool.release(slot);
      }
    });
    const settled = run.catch(() => undefined);
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return raceAbort(run, signal);
  }

  /** Free the context and the model once calls in flight have ended; the handle cannot be used afterwards. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await Promise.all(this.#inFlight);
    await this.#context.dispose();
    await this.#model.dispose();
  }

  /**
   * One call: plan and evaluate the prompt, sample the reply, record the stats. Once the prompt is planned the call's
   * stats are kept and reported (`onStats`), also when it fails or is aborted afterwards.
   */
  async #generate(slot: SequenceSlot, prompt: string, options: GenerateOptions): Promise<string> {
    if (this.#disposed) throw new Error("LlamaModelHandle: generate after dispose()");
    const started = performance.now();
    const { tokens, maxTokens, grammar } = await this.#planPrompt(slot, prompt, options);
    const shared = this.#sharedPrefixTokens(prompt, tokens, options.sharedPrefix);
    const call: { record?: CallRecord } = {};
    try {
      const next = await this.#evaluatePrompt(slot, prompt, tokens, options.signal, shared, call);
      const byCandidates = grammar !== undefined && this.#byCandidates(grammar);
      const run = this.#startRun(slot, tokens.length, maxTokens, grammar !== undefined, byCandidates, options);
      const generationStarted = performance.now();
      const sampling = { temperature: options.temperature ?? this.#sampling.temperature, grammar, started };
      try {
        await this.#sample(slot, run, tokens.slice(next), {
          ...sampling,
          byCandidates,
          signal: options.signal,
          stats: call.record!.stats,
        });
      } finally {
        run.finish();
        // The sequence holds the prompt and every generated token but the last (evaluated when the next prompt comes).
        slot.held = {
          text: prompt + this.#model.detokenize(run.generated, false),
          tokens: [...tokens, ...run.generated],
        };
        endCall(call.record!, run, performance.now() - generationStarted);
        this.#lastReply = {
          promptTokens: tokens,
          tokens: [...run.generated],
          samples: run.samples,
          fullPasses: run.fullPasses,
          batches: run.batches,
        };
      }
      if (run.aborted) throw abortError(options.signal?.reason);
      return run.reply();
    } finally {
      if (call.record) {
        addCall(this.#stats, call.record);
        options.onStats?.({ ...call.record.stats });
      }
    }
  }

  /** Check the call's options, compile its grammar, and tokenize the prompt (which must fit the context). */
  async #planPrompt(
    slot: SequenceSlot,
    prompt: string,
    options: GenerateOptions,
  ): Promise<{ tokens: Token[]; maxTokens: number; grammar: CompiledGrammar | undefined }> {
    const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS_PER_STEP;
    if (!(maxTokens >= 1)) throw new TypeError(`generate: maxTokens must be at least 1 (got ${maxTokens})`);
    const grammar = options.jsonSchema ? await this.#grammars.get(options.jsonSchema) : undefined;
    if (prompt === "") throw new TypeError("generate: the prompt is empty");
    const tokens = promptTokens(prompt, slot.held, (text) => this.#model.tokenize(text, true), this.#bos);
    if (tokens.length >= this.contextSize) {
      throw new RangeError(
        `generate: the prompt has ${tokens.length} tokens, the context holds ${this.contextSize}; load the model with a larger contextSize or shorten the prompt`,
      );
    }
    return { tokens, maxTokens, grammar };
  }

  /**
   * Keep what the sequence holds of the prompt, then evaluate the rest in slices (an abort lands between two), all
   * but its last token, which starts generation. Returns where the tokens left to feed the sampler begin.
   */
  async #evaluatePrompt(
    slot: SequenceSlot,
    prompt: string,
    tokens: Token[],
    signal: AbortSignal | undefined,
    sharedPrefix: number,
    call: { record?: CallRecord },
  ): Promise<number> {
    let reused = await slot.align(tokens);
    let restored = 0;
    const saveAt = this.#promptCache && sharedPrefix > reused ? sharedPrefix : 0;
    if (saveAt > 0 && (await this.#promptCache!.restore(slot.sequence, tokens.slice(0, saveAt)))) {
      reused = restored = saveAt;
    } else if (saveAt > 0) reused = slot.sequence.nextTokenIndex === reused ? reused : 0;
    // From here on the sequence holds `reused` tokens of this prompt; keep the held content in step with it.
    slot.held = { text: "", tokens: tokens.slice(0, reused) };
    call.record = startCall(tokens.length, reused, restored);
    let next = reused;
    if (saveAt > 0 && restored === 0) {
      next = await slot.evaluateRange(tokens, next, saveAt, signal);
      await this.#promptCache!.save(slot.sequence, tokens.slice(0, saveAt));
    }
    next = await slot.evaluateRange(tokens, next, tokens.length - 1, signal);
    slot.held = { text: prompt, tokens };
    return next;
  }

  /**
   * How many of `tokens` the shared opening of the prompt (its first `chars` characters: the system prompt) covers,
   * when the prompt cache is on and it is long enough to be worth a state file; else 0.
   */
  #sharedPrefixTokens(prompt: string, tokens: readonly Token[], chars: number | undefined): number {
    if (!this.#promptCache || !chars || chars <= 0 || chars >= prompt.length) return 0;
    const opening = withBos(this.#model.tokenize(prompt.slice(0, chars), true), this.#bos);
    // the opening's last token may merge with what follows it in the whole prompt: keep what both agree on
    const shared = Math.min(commonPrefixLength(opening, tokens), tokens.length - 1);
    return shared >= PROMPT_CACHE_MIN_TOKENS ? shared : 0;
  }

  /**
   * This call's token run: its budget (and a grammar's wrap-up) within what the context has left; with candidate
   * sampling its biases leave the banned tokens to the pick.
   */
  #startRun(
    slot: SequenceSlot,
    promptLength: number,
    maxTokens: number,
    constrained: boolean,
    byCandidates: boolean,
    options: GenerateOptions,
  ): TokenRun {
    const room = slot.sequence.contextSize - promptLength;
    const budget = Math.min(maxTokens, room);
    return new TokenRun({
      model: this.#model,
      stopTokens: this.#biases.stopTokens,
      stopText: this.#biases.stopText,
      constrained,
      budget,
      hardLimit: constrained ? Math.min(budget + GRAMMAR_WRAP_UP_TOKENS, room) : budget,
      biases: byCandidates ? this.#biases.open : this.#biases.biases,
      onToken: options.onToken,
      signal: options.signal,
      grounding: constrained
        ? groundingFor(
            this.#model,
            this.#groundingVocabulary,
            options.grounding,
            options.jsonSchema,
            !byCandidates,
            options.decision,
          )
        : undefined,
    });
  }

  /**
   * The sampling loop: evaluate `input` and take sampled tokens until the run stops. Free text samples without the
   * ban list (node-llama-cpp rebuilds a token-bias list on every token, a cost a tiny model notices) until a banned
   * token comes up; that position is then sampled again with the list. Under a grammar the list is always on (the
   * grammar pass costs far more, and its state has moved with the token).
   */
  async #sample(slot: SequenceSlot, run: TokenRun, input: Token[], call: SamplingCall): Promise<void> {
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
        if (banLazily && this.#biases.banned.has(token)) {
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
    let state = new LlamaGrammarEvaluationState({ model: this.#model, grammar: compiled.grammar });
    const jump = this.#jumpForwardFor(compiled, state);
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
    const seed = this.#sampling.seed;
    const random = seed !== undefined ? seededRandom(seed) : Math.random;
    const reply = new CandidateReply(run, {
      gbnf,
      texts: this.#tokenTexts,
      jumpTokenizer: this.#jumpForward ? this.#jumpTokenizer : undefined,
      ends: (token) => this.#model.isEogToken(token) || this.#biases.stopTokens.has(token),
      banned: this.#biases.banned,
      sampling: { temperature: call.temperature, topP: DEFAULT_TOP_P, random },
    });
    let feed = reply.open(input);
    const generator: { iterator?: CandidateIterator } = {};
    try {
      while (feed) {
        const drafts = this.#speculation ? this.#drafts(slot, reply.heldBack, feed.length) : [];
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
        topK: this.#candidates,
        topP: 1,
        tokenBias: () => run.bias,
        ...(this.#sampling.seed !== undefined && { seed: this.#sampling.seed }),
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
        topK: this.#candidates,
        topP: 1,
        tokenBias: () => run.bias,
        yieldEogToken: true,
        ...(this.#sampling.seed !== undefined && { seed: this.#sampling.seed }),
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
    const state = new LlamaGrammarEvaluationState({ model: this.#model, grammar: compiled.grammar });
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

  /**
   * Whether candidate sampling picks the tokens under `compiled`: it is on, our GBNF reader read the grammar, and a
   * grammar state can be rebuilt over a reply (the full pass needs it).
   */
  #byCandidates(compiled: CompiledGrammar): boolean {
    if (!this.#candidateSampling || !compiled.gbnf) return false;
    this.#stateCheck ??= canAcceptTokens(
      new LlamaGrammarEvaluationState({ model: this.#model, grammar: compiled.grammar }),
    );
    return this.#stateCheck;
  }

  /** Jump-forward for one reply under `compiled`, when it is on and both our GBNF reader and node-llama-cpp can. */
  #jumpForwardFor(compiled: CompiledGrammar, state: LlamaGrammarEvaluationState): JumpForward | undefined {
    if (!this.#jumpForward || !compiled.gbnf || !canAcceptTokens(state)) return undefined;
    return new JumpForward(new ReplyMatcher(new GbnfMatcher(compiled.gbnf), this.#tokenTexts), this.#jumpTokenizer);
  }

  #samplingOptions(call: SamplingCall) {
    return {
      temperature: call.temperature,
      topK: DEFAULT_TOP_K,
      topP: DEFAULT_TOP_P,
      ...(this.#sampling.seed !== undefined && { seed: this.#sampling.seed }),
    };
  }
}
