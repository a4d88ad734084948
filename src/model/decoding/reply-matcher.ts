import type { Token } from "node-llama-cpp";
import type { GbnfMatcher } from "../gbnf/gbnf-matcher.js";

/** Detokenizes single tokens once (a reply under a grammar asks for the same candidates' texts over and over). */
export class TokenTexts {
  readonly #detokenize: (tokens: readonly Token[]) => string;
  readonly #cache = new Map<Token, string>();

  constructor(detokenize: (tokens: readonly Token[]) => string) {
    this.#detokenize = detokenize;
  }

  /** One token's text (special tokens off). */
  of(token: Token): string {
    let text = this.#cache.get(token);
    if (text === undefined) {
      text = this.#detokenize([token]);
      this.#cache.set(token, text);
    }
    return text;
  }

  /** Several tokens' text together (a character split over byte tokens comes out whole). */
  join(tokens: readonly Token[]): string {
    return tokens.length === 1 ? this.of(tokens[0]) : this.#detokenize(tokens);
  }
}

/** Byte tokens held back at most this many at once: no UTF-8 character takes more. */
const MAX_PENDING = 4;

/**
 * Where a constrained reply stands in its grammar, token by token: our {@link GbnfMatcher} over the tokens' text. The
 * one account of the reply's grammar position that jump-forward (the text forced next) and candidate sampling (which
 * of the model's candidates the grammar allows) both read. A token whose text ends inside a multi-byte character is
 * held until the character is whole.
 */
export class ReplyMatcher {
  readonly matcher: GbnfMatcher;
  readonly #texts: TokenTexts;
  /** Taken tokens whose text is not a whole character yet. */
  #pending: Token[] = [];
  #lost = false;

  constructor(matcher: GbnfMatcher, texts: TokenTexts) {
    this.matcher = matcher;
    this.#texts = texts;
  }

  /** False once a token was taken that the grammar does not allow (the matcher then knows nothing). */
  get active(): boolean {
    return !this.#lost;
  }

  /** Whether a character is still waiting for its last bytes. */
  get midCharacter(): boolean {
    return this.#pending.length > 0;
  }

  /** Whether the reply may end here (an end-of-turn token is allowed). */
  get complete(): boolean {
    return !this.#lost && this.#pending.length === 0 && this.matcher.complete;
  }

  /** Whether the reply is complete and the grammar allows nothing more. */
  get finished(): boolean {
    return !this.#lost && this.#pending.length === 0 && this.matcher.finished;
  }

  /**
   * Whether the grammar allows `token` next. A token that leaves a character unfinished is allowed where any
   * non-ASCII character may come (inside a string), so that its completion is allowed too.
   */
  allows(token: Token): boolean {
    if (this.#lost) return false;
    const { text, whole } = this.#textWith(token);
    if (text === "" && whole) return false; // an empty piece never moves the grammar: llama.cpp refuses it too
    return whole ? this.matcher.allows(text) : this.matcher.anyNonAsciiAfter(text);
  }

  /**
   * Take a token the model wrote. Returns the text it completes (`""` while a character is unfinished), or
   * undefined when the grammar does not allow it (the matcher is then lost for the rest of the reply).
   */
  take(token: Token): string | undefined {
    if (this.#lost) return undefined;
    const { text, whole } = this.#textWith(token);
    if (!whole) {
      this.#pending.push(token);
      return "";
    }
    this.#pending = [];
    if (!this.matcher.accept(text)) {
      this.#lost = true;
      return undefined;
    }
    return text;
  }

  /** Take forced text (jump-forward) that follows whole tokens. */
  takeText(text: string): void {
    if (!this.#lost && !this.matcher.accept(text)) this.#lost = true;
  }

  /**
   * The text of the pending tokens and `token` together; `whole` false while it ends inside a character (then
   * `text` is what comes before that character).
   */
  #textWith(token: Token): { text: string; whole: boolean } {
    const text = this.#pending.length === 0 ? this.#texts.of(token) : this.#texts.join([...this.#pending, token]);
    if (!text.endsWith("\uFFFD") || this.#pending.length + 1 >= MAX_PENDING) return { text, whole: true };
    return { text: text.replace(/\uFFFD+$/, ""), whole: false };
  }
}
