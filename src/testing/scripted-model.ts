import { abortError } from "../abort.js";
import { CodedError } from "../coded-error.js";
import {
  statsWithCall,
  type CallStats,
  type GenerateOptions,
  type GenerationStats,
  type ModelHandle,
  type ModelInfo,
} from "../model/model-handle.js";
import type { ChatFormat } from "../prompt/chat-format.js";
import { scriptedModelInfo } from "./scripted-model-info.js";

/** One scripted reply: text, or a function of the prompt (it may throw, to script a model failure). */
export type ScriptedReply =
  string | ((prompt: string, options: GenerateOptions, callIndex: number) => string | Promise<string>);

/** One recorded call. */
export interface ScriptedCall {
  prompt: string;
  options: GenerateOptions;
}

/** Why a script failed: `exhausted` (called more often than scripted), `unused` (replies left over). Stable. */
export type ScriptedModelErrorCode = "exhausted" | "unused";

/** Thrown when a ScriptedModel is called more often than scripted, or `assertConsumed` finds replies left over. */
export class ScriptedModelError extends CodedError<ScriptedModelErrorCode> {
  override readonly name = "ScriptedModelError";
}

/** Options of a {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  chatFormat?: ChatFormat;
  name?: string;
  /**
   * Report each call's stats (`onStats`, and `stats`) as a real model does, its prompt and reply counted with this
   * function (`true`: words, split on white space). Default: no stats, as a script has no tokens.
   */
  reportTokens?: true | ((text: string) => number);
}

const countWords = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * A ModelHandle that replies from a script, in order, and records every prompt and option. It fails loudly when
 * called more often than scripted; `assertConsumed()` fails when replies are left over. It honours `signal`.
 */
export class ScriptedModel implements ModelHandle {
  readonly calls: ScriptedCall[] = [];
  readonly chatFormat?: ChatFormat;
  readonly info: ModelInfo;
  readonly #replies: ScriptedReply[];
  readonly #count: ((text: string) => number) | undefined;
  #stats: GenerationStats | undefined;

  constructor(replies: readonly ScriptedReply[], options: ScriptedModelOptions = {}) {
    this.#replies = [...replies];
    if (options.chatFormat) this.chatFormat = options.chatFormat;
    this.info = scriptedModelInfo(options.name ?? "scripted");
    this.#count = options.reportTokens === true ? countWords : options.reportTokens;
  }

  /** The last call's token counts and the totals, with `reportTokens`; else undefined. */
  get stats(): GenerationStats | undefined {
    return this.#stats;
  }

  /** Replies not yet used. */
  get remaining(): number {
    return this.#replies.length - this.calls.length;
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    const index = this.calls.length;
    this.calls.push({ prompt, options });
    if (options.signal?.aborted) throw abortError(options.signal.reason);
    if (index >= this.#replies.length) {
      throw new ScriptedModelError(
        "exhausted",
        `ScriptedModel: called ${index + 1} times but only ${this.#replies.length} replies were scripted`,
      );
    }
    const reply = this.#replies[index];
    const text = typeof reply === "function" ? await reply(prompt, options, index) : reply;
    options.onToken?.(text);
    if (this.#count) options.onStats?.(this.#record(this.#count(prompt), this.#count(text)));
    return text;
  }

  /** Count a call into `stats`; returns the call's own stats. */
  #record(promptTokens: number, generatedTokens: number): CallStats {
    const call: CallStats = {
      promptTokens,
      reusedPromptTokens: 0,
      evaluatedPromptTokens: promptTokens,
      generatedTokens,
      timeToFirstTokenMs: 0,
      tokensPerSecond: 0,
    };
    this.#stats = statsWithCall(this.#stats, call, 0);
    return { ...call };
  }

  /** Throw unless every scripted reply was used. */
  assertConsumed(): void {
    if (this.remaining > 0) {
      throw new ScriptedModelError(
        "unused",
        `ScriptedModel: ${this.remaining} of ${this.#replies.length} scripted replies were never used`,
      );
    }
  }
}
