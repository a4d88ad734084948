import type { LlamaModel, Token } from "node-llama-cpp";

/**
 * Turns generated tokens into text as they come, holding back an incomplete UTF-8 character (a multi-byte character
 * split over byte tokens) and, for `onToken`, a tail that could still become the stop text.
 */
export class TextAssembler {
  #pending: Token[] = [];
  #text = "";
  #emitted = 0;
  constructor(
    private readonly model: LlamaModel,
    private readonly stopText: string | undefined,
  ) {}

  /** All text so far (complete characters). */
  get text(): string {
    return this.#text;
  }

  /** Add a token; returns whether the stop text has appeared (the text is then cut before it). */
  push(token: Token): boolean {
    this.#pending.push(token);
    const piece = this.model.detokenize(this.#pending, false);
    if (piece.endsWith("\uFFFD") && this.#pending.length < 4) return false;
    this.#pending = [];
    this.#text += piece;
    return this.#cutAtStop();
  }

  #cutAtStop(): boolean {
    if (this.stopText) {
      const at = this.#text.indexOf(this.stopText);
      if (at >= 0) {
        this.#text = this.#text.slice(0, at);
        return true;
      }
    }
    return false;
  }

  /** Add text that came as whole characters (forced by a grammar); returns whether the stop text has appeared. */
  pushText(text: string): boolean {
    this.#text += text;
    return this.#cutAtStop();
  }

  /** Text not yet handed to `onToken`, minus a tail that could still become the stop text. */
  takeEmittable(final: boolean): string {
    let end = this.#text.length;
    if (!final && this.stopText) {
      for (let keep = Math.min(this.stopText.length - 1, end - this.#emitted); keep > 0; keep--) {
        if (this.stopText.startsWith(this.#text.slice(end - keep))) {
          end -= keep;
          break;
        }
      }
    }
    const out = this.#text.slice(this.#emitted, end);
    this.#emitted = Math.max(this.#emitted, end);
    return out;
  }

  /** Flush a trailing partial character (at the end of generation). */
  finish(): void {
    if (this.#pending.length > 0) this.#text += this.model.detokenize(this.#pending, false);
    this.#pending = [];
  }
}
