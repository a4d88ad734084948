/** Where in a growing JSON text its end is: inside a string or number value, under which keys, with what so far. */
export interface JsonValuePosition {
  /**
   * `string`: inside a string value (not a key); `number`: inside a number; `pending`: where a value is about to begin
   * (after an object's `:`, an array's `[` or `,`), which the grammar may open as a number without a sampled `"`.
   */
  kind: "string" | "number" | "pending";
  /** The object keys from the root to the value (array items add no key: an item is under its array's key). */
  path: readonly string[];
  /** The value so far: a string's characters with its escapes decoded, or a number's text. */
  value: string;
  /**
   * `pending` only: what must still come before the value, `:` right after an object's key (a token may carry the
   * colon and the value's start together: `:"New`), else "".
   */
  opener?: string;
  /** Inside an array (the value is one of its items): the items before it, strings decoded, numbers as written. */
  items?: readonly string[];
}

interface Frame {
  type: "object" | "array";
  /** An object's key being written or whose value comes next. */
  key?: string;
  /** An array's items so far (an object or array item counts as `{}` / `[]`). */
  items?: string[];
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/" };
const NUMBER_CHAR = /[-+0-9.eE]/;

/**
 * A streaming reader of JSON text that tells, after each piece, whether the text ends inside a string or number value
 * and under which keys: the grounding bias (grounding-steer.ts) steers only argument and answer values. It scans each
 * character once (`update` takes the whole text so far, only ever extended). Malformed JSON is not an error here: the
 * grammar keeps a constrained reply well-formed, and whatever else comes is read as best it can be.
 */
export class JsonValueTracker {
  readonly #stack: Frame[] = [];
  #scanned = 0;
  /** What the character at the end is part of. */
  #state: "between" | "key" | "string" | "number" | "literal" = "between";
  #escape: string | undefined;
  #buffer = "";
  /** The last structural character opened a value's place (`:`, or `[` / `,` in an array). */
  #pending = false;
  /** An object's key has just closed: its `:` comes next. */
  #afterKey = false;

  /** Scan what `text` added since the last call; returns where its end is, or undefined outside string and number values. */
  update(text: string): JsonValuePosition | undefined {
    for (let i = this.#scanned; i < text.length; i++) this.#char(text[i]);
    this.#scanned = text.length;
    const top = this.#stack.at(-1);
    const items = top?.type === "array" && !this.#afterKey ? { items: [...top.items!] } : {};
    if (this.#state === "between" && (this.#pending || this.#afterKey))
      return { kind: "pending", path: this.#path(), value: "", opener: this.#afterKey ? ":" : "", ...items };
    if (this.#state !== "string" && this.#state !== "number") return undefined;
    return { kind: this.#state, path: this.#path(), value: this.#buffer, ...items };
  }

  /**
   * Where the text's end is in the structure, for the decision at a reply's branch points (see DecisionSteer): inside
   * an object's key (`key`: its text so far, `path` the keys above it), inside a value (a string, a number, a literal:
   * `value`), or between values, with the innermost
   * container's kind, the keys to it and, for an array, how many items it holds and whether one just closed. Read after
   * `update`.
   */
  structure():
    | { in: "key"; path: string[]; key: string }
    | { in: "value" }
    | { in: "between"; container: "object" | "array" | "none"; path: string[]; items: number; afterItem: boolean } {
    if (this.#state === "key") return { in: "key", path: this.#path(), key: this.#buffer };
    if (this.#state !== "between") return { in: "value" };
    const top = this.#stack.at(-1);
    return {
      in: "between",
      container: top?.type ?? "none",
      path: this.#path(),
      items: top?.items?.length ?? 0,
      afterItem:
        this.#state === "between" &&
        !this.#pending &&
        !this.#afterKey &&
        top?.type === "array" &&
        top.items!.length > 0,
    };
  }

  /**
   * The items so far of the open array under the root object's `key` (a reply's `calls` list: the index of the call
   * being written), or undefined when the text is not inside it.
   */
  /** How many containers (objects, arrays) are open at the text's end. */
  get depth(): number {
    return this.#stack.length;
  }

  rootArrayItems(key: string): number | undefined {
    const [root, array] = this.#stack;
    if (root?.type !== "object" || root.key !== key || array?.type !== "array") return undefined;
    return array.items!.length;
  }

  /** A value ended: an array's item. */
  #item(text: string): void {
    const top = this.#stack.at(-1);
    if (top?.type === "array") top.items!.push(text);
  }

  #path(): string[] {
    const keys: string[] = [];
    for (const frame of this.#stack) if (frame.type === "object" && frame.key !== undefined) keys.push(frame.key);
    return keys;
  }

  #char(ch: string): void {
    if (this.#state === "key" || this.#state === "string") return this.#stringChar(ch);
    if (this.#state === "number") {
      if (NUMBER_CHAR.test(ch)) {
        this.#buffer += ch;
        return;
      }
      this.#state = "between";
      this.#item(this.#buffer);
    } else if (this.#state === "literal") {
      if (/[a-z]/.test(ch)) return;
      this.#state = "between";
    }
    this.#structural(ch);
  }

  #stringChar(ch: string): void {
    if (this.#escape !== undefined) {
      this.#escape += ch;
      if (this.#escape[0] === "u") {
        if (this.#escape.length < 5) return;
        this.#buffer += String.fromCharCode(parseInt(this.#escape.slice(1), 16) || 0xfffd);
      } else this.#buffer += ESCAPES[ch] ?? ch;
      this.#escape = undefined;
    } else if (ch === "\\") this.#escape = "";
    else if (ch !== '"') this.#buffer += ch;
    else {
      const top = this.#stack.at(-1);
      if (this.#state === "key" && top?.type === "object") top.key = this.#buffer;
      this.#afterKey = this.#state === "key";
      if (this.#state === "string") this.#item(this.#buffer);
      this.#state = "between";
    }
  }

  #structural(ch: string): void {
    if (/\s/.test(ch)) return;
    this.#afterKey = false;
    const top = this.#stack.at(-1);
    this.#pending = ch === ":" || ((ch === "[" || ch === ",") && (ch === "[" || top?.type === "array"));
    if (ch === "{") this.#stack.push({ type: "object" });
    else if (ch === "[") this.#stack.push({ type: "array", items: [] });
    else if (ch === "}" || ch === "]") {
      this.#stack.pop();
      this.#item(ch === "}" ? "{}" : "[]");
    } else if (ch === "," && top?.type === "object") top.key = undefined;
    else if (ch === '"') {
      this.#state = top?.type === "object" && top.key === undefined ? "key" : "string";
      this.#buffer = "";
    } else if (/[-0-9]/.test(ch)) {
      this.#state = "number";
      this.#buffer = ch;
    } else if (/[a-z]/.test(ch)) this.#state = "literal";
  }
}
