import type { Token } from "node-llama-cpp";
import { GbnfMatcher } from "../gbnf/gbnf-matcher.js";
import type { ParsedGbnf } from "../gbnf/gbnf-parse.js";
import { pickCandidate, type PickSampling } from "./candidate-pick.js";
import { JumpForward, type JumpTokenizer } from "./jump-forward.js";
import { ReplyMatcher, type TokenTexts } from "./reply-matcher.js";
import type { TokenRun } from "./token-run.js";

/**
 * What to evaluate after a pick: `feed`, after erasing the sequence's last `erase` tokens (a forced run that
 * re-tokenizes a draft already evaluated). An empty feed: the next position's candidates are in the batch already.
 */
export interface NextFeed {
  feed: Token[];
  erase: number;
}

/** What a reply sampled by candidates needs from its handle. */
export interface CandidateReplySetup {
  gbnf: ParsedGbnf;
  texts: TokenTexts;
  /** Jump-forward's tokenizer; absent: jump-forward off. */
  jumpTokenizer: JumpTokenizer | undefined;
  /** Tokens that end the reply (end of generation, a template's stop token). */
  ends: (token: Token) => boolean;
  /** Tokens never sampled. */
  banned: ReadonlySet<Token>;
  sampling: PickSampling;
}

/**
 * One reply under a grammar, sampled by candidates (see LlamaModelHandle's candidate sampling): where it stands in
 * the grammar, which candidate to take, and what to evaluate after each pick (jump-forward's forced text, or the
 * token alone). Also keeps the tokens jump-forward held back after the text fed last, speculation's drafts.
 */
export class CandidateReply {
  readonly #run: TokenRun;
  readonly #reply: ReplyMatcher;
  readonly #jump: JumpForward | undefined;
  readonly #setup: CandidateReplySetup;
  /** The tokens jump-forward held back after the text fed last (the forced text's last tokens). */
  heldBack: Token[] = [];

  constructor(run: TokenRun, setup: CandidateReplySetup) {
    this.#run = run;
    this.#setup = setup;
    this.#reply = new ReplyMatcher(new GbnfMatcher(setup.gbnf), setup.texts);
    this.#jump = setup.jumpTokenizer ? new JumpForward(this.#reply, setup.jumpTokenizer) : undefined;
  }

  /** The reply's first batch: `input` (the prompt's tail) and the forced opening; undefined when that ends the reply. */
  open(input: Token[]): Token[] | undefined {
    const opening = this.#jump?.start();
    if (!opening || !this.#run.fits(opening.tokens.length, false)) return input;
    this.#jump!.commit(opening);
    if (this.#run.takeForced(opening) || opening.finished) return undefined;
    this.heldBack = opening.heldBack;
    return [...input, ...opening.tokens];
  }

  /** The candidate to take among `probabilities` (see pickCandidate); undefined when the grammar allows none. */
  pick(probabilities: Map<Token, number> | undefined): Token | undefined {
    const { ends, banned, sampling } = this.#setup;
    const reply = this.#reply;
    const allows = (token: Token) => (ends(token) ? reply.complete : !banned.has(token) && reply.allows(token));
    if (probabilities) this.#run.candidates = { probabilities, allows };
    return pickCandidate(probabilities ?? [], allows, sampling);
  }

  /**
   * Take the token picked at the reply's end (`evaluated`: a confirmed draft, in the sequence already) and what the
   * grammar forces after it: what to evaluate next, or undefined when the reply ends.
   */
  after(token: Token, evaluated: boolean): NextFeed | undefined {
    const run = this.#run;
    if (this.#setup.ends(token) || run.take(token)) return undefined;
    const forced = this.#jump ? this.#jump.afterSampled(token) : void this.#reply.take(token);
    if (forced && run.fits(forced.tokens.length, forced.replacesLast)) {
      this.#jump!.commit(forced);
      if (run.takeForced(forced) || forced.finished) return undefined;
      this.heldBack = forced.heldBack;
      if (!evaluated) return { feed: forced.tokens, erase: 0 };
      return forced.replacesLast ? { feed: forced.tokens, erase: 1 } : { feed: forced.tokens.slice(1), erase: 0 };
    }
    // nothing but the end may follow: the reply ends without evaluating this token (see #sampleConstrained)
    if (this.#reply.finished) return undefined;
    this.heldBack = [];
    return { feed: evaluated ? [] : [token], erase: 0 };
  }
}
