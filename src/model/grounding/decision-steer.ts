import type { Token } from "./token.js";
import type { DecisionBranch, DecisionOptions } from "../model-handle.js";
import { JsonValueTracker } from "./json-value-tracker.js";
import type { Steering } from "./grounding-steer.js";

/** What the decision needs of a model's vocabulary: tokens by their text, and the tokens never sampled. */
export interface DecisionVocabulary {
  tokensFor(text: string): readonly Token[] | undefined;
  banned: ReadonlySet<Token>;
}

/** The options of one reply's grammar: the root object's keys and the skill names (see actionOptions). */
export interface ActionOptions {
  keys: readonly string[];
  skills: readonly string[];
}

/** The model's top candidates at one position (probabilities under the bias) and which ones the grammar allows. */
export interface Candidates {
  probabilities: ReadonlyMap<Token, number>;
  allows: (token: Token) => boolean;
}

/** One option at a branch point: the texts that take it from here (any of them), and its offset. */
interface Option {
  name: string;
  rest: string | readonly string[];
  offset: number;
}

/** A branch point being passed: its options' log-probabilities so far, and which are still open. */
interface Passing {
  at: DecisionBranch["at"];
  offsets: Map<string, number>;
  logprob: Map<string, number | null>;
  open: Set<string>;
  /** The last position's tokens and the options each one leads to (see #observe). */
  tokens: Map<Token, string[]>;
}

/** The root keys that decide what a reply does: call one skill, call several, or answer. */
const ACTION_KEYS = ["skill_name", "calls", "final_answer"];
/** A root key that decides the action, written already (`{"` or `,"` before it: never inside a string, where `"` is escaped). */
const ACTION_KEY_WRITTEN = /[{,]\s*"(?:skill_name|calls|final_answer)"\s*:/;

/** The text that follows a root key's name: its closing quote, the colon and the value's opening. */
const KEY_TAIL: Readonly<Record<string, string>> = { calls: '":[{"skill_name":"', skill_name: '":"' };

/**
 * The decision of one constrained reply at its branch points (see DecisionOptions): where the root object's key is
 * being chosen (`skill_name`, `final_answer`, `calls`), where a skill's name is being written, and after each item of
 * a `calls` list (`,` for another call, `]` for the end), the tokens that take each option get its offset. A token
 * that several options share (`calc` of `calc_area` and `calc_volume`) gets the largest of theirs: the choice between
 * them comes at the position where they part, so the reply takes the option of largest log-probability plus offset,
 * one parting at a time. Elsewhere it steers nothing (undefined), and grounding steers the values.
 *
 * At each branch point passed it reports the options (DecisionOptions.onBranch): each one's log-probability under the
 * model alone, summed over the positions where the options part (the grammar forces the rest of an option's text).
 */
export class DecisionSteer {
  readonly #options: DecisionOptions;
  readonly #action: ActionOptions;
  readonly #vocab: DecisionVocabulary;
  readonly #tracker = new JsonValueTracker();
  #passing: Passing | undefined;

  constructor(options: DecisionOptions, action: ActionOptions, vocab: DecisionVocabulary) {
    this.#options = options;
    this.#action = action;
    this.#vocab = vocab;
  }

  /** The bias for the token after `text` (the whole reply so far), or undefined away from a branch point. */
  next(text: string): Steering | undefined {
    const position = this.#tracker.update(text);
    const structure = this.#tracker.structure();
    let branch: { at: DecisionBranch["at"]; options: Option[] } | undefined;
    const deciding = !ACTION_KEY_WRITTEN.test(text);
    if (structure.in === "key" && structure.path.length === 0)
      branch = deciding ? this.#keyBranch(structure.key) : undefined;
    else if (position && position.path.at(-1) === "skill_name" && this.#atCallName(position.path))
      branch = this.#skillBranch(
        position.kind === "string" ? position.value : "",
        position.kind !== "string" ? (position.opener ?? "") + '"' : "",
        this.#tracker.rootArrayItems("calls"),
      );
    else if (structure.in === "between" && structure.afterItem && structure.path.join(".") === "calls")
      branch = this.#listBranch(structure.items);
    else if (
      deciding &&
      structure.in === "between" &&
      structure.container === "object" &&
      structure.path.length === 0 &&
      /[{,]\s*$/.test(text)
    )
      branch = this.#keyBranch(undefined);
    if (!branch || branch.options.length < 2) {
      this.#settle();
      return this.#closing(position?.kind === "number" || structure.in === "between");
    }
    return this.#bias(branch.at, branch.options);
  }

  /**
   * Inside a `calls` list's call, where a value may end (`between` values, or in a number), the tokens that close
   * the call and go on or end the list at once (`}},{"`, `}}]`): the list's offsets (see #listBranch), unreported.
   */
  #closing(atValueEnd: boolean): Steering | undefined {
    const call = this.#tracker.rootArrayItems("calls");
    const { plannedCalls, listOffset = 0 } = this.#options;
    if (!atValueEnd || call === undefined || plannedCalls === undefined || listOffset === 0) return undefined;
    const closers = "}".repeat(Math.max(0, this.#tracker.depth - 2));
    if (closers === "") return undefined;
    const more = call + 1 < plannedCalls ? listOffset : -listOffset;
    const logits = new Map<Token, number>();
    const add = (texts: string[], offset: number) => {
      for (const text of texts)
        for (const token of this.#vocab.tokensFor(closers + text) ?? [])
          if (!this.#vocab.banned.has(token)) logits.set(token, offset);
    };
    add([",", ",{", ',{"', ", {", ', {"'], more);
    add(["]", "]}", "],", '],"'], -more);
    return logits.size > 0 ? { type: "bias", logits } : undefined;
  }

  /**
   * The pick at the position last biased, with the model's top candidates where the sampler has them (their
   * probabilities under the bias, at temperature 1): the options it leaves open, and their log-probabilities.
   */
  picked(token: Token, candidates: Candidates | undefined): void {
    const passing = this.#passing;
    if (!passing || passing.tokens.size === 0) return;
    const options = passing.tokens.get(token) ?? [];
    this.#observe(passing, candidates);
    for (const name of passing.open) if (!options.includes(name)) passing.open.delete(name);
    passing.tokens = new Map();
    if (passing.open.size <= 1) this.#settle();
  }

  /** Is `path` (ending at `skill_name`) a call's name: the action's own, or an item's of a `calls` list? */
  #atCallName(path: readonly string[]): boolean {
    return path.length === 1 || (path.length === 2 && path[0] === "calls");
  }

  /** The root key being written (`sofar`; undefined: its opening quote is next). */
  #keyBranch(sofar: string | undefined): { at: "action"; options: Option[] } {
    const { answer = 0, calls } = this.#options;
    const best = this.#bestSkillOffset();
    const offsetOf = (key: string) =>
      key === "final_answer" ? answer : key === "skill_name" ? best : key === "calls" ? (calls ?? best) : 0;
    const options: Option[] = [];
    for (const key of this.#action.keys) {
      if (!ACTION_KEYS.includes(key) && key !== "thought") continue;
      if (sofar !== undefined && !key.startsWith(sofar)) continue;
      const rest = (sofar === undefined ? '"' + key : key.slice(sofar.length)) + (KEY_TAIL[key] ?? '":"');
      options.push({ name: key, rest, offset: offsetOf(key) });
    }
    return { at: "action", options };
  }

  /** A skill's name being written (`sofar`), after `opening` (the value's opening quote when it is still to come). */
  #skillBranch(sofar: string, opening: string, call: number | undefined): { at: "skill"; options: Option[] } {
    const items = this.#options.itemSkills;
    const skills = (call !== undefined && items?.[call]) || this.#options.skills || {};
    const options = this.#action.skills
      .filter((name) => name.startsWith(sofar))
      .map((name) => ({
        name,
        rest: opening + name.slice(sofar.length) + '","arguments":{',
        offset: Object.hasOwn(skills, name) ? skills[name] : 0,
      }));
    return { at: "skill", options };
  }

  /** After the `items`-th call of a `calls` list: another call, or the list's end. */
  #listBranch(items: number): { at: "next-call"; options: Option[] } {
    const { plannedCalls, listOffset = 0 } = this.#options;
    const more = plannedCalls === undefined ? 0 : items < plannedCalls ? listOffset : -listOffset;
    return {
      at: "next-call",
      options: [
        { name: "another call", rest: ',{"skill_name":"', offset: more },
        { name: "end of the list", rest: ["]}", '],"thought":"'], offset: -more },
      ],
    };
  }

  #bestSkillOffset(): number {
    const skills = this.#options.skills ?? {};
    let best: number | undefined;
    for (const name of this.#action.skills) {
      const offset = Object.hasOwn(skills, name) ? skills[name] : 0;
      best = best === undefined ? offset : Math.max(best, offset);
    }
    return best ?? 0;
  }

  /** The offsets of the tokens that take each option (every prefix of its text), and the branch point's record. */
  #bias(at: DecisionBranch["at"], options: Option[]): Steering {
    const logits = new Map<Token, number>();
    const tokens = new Map<Token, string[]>();
    for (const option of options) {
      const pieces = new Set<string>();
      for (const rest of [option.rest].flat())
        for (let length = 1; length <= rest.length; length++) pieces.add(rest.slice(0, length));
      for (const piece of pieces) {
        for (const token of this.#vocab.tokensFor(piece) ?? []) {
          if (this.#vocab.banned.has(token)) continue;
          const names = tokens.get(token);
          if (names?.includes(option.name)) continue;
          if (names) names.push(option.name);
          else tokens.set(token, [option.name]);
          logits.set(token, Math.max(logits.get(token) ?? -Infinity, option.offset));
        }
      }
    }
    let passing = this.#passing;
    if (!passing || passing.at !== at) {
      this.#settle();
      passing = this.#passing = {
        at,
        offsets: new Map(options.map((o) => [o.name, o.offset])),
        logprob: new Map(options.map((o) => [o.name, 0])),
        open: new Set(options.map((o) => o.name)),
        tokens,
      };
    } else passing.tokens = tokens;
    for (const [token, logit] of logits) if (logit === 0) logits.delete(token);
    return { type: "bias", logits };
  }

  /**
   * Add one position's log-probabilities to the open options: each option's share of the candidates that take an
   * option here, under the model alone (each candidate's probability with its offset taken back out).
   */
  #observe(passing: Passing, candidates: Candidates | undefined): void {
    if (!candidates) {
      for (const name of passing.open) passing.logprob.set(name, null);
      return;
    }
    const mass = new Map<string, number>();
    let total = 0;
    for (const [token, names] of passing.tokens) {
      const p = candidates.probabilities.get(token);
      if (p === undefined || p <= 0 || !candidates.allows(token)) continue;
      const own = p * Math.exp(-Math.max(...names.map((n) => passing.offsets.get(n) ?? 0)));
      total += own;
      for (const name of new Set(names)) mass.set(name, (mass.get(name) ?? 0) + own);
    }
    for (const name of passing.open) {
      const before = passing.logprob.get(name);
      const share = mass.get(name);
      if (before === null || before === undefined) continue;
      passing.logprob.set(name, share && total > 0 ? before + Math.log(share / total) : -Infinity);
    }
  }

  /** The branch point being passed is done: report it (the option left open, or the one the text took). */
  #settle(): void {
    const passing = this.#passing;
    this.#passing = undefined;
    if (!passing || !this.#options.onBranch) return;
    const chosen = [...passing.open][0] ?? "";
    this.#options.onBranch({
      at: passing.at,
      options: [...passing.offsets].map(([option, offset]) => {
        const logprob = passing.logprob.get(option);
        return {
          option,
          logprob: logprob !== undefined && logprob !== null && Number.isFinite(logprob) ? logprob : null,
          offset,
        };
      }),
      chosen,
    });
  }
}

/**
 * The branch points' options of an action schema (see buildActionJsonSchema): the keys its root objects may begin
 * with (each branch's properties up to its first required one: the grammar writes them in order), and the skill names
 * it holds (a `calls` item's too).
 */
export function actionOptions(schema: unknown): ActionOptions {
  let options = actionOptionsCache.get(schema as object);
  if (options) return options;
  const keys = new Set<string>();
  const skills = new Set<string>();
  const walk = (node: unknown, depth: number, root: boolean): void => {
    if (depth > 32 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((item) => walk(item, depth + 1, root));
    const record = node as Record<string, unknown>;
    const properties = record.properties as Record<string, { const?: unknown }> | undefined;
    if (properties) {
      if (root) {
        const required = new Set(Array.isArray(record.required) ? record.required : []);
        for (const key of Object.keys(properties)) {
          keys.add(key);
          if (required.has(key)) break;
        }
      }
      if (typeof properties.skill_name?.const === "string") skills.add(properties.skill_name.const);
    }
    for (const [name, value] of Object.entries(record))
      walk(value, depth + 1, root && (name === "anyOf" || name === "oneOf"));
  };
  walk(schema, 0, true);
  options = { keys: [...keys], skills: [...skills] };
  if (schema && typeof schema === "object") actionOptionsCache.set(schema, options);
  return options;
}

const actionOptionsCache = new WeakMap<object, ActionOptions>();
