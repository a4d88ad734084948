/**
 * Whether the end of a growing JSON text is inside a string literal, updated incrementally: the wrap-up of a
 * grammar-constrained reply needs to know whether `"` closes a string or would open one.
 */
export class JsonStringState {
  #inString = false;
  #escaped = false;
  #scanned = 0;

  /** Scan what `text` (the whole text so far, only ever extended) added since the last call; true inside a string. */
  update(text: string): boolean {
    for (let i = this.#scanned; i < text.length; i++) {
      const ch = text[i];
      if (!this.#inString) {
        if (ch === '"') this.#inString = true;
      } else if (this.#escaped) this.#escaped = false;
      else if (ch === "\\") this.#escaped = true;
      else if (ch === '"') this.#inString = false;
    }
    this.#scanned = text.length;
    return this.#inString;
  }
}
