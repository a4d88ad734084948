import { abortError } from "../abort.js";
import type { GenerateOptions, ModelHandle, ModelInfo } from "../model/model-handle.js";
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

/** Thrown when a ScriptedModel is called more often than scripted, or `assertConsumed` finds replies left over. */
export class ScriptedModelError extends Error {
  override readonly name = "ScriptedModelError";
}

/**
 * A ModelHandle that replies from a script, in order, and records every prompt and option. It fails loudly when
 * called more often than scripted; `assertConsumed()` fails when replies are left over. It honours `signal`.
 */
export class ScriptedModel implements ModelHandle {
  readonly calls: ScriptedCall[] = [];
  readonly chatFormat?: ChatFormat;
  readonly info: ModelInfo;
  readonly #replies: ScriptedReply[];

  constructor(replies: readonly ScriptedReply[], options: { chatFormat?: ChatFormat; name?: string } = {}) {
    this.#replies = [...replies];
    if (options.chatFormat) this.chatFormat = options.chatFormat;
    this.info = scriptedModelInfo(options.name ?? "scripted");
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
        `ScriptedModel: called ${index + 1} times but only ${this.#replies.length} replies were scripted`,
      );
    }
    const reply = this.#replies[index];
    const text = typeof reply === "function" ? await reply(prompt, options, index) : reply;
    options.onToken?.(text);
    return text;
  }

  /** Throw unless every scripted reply was used. */
  assertConsumed(): void {
    if (this.remaining > 0) {
      throw new ScriptedModelError(
        `ScriptedModel: ${this.remaining} of ${this.#replies.length} scripted replies were never used`,
      );
    }
  }
}
