import { LlamaGrammarEvaluationState, type LlamaContext, type LlamaModel, type Token } from "node-llama-cpp";
import { abortError, raceAbort } from "../../abort.js";
import type { ChatFormat } from "../../prompt/chat-format.js";
import type { CallStats, GenerateOptions, GenerationStats, ModelHandle, ModelInfo } from "../model-handle.js";
import { DEFAULT_MAX_TOKENS_PER_STEP } from "../../defaults.js";
import {
  DEFAULT_CANDIDATE_SAMPLING,
  DEFAULT_JUMP_FORWARD,
  DEFAULT_SPECULATION,
  GRAMMAR_CANDIDATES,
  GRAMMAR_WRAP_UP_TOKENS,
} from "../decoding/defaults.js";
import { PROMPT_CACHE_MIN_TOKENS } from "./defaults.js";
import { groundingVocabulary } from "../grounding/grounding-setup.js";
import { groundingFor } from "./steer-bias.js";
import type { GroundingVocabulary } from "../grounding/grounding-steer.js";
import { openBenchAccess, type LastReply } from "./bench-access.js";
import { addCall, emptyStats, endCall, startCall, type CallRecord } from "./generation-stats.js";
import type { CompiledGrammar, GrammarCache } from "../decoding/grammar-cache.js";
import { canAcceptTokens } from "../decoding/grammar-state.js";
import type { PromptCache } from "./prompt-cache.js";
import type { LlamaBackend } from "./llama-runtime.js";
import { commonPrefixLength, promptTokens, withBos } from "./prompt-tokens.js";
import { samplingBiases, type SamplingBiases } from "../decoding/sampling-biases.js";
import { SequencePool, SequenceSlot } from "./sequence-slot.js";
import { modelCallChannel, type LiveSequences } from "./model-call-channel.js";
import { NativeGarbage } from "./native-garbage.js";
import type { TokenClasses } from "../grounding/token-classes.js";
import { TokenRun } from "../decoding/token-run.js";
import { TokenSampler, type LlamaSamplingDefaults } from "./token-sampler.js";

export type { LlamaSamplingDefaults } from "./token-sampler.js";

/** {@link ModelInfo} plus what only a loaded llama.cpp model knows. */
export interface LlamaModelInfo extends ModelInfo {
  /** The context the model was trained for (`contextLength` is the window of this handle's context). */
  trainContextLength: number;
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
  /** Samples a run's tokens on a sequence, under a grammar or not (see TokenSampler). */
  readonly #s: TokenSampler;
  /** Stops, banned tokens and wrap-up biases (see samplingBiases). */
  readonly #biases: SamplingBiases;
  /** What the grounding bias looks tokens up in (see GenerateOptions.grounding). */
  readonly #groundingVocabulary: GroundingVocabulary;
  readonly #promptCache: PromptCache | undefined;
  /** Candidate sampling under a grammar (see LlamaModelHandleParts.candidateSampling), and how many candidates. */
  #candidateSampling: boolean;
  /** Whether this node-llama-cpp can rebuild a grammar state by hand (checked on the first grammar). */
  #stateCheck: boolean | undefined;
  #lastReply: LastReply = { promptTokens: [], tokens: [], samples: [], fullPasses: 0, batches: [] };
  #stats: GenerationStats = emptyStats();
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Collects node-llama-cpp's samplers, whose native buffers V8 does not see (see NativeGarbage). */
  readonly #garbage: NativeGarbage;
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
    this.#candidateSampling = parts.candidateSampling ?? DEFAULT_CANDIDATE_SAMPLING;
    this.#promptCache = parts.promptCache;
    this.#garbage = new NativeGarbage(parts.info.vocabularySize);
    this.#biases = samplingBiases(parts.model, parts.chatFormat, parts.tokenClasses);
    this.#s = new TokenSampler(parts.model, this.#biases, parts.sampling, {
      jumpForward: parts.jumpForward ?? DEFAULT_JUMP_FORWARD,
      speculation: parts.speculation ?? DEFAULT_SPECULATION,
    });
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
      setJumpForward: (on) => (this.#s.jumpForward = on),
      setCandidateSampling: (on, candidates = GRAMMAR_CANDIDATES) => {
        this.#candidateSampling = on;
        this.#s.candidates = candidates;
      },
      setSpeculation: (on) => (this.#s.speculation = on),
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

  /**
   * The context's sequences now: the pool's (lent to calls, calls waiting) and how many the context has handed out.
   * Between calls `busy` and `waiting` are 0 and `obtained` is `sequences`; anything else is a leak.
   */
  get liveSequences(): LiveSequences {
    return { ...this.#pool.use, obtained: this.#context.totalSequences - this.#context.sequencesLeft };
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
    // diagnostics (see MODEL_CALL_CHANNEL): the call's own counts, published once its sequence is back in the pool
    const watched = modelCallChannel.hasSubscribers ? { stats: undefined as CallStats | undefined } : undefined;
    const callOptions: GenerateOptions = watched
      ? { ...options, onStats: (stats) => ((watched.stats = stats), options.onStats?.(stats)) }
      : options;
    const run = this.#pool.acquire(prompt).then(async (slot) => {
      try {
        if (signal?.aborted) throw abortError(signal.reason);
        return await this.#generate(slot, prompt, callOptions);
      } finally {
        this.#pool.release(slot);
        this.#garbage.afterCall();
        if (watched) modelCallChannel.publish({ sequences: this.liveSequences, stats: watched.stats });
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
        await this.#s.sample(slot, run, tokens.slice(next), {
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
}
