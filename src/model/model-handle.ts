import type { ChatFormat } from "../prompt/chat-format.js";

/** A JSON Schema object (draft 2020-12 subset) used to constrain a model's output. */
import type { JsonSchema } from "../json-schema.js";

export type { JsonSchema };

/**
 * How strongly a loader steers the values of a constrained reply toward the call's grounding source: `off` (no
 * steering), `soft` (a logit bonus for tokens that copy a span of the source, a malus for tokens that copy the
 * instructions, bounds on runaway numbers and strings) or `strict` (argument values restricted to spans of the source,
 * the schema's `enum` / `default` values and the source's numerals, wherever the grammar allows one).
 */
export type GroundingMode = "off" | "soft" | "strict";

/**
 * The parts of grounding, each of which can be left out (to measure what each does; issue 26's table): `copy` (string
 * values copy spans of the source, the instructions and the key's name get a malus, and the value's opening, its close
 * and the arguments' end follow the question), `numbers` (number values favour the source's numerals, their digits
 * are bounded), `strings` (a string value's length bound and its digit-run guard) and `answers` (a final answer's
 * copy bonus toward the results and the malus). Default: all of them.
 */
export type GroundingLever = "copy" | "numbers" | "strings" | "answers";

/** Every grounding lever, in the order the docs give them. */
export const GROUNDING_LEVERS: readonly GroundingLever[] = ["copy", "numbers", "strings", "answers"];

/** Whether `value` is a list of grounding levers (an option given from JavaScript may be anything). */
export function isGroundingLeverList(value: unknown): value is readonly GroundingLever[] {
  return Array.isArray(value) && value.every((item) => GROUNDING_LEVERS.includes(item as GroundingLever));
}

/** A value a skill's call failed with, where the error quoted it (see GroundingOptions.failed). */
export interface FailedValue {
  skill: string;
  key: string;
  value: string;
}

/**
 * What one generate call's values should be copied from, and what they should not. A loader that can bias tokens
 * (model/llama) steers the string and number values inside `arguments` and the `final_answer` string; a handle that
 * cannot (a model server, a scripted model) ignores it. The texts are plain (not chat markup); the loader indexes them
 * once per call.
 */
export interface GroundingOptions {
  /** How strongly to steer; `off` is the same as no grounding. */
  mode: GroundingMode;
  /** Which parts of the steering act (see GroundingLever). Default: all of them. */
  levers?: readonly GroundingLever[];
  /**
   * Rules of the steer turned off, by name (model/grounding/rules.ts, GROUNDING_RULES): for measuring each rule's
   * gain. Default: none.
   */
  rulesOff?: readonly string[];
  /** Told once per call of each rule that was asked where it would act (on or off): which rules shaped the reply. */
  onRule?: (rule: string) => void;
  /**
   * The texts values should come from, most important first: for a call, the user's question and the conversation's
   * user turns; for an answer, the run's latest tool results and the question.
   */
  source: readonly string[];
  /**
   * The question's items for the calls of a `calls` list, in turn: the k-th call's values are read from `items[k]`
   * in place of `source[0]` (the first item), so that each call takes its own item ("Taylor Swift and Maroon 5": one
   * each). Past the last item, the last. Default: none (every call reads `source`).
   */
  items?: readonly string[];
  /**
   * Values earlier calls of the run wrote (and, in a `calls` list, the other items' numerals): a number among them
   * that the call's source does not hold gets a malus, so that a call takes its own item's values, not the last
   * call's. Default: none.
   */
  taken?: readonly string[];
  /**
   * Final answers the run's validators refused as the prompt's own text ("no more skill calls"): an answer that writes
   * one again gets a malus on each token that goes on with it, whatever the source holds. Default: none.
   */
  refused?: readonly string[];
  /**
   * Values of the run's calls that failed with an error that quotes them (`no entry for "widgets"; known: widget, ...`):
   * the same skill's same key writing one again gets a malus on the token that completes it and on closing it. An
   * identical call fails the same way; the guard would refuse it the third time. Default: none.
   */
  failed?: readonly FailedValue[];
  /**
   * Texts a value should not be copied from: the system prompt (instructions, skill descriptions and schemas), the
   * runtime's feedback and placeholder texts. A span that is also in `source` is not penalized. Default: none.
   */
  avoid?: readonly string[];
  /**
   * The user's question, where `source` holds it among tool results: an answer's numerals that only echo it (a
   * result's `"value":150` for "150 pounds") are not favoured over those the results bring. Default: none.
   */
  question?: string;
}

/**
 * The decision at a constrained reply's branch points (whether to call, which skill, whether the list of calls goes
 * on): a logit offset for each option, added to the model's own log-probabilities where the options part. A loader
 * that biases tokens (model/llama) applies them; a handle that cannot (a model server, a scripted model) ignores
 * them. The agent computes them (src/decision/); see AgentOptions.decision.
 */
export interface DecisionOptions {
  /** The offset of the `final_answer` branch. Default 0. */
  answer?: number;
  /** Each skill's offset, by name (its name in a `calls` item too). Default 0 for a skill not named. */
  skills?: Readonly<Record<string, number>>;
  /** The offset of the `calls` branch (several calls in one reply). Default 0. */
  calls?: number;
  /**
   * In a `calls` list, the skills' offsets of each call in turn (the k-th call's at index k), where the calls take
   * different items of the question; past the list's end, or absent, `skills`.
   */
  itemSkills?: readonly Readonly<Record<string, number>>[];
  /**
   * In a `calls` list, how many calls the question asks for: the list goes on (offset `listOffset`) while it holds
   * fewer, and closes (the same offset) once it holds that many. Absent: the model's own choice.
   */
  plannedCalls?: number;
  /** The offset that keeps a `calls` list going or closes it (see plannedCalls). Default 0. */
  listOffset?: number;
  /** Called at each branch point the reply passes, once its token is picked (see DecisionBranch). */
  onBranch?: (branch: DecisionBranch) => void;
}

/** One branch point of a reply, as a loader reports it (DecisionOptions.onBranch). */
export interface DecisionBranch {
  /** `action`: answer, call or calls; `skill`: which skill; `next-call`: another call in a `calls` list, or its end. */
  at: "action" | "skill" | "next-call";
  /**
   * Each option that the grammar allowed here and the model's top candidates held: its log-probability under the
   * model alone (the offsets taken back out, renormalized over these options; null where the loader saw no
   * probabilities, or none of the option's tokens was among the model's top candidates) and its offset.
   */
  options: { option: string; logprob: number | null; offset: number }[];
  /** The option the reply took. */
  chosen: string;
}

/** Options for one {@link ModelHandle.generate} call. */
export interface GenerateOptions {
  /**
   * Constrain the output to JSON matching this schema. A loader compiles it to a GBNF grammar (once per schema);
   * a scripted model may ignore it.
   */
  jsonSchema?: JsonSchema;
  /** Stop after this many generated tokens. Default: the handle's own (a loader uses 512). */
  maxTokens?: number;
  /** Sampling temperature; 0 means greedy. Default: the handle's own. */
  temperature?: number;
  /** Aborting stops generation promptly; `generate` then rejects with an AbortError. */
  signal?: AbortSignal;
  /** Called with each piece of generated text as it is produced. */
  onToken?: (text: string) => void;
  /**
   * How many characters at the start of `prompt` are the same on every run of this agent (its rendered system
   * prompt). A loader with a prompt cache saves that opening's evaluated state and restores it in a later process
   * instead of evaluating it again. Default: none.
   */
  sharedPrefix?: number;
  /**
   * Steer the reply's argument and answer values toward these source texts (see GroundingOptions). Default: none
   * (no steering). Only a loader that biases tokens uses it; others ignore it.
   */
  grounding?: GroundingOptions;
  /**
   * Offsets for the options at the reply's branch points: answer or call, which skill, another call or the list's end
   * (see DecisionOptions). Default: none (the model's own choice). Only a loader that biases tokens uses it.
   */
  decision?: DecisionOptions;
  /**
   * Called once with this call's own token counts and timings, before `generate` resolves. A call that fails once
   * its prompt was evaluated still reports what it spent (one aborted mid-reply may report just after it rejected).
   * Several calls may run at once on one handle: each call's `onStats` gets that call's counts, never another's. A
   * handle that counts no tokens (a scripted model without `reportTokens`) does not call it.
   */
  onStats?: (stats: CallStats) => void;
}

/** What a loaded model is. */
export interface ModelInfo {
  /** GGUF `general.architecture`, e.g. `gemma3`, `gemma3n`, `gemma4`. */
  architecture: string;
  name: string;
  contextLength: number;
  vocabularySize: number;
  /** e.g. `Q4_K_M`, `F16`; `unknown` when the file does not say. */
  quantization: string;
  /** Path of the GGUF file on disk, when loaded from a file. */
  path?: string;
}

/** One generate call's own token counts and timings (see {@link GenerateOptions.onStats}). */
export interface CallStats {
  /** Tokens in the call's prompt. */
  promptTokens: number;
  /** Tokens of the prompt that the KV cache already held (not evaluated again). */
  reusedPromptTokens: number;
  /** Of those, tokens restored from a prompt cache saved by an earlier process. Absent without a prompt cache. */
  restoredPromptTokens?: number;
  /** Tokens of the prompt that were evaluated. */
  evaluatedPromptTokens: number;
  /** Tokens the call generated. */
  generatedTokens: number;
  /**
   * Of `generatedTokens`, those the model sampled and those a grammar forced (fed without sampling: jump-forward).
   * Absent where a handle does not tell them apart.
   */
  sampledTokens?: number;
  forcedTokens?: number;
  /** Milliseconds from the call to the first generated token. */
  timeToFirstTokenMs: number;
  /** Generated tokens per second, prompt evaluation excluded. */
  tokensPerSecond: number;
}

/**
 * A handle's {@link ModelHandle.stats}: the {@link CallStats} of the call that finished last, and lifetime totals over
 * every call on the handle.
 */
export interface GenerationStats extends CallStats {
  /** Lifetime totals over every call on this handle. */
  totals: {
    calls: number;
    promptTokens: number;
    evaluatedPromptTokens: number;
    generatedTokens: number;
    generationMs: number;
    sampledTokens?: number;
    forcedTokens?: number;
  };
}

/**
 * A handle's stats after one more call (`previous` undefined: the first): `call` becomes the last call's, and counts
 * into the totals with its `generationMs`. The one way every handle keeps its {@link ModelHandle.stats}.
 */
export function statsWithCall(
  previous: GenerationStats | undefined,
  call: CallStats,
  generationMs: number,
): GenerationStats {
  const totals = previous?.totals;
  const add = (key: "sampledTokens" | "forcedTokens") =>
    totals?.[key] === undefined && call[key] === undefined ? {} : { [key]: (totals?.[key] ?? 0) + (call[key] ?? 0) };
  return {
    ...call,
    totals: {
      calls: (totals?.calls ?? 0) + 1,
      promptTokens: (totals?.promptTokens ?? 0) + call.promptTokens,
      evaluatedPromptTokens: (totals?.evaluatedPromptTokens ?? 0) + call.evaluatedPromptTokens,
      generatedTokens: (totals?.generatedTokens ?? 0) + call.generatedTokens,
      generationMs: (totals?.generationMs ?? 0) + generationMs,
      ...add("sampledTokens"),
      ...add("forcedTokens"),
    },
  };
}

/**
 * The one thing the agent loop needs of a model: text in, text out.
 * node-llama-cpp stays behind this interface (see `model/llama/`); tests use `ScriptedModel`.
 */
export interface ModelHandle {
  generate(prompt: string, options?: GenerateOptions): Promise<string>;
  /** How the agent renders turns for this model. Default when absent: Gemma 3 turns. */
  readonly chatFormat?: ChatFormat;
  readonly info?: ModelInfo;
  /**
   * @deprecated The last call's counts (a snapshot) and the handle's totals. Under concurrency (several calls on one
   * handle, as `eval --parallel` makes) the last call may be another caller's: use `GenerateOptions.onStats`, which
   * hands each call its own counts.
   */
  readonly stats?: GenerationStats;
  /**
   * Tokens `generate` would evaluate for this whole prompt (the BOS it adds included). With `contextSize`, lets the
   * agent keep prompt + reply inside the context. Absent: the agent cannot measure and does not trim.
   */
  countTokens?(prompt: string): number | Promise<number>;
  /** The context window `generate` works in, in tokens. */
  readonly contextSize?: number;
  /** Tokens a constrained reply may run past `maxTokens` to close its JSON (a loader's wrap-up). Default 0. */
  readonly replyOverrun?: number;
  /**
   * Whether the handle applies `GenerateOptions.decision` at a reply's branch points (a loader that biases tokens: the
   * llama loader; a model server that takes a schema, as the request's schema: decided-schema.ts). Default false: the
   * agent then leaves whether to call, which skill and how many calls to the model (a scripted model, a server
   * without structured output), and holds no final round for results being in.
   */
  readonly scoresDecisions?: boolean;
}
