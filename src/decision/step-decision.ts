import type { DecisionOptions } from "../model/model-handle.js";
import { DECISION_WEIGHTS, type DecisionWeights } from "./defaults.js";
import { imperativeArithmetic } from "./imperative-arithmetic.js";
import { questionItems, type QuestionItem } from "./question-items.js";
import { coverSkills } from "./skill-coverage.js";
import { freshLeaves, resultValues, type EarlierCall } from "./run-calls.js";
import { fitScore, questionValues, skillFit, type SkillFit, type SkillProfile } from "./skill-fit.js";
import { derivedKeys } from "./derived-keys.js";
import { nameStems, stem } from "./words.js";

/**
 * The parts of the decision, each of which can be left out (to measure what each does):
 * - `fit`: how many of a skill's required arguments the question gives values for;
 * - `words`: the words the question shares with the skill's name, description and arguments;
 * - `items`: the question's items, one call each (issue 40): a list or a clause per call, the list of calls as long
 *   as the items, each call's values read from its own item;
 * - `progress`: after a result, call again only for an item no call has taken or a skill the result lets run (a
 *   chain), else answer; a call already made gets a malus.
 * With none, the offsets are all 0: the model's own choice, its branch points reported.
 */
export type DecisionLever = "fit" | "words" | "items" | "progress";

/** Every decision lever, in the order the docs give them. */
export const DECISION_LEVERS: readonly DecisionLever[] = ["fit", "words", "items", "progress"];

/** Whether `value` is a list of decision levers (an option given from JavaScript may be anything). */
export function isDecisionLeverList(value: unknown): value is readonly DecisionLever[] {
  return Array.isArray(value) && value.every((item) => DECISION_LEVERS.includes(item as DecisionLever));
}

/** How the decision is made: `off` (the model alone) or `scored` (its log-probabilities plus each option's fit). */
export type DecisionMode = "off" | "scored";

/** What one step's decision reads. */
export interface DecisionInput {
  /** The user's question. */
  question: string;
  /** The skills the reply may call. */
  skills: readonly SkillProfile[];
  /** The calls the run made before this step, in order, with what each came to. Default: none. */
  calls?: readonly EarlierCall[];
  /** Whether the reply may hold several calls (a `calls` list). Default false. */
  parallelCalls?: boolean;
  /** Which parts act. Default: all of them. */
  levers?: readonly DecisionLever[];
  /** The weights. Default: DECISION_WEIGHTS. */
  weights?: DecisionWeights;
}

/** One step's decision: the offsets at the reply's branch points, and what the reply's calls should read. */
export interface StepDecision {
  offsets: Omit<DecisionOptions, "onBranch">;
  /**
   * The items the reply's calls take, in order (the next call's first; a `calls` list's k-th call the k-th): each
   * call's values are read from its item's text. Empty: the question whole.
   */
  items: QuestionItem[];
  /** The run's newest result holds what the next call needs (a chain): its values come first. */
  chain: boolean;
  /**
   * In a chain, what the newest result brings, as the next call should read it: its values that no call wrote (a
   * conversion's result, not its echo of the value converted). Absent otherwise.
   */
  chainSource?: string;
  /** After a result, nothing is left to call for: the reply should answer, from the newest result first. */
  answer: boolean;
  /**
   * The next call's text with its arithmetic imperatives as the calculator writes them ("Multiply 48 by 25, subtract
   * 200" as "48 * 25 - 200"), where that differs: a value to copy too.
   */
  reading?: string;
  /** The values the run's earlier calls wrote (numbers and strings, as text): a next call's own item is elsewhere. */
  taken: string[];
}

/** Each skill's fit to a text (see skillFit), in the order given. */
export function skillFits(text: string, skills: readonly SkillProfile[]): SkillFit[] {
  const values = questionValues(text);
  return skills.map((skill) => skillFit(skill, values));
}

/**
 * Each skill's fit score to `text`, a required argument the text only describes ("the country where Mount Fuji is":
 * see derivedKeys) counted as not given.
 */
function scores(
  text: string,
  skills: readonly SkillProfile[],
  levers: ReadonlySet<DecisionLever>,
  weights: DecisionWeights,
) {
  const values = questionValues(text);
  const parts = { words: levers.has("words"), fit: levers.has("fit") };
  return new Map(
    skills.map((skill) => {
      const fit = skillFit(skill, values, derivedKeys(text, skill, skills));
      return [skill.name, fitScore(fit, parts, weights)];
    }),
  );
}

/**
 * One step's offsets at the reply's branch points (see DecisionOptions), from the skills' fit to the question and
 * what the run has done:
 * - each skill's offset is `scale` x (its fit score - the threshold); the answer's is `actionScale` x (the threshold -
 *   the best skill's score) above the best skill's, so that a question no skill fits is answered and one a skill fits
 *   well calls it, the model's own log-probabilities deciding near the threshold;
 * - with items (several calls asked for), the `calls` list (where the reply may hold one) is favoured and planned as
 *   long as the items; one call a step, the next item's skill and text;
 * - after a result (progress): while items remain, calling goes on; then a skill the newest result lets run (a
 *   chain: an argument the question only describes, that the result gives) is called; else the answer is favoured,
 *   and the calls already made get a malus.
 */
export function stepDecision(input: DecisionInput): StepDecision {
  const levers = new Set(input.levers ?? DECISION_LEVERS);
  const weights = input.weights ?? DECISION_WEIGHTS;
  const none: StepDecision = { offsets: { answer: 0, skills: {} }, items: [], chain: false, answer: false, taken: [] };
  if (levers.size === 0 || input.skills.length === 0) return none;
  const where = whereTheRunIs(input, levers, weights);
  const { calls, items, chained, next, progress } = where;
  const offsets: Offsets = { answer: 0, skills: {} };
  const skillOffsets = (text: string, prefer?: string, covers = false) => {
    const own = text === input.question ? where.whole : scores(text, input.skills, levers, weights);
    const out: Record<string, number> = {};
    for (const [name, score] of own)
      out[name] = weights.scale * (score - weights.threshold) + (name === prefer ? weights.namedBonus : 0);
    // (an item that covers a skill no other item asks for is that skill's: see coverSkills)
    if (covers && prefer !== undefined && Object.hasOwn(out, prefer))
      out[prefer] = Math.max(...Object.values(out)) + weights.progress;
    return out;
  };
  // an item that computes on the result before it ("divide it by 1000") is the expression skill's
  const computes = next?.chain && AGGREGATE.test(next.text) ? input.skills.find(takesExpression)?.name : undefined;
  offsets.skills = skillOffsets(next?.text ?? input.question, next?.skill ?? computes, next?.covers);
  const bestOffset = Math.max(...Object.values(offsets.skills));
  offsets.answer = bestOffset + weights.actionScale * (weights.threshold - Math.max(...where.whole.values()));
  const chain = (next?.chain === true && calls.length > 0) || chained.length > 0;
  // items that take up a result before them (a chain) cannot go in one reply: each waits for the one before
  const several = levers.has("items") && chained.length === 0 && items.length >= 2 && !items.some((item) => item.chain);
  if (input.parallelCalls) offsets.calls = bestOffset + (several ? weights.listBonus : -weights.listBonus);
  const answer = progress && applyProgress(offsets, { chained, itemsLeft: items.length, chain, bestOffset }, weights);
  if (input.parallelCalls && several) {
    offsets.plannedCalls = items.length;
    offsets.listOffset = weights.listBonus;
    offsets.itemSkills = items.map((item) => skillOffsets(item.text, item.skill, item.covers));
  }
  const chainSource = chain ? chainText(input.question, calls, next) : undefined;
  const text = next?.text ?? input.question;
  const reading = imperativeArithmetic(text);
  return {
    taken: progress ? takenValues(calls) : [],
    ...(reading !== text && !chain && { reading }),
    offsets,
    items: levers.has("items") && where.all.length > 1 ? items : [],
    chain,
    answer,
    ...(chainSource && { chainSource }),
  };
}

type Offsets = { -readonly [K in keyof DecisionOptions]: DecisionOptions[K] };

/**
 * Where the run stands: its calls that came to a result (a call that failed took nothing: its item is still to do,
 * its skill may run again), the question's items and those left, the skills the newest result lets run (a chain
 * comes first; the calls that were chains took no item), and the next item.
 */
function whereTheRunIs(input: DecisionInput, levers: ReadonlySet<DecisionLever>, weights: DecisionWeights) {
  const calls = (input.calls ?? []).filter((call) => call.result !== undefined);
  const all = levers.has("items")
    ? coverSkills(
        input.question,
        questionItems(input.question, input.skills),
        // (not a skill that waits for another's result: a chain calls it, see chainSkills)
        input.skills.length < 2
          ? []
          : input.skills.filter((s) => derivedKeys(input.question, s, input.skills).length === 0),
        (text) => scores(text, input.skills, levers, weights),
        weights.threshold,
      )
    : [{ text: input.question }];
  const whole = scores(input.question, input.skills, levers, weights);
  const progress = levers.has("progress") && calls.length > 0;
  const chained = progress ? chainSkills(input, calls, whole, weights) : [];
  const taken = progress || calls.length === 0 ? itemCalls(input, calls, whole, weights) : 0;
  const items = all.slice(Math.min(taken, all.length));
  const next: QuestionItem | undefined = chained.length > 0 ? undefined : items[0];
  return { calls, all, whole, progress, chained, items, next };
}

/**
 * After a result: a chain's skills get the offset to call and the others the malus; with nothing left (no item, no
 * chain) every call gets the malus and the answer the offset; while items are left the answer gets the malus. Returns
 * whether the run should answer now.
 */
function applyProgress(
  offsets: Offsets,
  at: { chained: readonly string[]; itemsLeft: number; chain: boolean; bestOffset: number },
  weights: DecisionWeights,
): boolean {
  if (at.chained.length === 0 && at.itemsLeft > 0) {
    offsets.answer = Math.max(at.bestOffset, offsets.calls ?? -Infinity) - weights.progress;
    return false;
  }
  const skills = { ...offsets.skills };
  for (const name of Object.keys(skills)) {
    if (at.chained.includes(name)) skills[name] = Math.max(skills[name], 0) + weights.progress;
    else skills[name] -= weights.progress;
  }
  offsets.skills = skills;
  if (offsets.calls !== undefined) offsets.calls -= weights.progress;
  const top = Math.max(...Object.values(skills), offsets.calls ?? -Infinity);
  offsets.answer = at.chain ? top - weights.progress / 2 : top + weights.progress;
  return !at.chain;
}

/** The values the run's calls wrote (numbers and strings, as text). */
function takenValues(calls: readonly EarlierCall[]): string[] {
  return calls.flatMap((call) =>
    Object.values(call.arguments)
      .filter((value) => typeof value === "number" || typeof value === "string")
      .map(String),
  );
}

/**
 * How many of the run's calls took an item of the question: those that were not a chain's (a skill the result before
 * them let run; see chainSkills), so that a multi-hop item ("the population of the capital of the country where ...")
 * is one item however many calls its hops take.
 */
function itemCalls(
  input: DecisionInput,
  calls: readonly EarlierCall[],
  whole: ReadonlyMap<string, number>,
  weights: DecisionWeights,
): number {
  let taken = 0;
  for (let i = 0; i < calls.length; i++)
    if (i === 0 || !chainSkills(input, calls.slice(0, i), whole, weights).includes(calls[i].skill)) taken++;
  return taken;
}

/**
 * The skills the newest result lets run (a chain): not called yet in this run, fitting the question (score at the
 * threshold or above), with a required argument the question only describes or gives no value for, of a kind the
 * newest result holds ("the capital of the country where Mount Fuji is": `landmark_country` gave "Japan", which
 * `country_capital`'s `country` takes).
 */
function chainSkills(
  input: DecisionInput,
  calls: readonly EarlierCall[],
  whole: ReadonlyMap<string, number>,
  weights: DecisionWeights,
): string[] {
  const newest = calls.at(-1);
  if (!newest || newest.result === undefined) return [];
  const made = new Set(calls.map((call) => call.skill));
  const fromResult = resultValues(newest.result, calls);
  if (fromResult.numerals.length === 0 && fromResult.names.length === 0) return [];
  const question = questionValues(input.question);
  const combines = AGGREGATE.test(input.question) && resultNumerals(calls) >= 2;
  const chained: string[] = [];
  for (const skill of input.skills) {
    const again = made.has(skill.name);
    if (again && !hopsLeft(input.question, skill, calls)) continue;
    const derived = derivedKeys(input.question, skill, input.skills);
    const asked = skillFit(skill, question, derived);
    const given = skillFit(skill, fromResult, []);
    // its result of its result: the newest result is the next hop's value
    if (again) {
      if (given.grounded > 0) chained.push(skill.name);
      continue;
    }
    const waiting = asked.grounded < asked.required && given.grounded > 0;
    // a question that asks to combine numbers the results hold ("the combined population of Berlin and Cairo"): the
    // skill that computes (an expression argument) takes them, whatever words it shares with the question
    // its fit with the result's values in the question's place: the words it shares with the question, the
    // arguments the result gives
    const joined = questionValues(`${input.question}\n${freshLeaves(newest.result, calls).join("; ")}`);
    const withResult = fitScore(
      skillFit(
        skill,
        joined,
        derived.filter(() => given.grounded === 0),
      ),
      undefined,
      weights,
    );
    if (combines && waiting && takesExpression(skill)) chained.push(skill.name);
    else if (waiting && Math.max(whole.get(skill.name) ?? 0, withResult) >= weights.threshold) chained.push(skill.name);
  }
  return chained;
}

/**
 * What a chain's next call reads first (see StepDecision.chainSource): the newest result's values no call wrote; for an
 * item that takes up the result ("divide it by 1000", "convert that to feet"), the item with the result in place of
 * the word that takes it up ("divide 466566 by 1000"); where the question combines the results' numbers ("the combined
 * population of Berlin and Cairo"), the combination as the calculator writes it ("3755251 + 10025657").
 */
function chainText(
  question: string,
  calls: readonly EarlierCall[],
  next: QuestionItem | undefined,
): string | undefined {
  const newest = calls.at(-1)?.result;
  if (newest === undefined) return undefined;
  const fresh = freshLeaves(newest, calls);
  const numeral = fresh.find((leaf) => /^-?\d+(?:\.\d+)?$/.test(leaf));
  if (next?.chain) {
    const value =
      numeral !== undefined
        ? [numeral, ...fresh.filter((leaf) => leaf !== numeral && /^\p{L}{1,12}$/u.test(leaf))].join(" ")
        : fresh[0];
    return value === undefined ? undefined : imperativeArithmetic(next.text.replace(BACK_REFERENCE, value));
  }
  const numerals = calls.flatMap((call) => {
    const own = call.result === undefined ? [] : freshLeaves(call.result, calls);
    return own.filter((leaf) => /^-?\d+(?:\.\d+)?$/.test(leaf)).slice(0, 1);
  });
  const combined = numerals.length >= 2 ? combination(question, numerals) : undefined;
  return combined ?? fresh.join("; ");
}

/** Words that take up the result before them (see question-items.ts): replaced by its value in a chain's text. */
const BACK_REFERENCE = /\b(?:the results?|that|it|this)\b/i;

/** The results' numbers combined as the question asks, as the calculator writes it; undefined where it asks for none. */
function combination(question: string, numerals: readonly string[]): string | undefined {
  if (/\b(?:average|mean)\b/i.test(question)) return `mean(${numerals.join(", ")})`;
  if (/\b(?:difference|how many more|how much more|more than|less than|fewer than)\b/i.test(question))
    return numerals.join(" - ");
  if (/\b(?:ratio|divide[ds]?|divided by)\b/i.test(question)) return numerals.join(" / ");
  if (/\b(?:combined|total|sum|altogether|in all)\b/i.test(question)) return numerals.join(" + ");
  return undefined;
}

/**
 * Whether a skill the run called already has hops left in a question that asks for its result of its result ("the
 * manager of the manager of Alice's manager": three calls of `employee_manager`): a word of its name linked to itself
 * by "of" ("manager of the manager", "manager of Alice's manager"), one hop per link and one more, and fewer calls so
 * far. A word written twice without the link is no chain ("the forest growth ... the Boreal Forests of Canada").
 */
function hopsLeft(question: string, skill: SkillProfile, calls: readonly EarlierCall[]): boolean {
  const made = calls.filter((call) => call.skill === skill.name).length;
  const words = new Set(nameStems(skill.name));
  const tokens = (question.match(/\p{L}[\p{L}\p{N}']*/gu) ?? []).map((token) => token.toLowerCase());
  let links = 0;
  for (const word of words) {
    let own = 0;
    for (let i = 0; i + 2 < tokens.length; i++) {
      if (stem(tokens[i]) !== word || tokens[i + 1] !== "of") continue;
      let j = i + 2;
      if (tokens[j] === "the") j++;
      if ((tokens[j] ?? "").endsWith("'s")) j++;
      if (j < tokens.length && stem(tokens[j]) === word) own++;
    }
    links = Math.max(links, own);
  }
  return links > 0 && made < links + 1;
}

/** Words that ask to combine numbers: a total, a difference, a ratio, an average. */
const AGGREGATE =
  /\b(?:combined|total|sum|altogether|in all|difference|how many more|how much more|more than|less than|fewer than|average|mean|ratio|divide[ds]?|divided by|times as)\b/i;

/** Numerals the run's results hold, all together. */
function resultNumerals(calls: readonly EarlierCall[]): number {
  return calls.reduce(
    (n, call) => n + (call.result === undefined ? 0 : resultValues(call.result, []).numerals.length),
    0,
  );
}

/** Whether a skill takes an arithmetic expression (a string argument named `expression`, `expr` or `formula`). */
function takesExpression(skill: SkillProfile): boolean {
  const properties = (skill.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  return Object.entries(properties).some(
    ([key, schema]) => schema?.type === "string" && /(?:^|_)(?:expression|expr|formula)$/i.test(key),
  );
}
