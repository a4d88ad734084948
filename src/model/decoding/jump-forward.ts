import type { Token } from "node-llama-cpp";
import type { GbnfMatcher } from "../gbnf/gbnf-matcher.js";
import type { ReplyMatcher } from "./reply-matcher.js";

/** How jump-forward turns text into tokens and back: the model's own tokenizer, special tokens off. */
export interface JumpTokenizer {
  tokenize(text: string): Token[];
  detokenize(tokens: readonly Token[]): string;
}

/** Tokens the grammar forces, to be evaluated in one batch instead of sampled one by one. */
export interface ForcedRun {
  /**
   * The tokens to evaluate next. After a sampled token they begin with it (`replacesLast` false) or with the joint's
   * own tokenization that replaces it (`replacesLast` true: the sampled token's text re-tokenized with the forced text).
   */
  readonly tokens: Token[];
  readonly replacesLast: boolean;
  /** How many tokens the run adds to the reply beyond the sampled token (`tokens.length`, less 1 after a sample). */
  readonly forced: number;
  /** The forced text these tokens add. */
  readonly text: string;
  /** The grammar is complete after them and allows nothing more: generation ends without sampling. */
  readonly finished: boolean;
  /**
   * The forced text's last tokens, held back for the model to sample because free text follows that may merge with
   * them (`":"` before a string's content): what the model most likely writes next, a draft to check (speculation).
   */
  readonly heldBack: Token[];
}

/**
 * Jump-forward for one grammar-constrained reply: after each sampled token, the text the grammar forces next (from a
 * {@link GbnfMatcher}) becomes tokens that the loader evaluates in one batch. Tokenization is kept as the model would
 * write it: the sampled token is re-tokenized together with the forced text (`"c` + `alculator","` becomes `"`,
 * `calculator`, `","`), and where free text follows (a string's or a number's content), the forced run's last token
 * is held back for the model to sample, since it may merge with what the model writes next (`":"` then `1`, or `":`
 * then `"1`). Before a choice among literals (a key, `,` or `}`) nothing is held back.
 */
export class JumpForward {
  readonly #reply: ReplyMatcher;
  readonly #tokenizer: JumpTokenizer;

  /** `reply`: where the reply stands in the grammar; jump-forward advances it over the tokens it is given. */
  constructor(reply: ReplyMatcher, tokenizer: JumpTokenizer) {
    this.#reply = reply;
    this.#tokenizer = tokenizer;
  }

  get #matcher(): GbnfMatcher {
    return this.#reply.matcher;
  }

  /** False once the matcher disagreed with the model's grammar (it then stays out of the way). */
  get active(): boolean {
    return this.#reply.active;
  }

  /** Whether the reply is complete and its grammar allows nothing more (only the end may follow). */
  get finished(): boolean {
    return this.#reply.finished;
  }

  /** The forced opening of the reply (`{"` for an action), to be evaluated with the prompt's last token. */
  start(): ForcedRun | undefined {
    const forced = this.#matcher.forced();
    if (forced === "") return undefined;
    return this.#plan([], "", forced);
  }

  /** Take a planned run's forced text (the loader feeds its tokens). A run not committed is as if never planned. */
  commit(run: ForcedRun): void {
    this.#reply.takeText(run.text);
  }

  /**
   * After a sampled token (taken into the reply's matcher here): the forced run that follows it, if any (commit it
   * when its tokens are fed).
   */
  afterSampled(token: Token): ForcedRun | undefined {
    // the text the model's grammar took is not ours once lost: never force anything on a guess
    if (!this.#reply.take(token) || this.#reply.midCharacter) return undefined;
    const forced = this.#matcher.forced();
    if (forced === "") return undefined;
    return this.#plan([token], this.#tokenizer.detokenize([token]), forced);
  }

  /**
   * Tokens for `lastText + forced` (the sampled token's text and what the grammar forces after it): the joint's own
   * tokenization when it reproduces the text, else the sampled token then the forced text's tokens. All but the last
   * token (unless the grammar ends with it), and at least past the sampled token's text.
   */
  #plan(last: Token[], lastText: string, forced: string): ForcedRun | undefined {
    const joint = this.#tokenizer.tokenize(lastText + forced);
    let tokens = this.#tokenizer.detokenize(joint) === lastText + forced ? joint : undefined;
    if (!tokens) {
      const alone = this.#tokenizer.tokenize(forced);
      if (this.#tokenizer.detokenize(alone) !== forced) return undefined;
      tokens = [...last, ...alone];
    }
    const finished = this.#matcher.finishedAfter(forced);
    let end = finished || !this.#matcher.freeAfter(forced) ? tokens.length : tokens.length - 1;
    for (; end > 0; end--) {
      const text = this.#tokenizer.detokenize(tokens.slice(0, end));
      if (text.length > lastText.length && text.startsWith(lastText) && !text.endsWith("\uFFFD")) break;
    }
    if (end === 0) return undefined;
    const fed = tokens.slice(0, end);
    const text = this.#tokenizer.detokenize(fed).slice(lastText.length);
    const replacesLast = last.length > 0 && fed[0] !== last[0];
    return {
      tokens: fed,
      replacesLast,
      forced: fed.length - last.length,
      text,
      finished: finished && end === tokens.length,
      heldBack: tokens.slice(end),
    };
  }
}
