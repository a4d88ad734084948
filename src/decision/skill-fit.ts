import type { JsonSchema } from "../json-schema.js";
import { numeralsOf } from "../numerals.js";
import { contentStems, escapeRegex, nameStems } from "./words.js";
import { DECISION_WEIGHTS, type DecisionWeights } from "./defaults.js";
import { valueKind, valuesWrittenOf, type ValueKind } from "./value-kinds.js";

/** What the decision reads of a skill: its name, its description and its arguments' JSON Schema. */
export interface SkillProfile {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/**
 * How well one skill fits a question, as counts (see skillFit): the words they share, where the skill holds them, and
 * how many of the skill's required arguments the question (or a result) gives a value for.
 */
export interface SkillFit {
  skill: string;
  /** Distinct content stems of the question that the skill's name holds. */
  nameWords: number;
  /** Those the description holds and the name does not. */
  descriptionWords: number;
  /** Those the arguments' names, descriptions and enum values hold, and neither the name nor the description. */
  parameterWords: number;
  /** Of the name's own content stems, the share the question holds (0 for a name without one). */
  nameCoverage: number;
  /** Of the question's content stems, the share the skill's texts hold (name, description, arguments). */
  questionCoverage: number;
  /** Required arguments, booleans left out (a default serves them). */
  required: number;
  /** Of those, how many the question or the results give a value for (see groundable). */
  grounded: number;
  /**
   * Arguments (required or not) whose value the question writes in the argument's own kind (see ValueKind: an
   * arithmetic expression, a unit, a date, a time zone) or as one of its enum values, at most 2.
   */
  exact: number;
}

/** A string key that takes an arithmetic expression (the calculator's `expression`). */
const FORMULA_KEY = /(?:^|_)(?:expression|expr|formula)$/i;

type Property = { type?: unknown; enum?: unknown; items?: unknown; description?: unknown };

/** What a question offers as argument values: its numerals, its names and quoted texts, its content stems. */
export interface QuestionValues {
  numerals: readonly string[];
  /** Capitalized words not at a sentence's start, and quoted texts. */
  names: readonly string[];
  stems: ReadonlySet<string>;
  /** Its words in order, lower case (initials are read from them: "highest common factor" for `hcf`). */
  words: readonly string[];
  /** The text, lower case (an enum value is looked up in it). */
  lower: string;
  /** The text as written (a value's kind is read in it: see ValueKind). */
  text: string;
}

const CAPITALIZED = /(?<![.!?]\s|^)(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}'-]*/gu;
const QUOTED = /(['"\u2018\u201C])([^'"\u2019\u201D]{1,80})['"\u2019\u201D]/gu;

/** Read the values a text offers (see QuestionValues). */
export function questionValues(text: string): QuestionValues {
  const names = [...text.matchAll(CAPITALIZED)].map((m) => m[0]);
  for (const match of text.matchAll(QUOTED)) names.push(match[2]);
  const lower = text.toLowerCase();
  const words = lower.match(/\p{L}+/gu) ?? [];
  return { numerals: numeralsOf(text), names, stems: new Set(contentStems(text)), words, lower, text };
}

function typesOf(schema: Property): string[] {
  return [schema.type].flat().filter((t): t is string => typeof t === "string");
}

/**
 * Whether the question gives a value for an argument of this schema: a number for a number (or a list of them), one of
 * the enum's values for an enum, and for a string a name, a quoted text or a content word that the skill's own texts
 * do not hold (the words a question shares with a skill name what it does, not a value for it).
 */
function groundable(key: string, schema: Property, values: QuestionValues, skillStems: ReadonlySet<string>): boolean {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return enumWritten(schema.enum, values);
  const types = typesOf(schema);
  if (types.includes("integer") || types.includes("number")) return values.numerals.length > 0;
  if (types.includes("array")) return groundable(key, schema.items ?? {}, values, skillStems);
  // an arithmetic expression is written from numbers: a question without one gives it none
  if (FORMULA_KEY.test(key)) return values.numerals.length > 0;
  if (values.names.length > 0 || values.numerals.length > 0) return true;
  for (const stem of values.stems) if (!skillStems.has(stem)) return true;
  return false;
}

/** Whether the question writes one of an enum's values, as a whole word. */
function enumWritten(items: readonly unknown[], values: QuestionValues): boolean {
  return items.some((item) => {
    const text = String(item).toLowerCase();
    return (
      text.length > 0 && new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegex(text)}(?![\\p{L}\\p{N}])`, "u").test(values.lower)
    );
  });
}

/**
 * Whether a required argument that is no choice among values (no enum) is not given: a number, a name, a text the
 * question does not hold, or one it only describes, which another call's result must bring.
 */
function waitsForResult(
  skill: SkillProfile,
  values: QuestionValues,
  described: readonly string[],
  skillStems: ReadonlySet<string>,
): boolean {
  const properties = (skill.parameters.properties ?? {}) as Record<string, Property>;
  const required = Array.isArray(skill.parameters.required) ? (skill.parameters.required as string[]) : [];
  return required.some((key) => {
    const schema = properties[key];
    if (!schema || typesOf(schema).includes("boolean") || Array.isArray(schema.enum)) return false;
    return described.includes(key) || !groundable(key, schema, values, skillStems);
  });
}

/** Letters two words share from their start before they part: "pythagor" of `pythagoras` and "Pythagorean". */
const SHARED_ROOT = 8;

/**
 * Whether a name word of 3 letters or more begins the question's stem, or the stem begins it (`hypot` and
 * "hypotenuse", `temp` and "temperature", `calc` aside: both are stop words), or both begin with the same
 * SHARED_ROOT letters (`pythagoras` and "Pythagorean", whose stems part after them).
 */
function abbreviates(name: ReadonlySet<string>, stem: string): boolean {
  for (const word of name) {
    if (word.length < 3 || stem.length < 3 || word === stem) continue;
    if (stem.startsWith(word) || (word.startsWith(stem) && stem.length >= 4)) return true;
    if (word.length >= SHARED_ROOT && stem.slice(0, SHARED_ROOT) === word.slice(0, SHARED_ROOT)) return true;
  }
  return false;
}

/** Whether a name word (`hcf`, `bmi`, `npv`) is the initials of consecutive words of the question. */
function initialsOf(word: string, words: readonly string[]): boolean {
  if (word.length < 3 || word.length > 5 || !/^[a-z]+$/.test(word)) return false;
  for (let i = 0; i + word.length <= words.length; i++)
    if (words.slice(i, i + word.length).every((w, k) => w[0] === word[k])) return true;
  return false;
}

/** Whether a question holds a skill's name word (`stem`): as a word of its own, abbreviated, or by its initials. */
export function holdsNameWord(values: QuestionValues, stem: string): boolean {
  return (
    values.stems.has(stem) ||
    [...values.stems].some((q) => abbreviates(new Set([stem]), q)) ||
    initialsOf(stem, values.words)
  );
}

/** The content stems of a skill's argument names, descriptions and enum values. */
function parameterStems(properties: Record<string, Property>): Set<string> {
  const stems = new Set<string>();
  for (const [key, schema] of Object.entries(properties)) {
    for (const s of nameStems(key)) stems.add(s);
    if (typeof schema?.description === "string") for (const s of contentStems(schema.description)) stems.add(s);
    if (Array.isArray(schema?.enum))
      for (const item of schema.enum) for (const s of contentStems(String(item))) stems.add(s);
  }
  return stems;
}

/**
 * How well `skill` fits a question whose values are `values` (see SkillFit); the keys of `described` (required
 * arguments the question describes rather than gives: see derivedKeys) count as not given.
 */
export function skillFit(skill: SkillProfile, values: QuestionValues, described: readonly string[] = []): SkillFit {
  const name = new Set(nameStems(skill.name));
  const description = new Set(contentStems(skill.description));
  const properties = (skill.parameters.properties ?? {}) as Record<string, Property>;
  const parameters = parameterStems(properties);
  let nameWords = 0;
  let descriptionWords = 0;
  let parameterWords = 0;
  for (const stem of values.stems) {
    if (name.has(stem) || abbreviates(name, stem)) nameWords++;
    else if (description.has(stem)) descriptionWords++;
    else if (parameters.has(stem)) parameterWords++;
  }
  for (const word of name) if (!values.stems.has(word) && initialsOf(word, values.words)) nameWords++;
  const skillStems = new Set([...name, ...description, ...parameters]);
  const requiredKeys = Array.isArray(skill.parameters.required) ? (skill.parameters.required as string[]) : [];
  let required = 0;
  let grounded = 0;
  for (const key of requiredKeys) {
    const schema = properties[key];
    if (!schema || typesOf(schema).includes("boolean")) continue;
    required++;
    if (!described.includes(key) && groundable(key, schema, values, skillStems)) grounded++;
  }
  let exact = 0;
  // a value written in its own kind speaks for a call that can be made now: not while a required argument waits
  // for another call's result (a conversion's number for "the temperature in Lisbon, in Fahrenheit"); each value for
  // one argument of its kind ("a 10 dollar deposit" is one currency, not a conversion's two sides)
  const left = new Map<ValueKind, number>();
  if (!waitsForResult(skill, values, described, skillStems))
    for (const [key, schema] of Object.entries(properties)) {
      const kind = valueKind(key, schema);
      if (kind !== undefined && !left.has(kind)) left.set(kind, valuesWrittenOf(kind, values.text));
      if (kind !== undefined && left.get(kind)! > 0) {
        left.set(kind, left.get(kind)! - 1);
        exact++;
      } else if (Array.isArray(schema?.enum) && enumWritten(schema.enum, values)) exact++;
    }
  let covered = 0;
  for (const stem of name) if (holdsNameWord(values, stem)) covered++;
  let held = 0;
  for (const stem of values.stems) if (skillStems.has(stem) || abbreviates(name, stem)) held++;
  return {
    skill: skill.name,
    nameWords,
    descriptionWords,
    parameterWords,
    nameCoverage: name.size === 0 ? 0 : covered / name.size,
    questionCoverage: values.stems.size === 0 ? 0 : held / values.stems.size,
    exact: Math.min(exact, 2),
    required,
    grounded,
  };
}

/** The parts of a skill's fit that a score counts (see DecisionLever): the words it shares, the values it gets. */
export interface FitParts {
  words: boolean;
  fit: boolean;
}

/** A skill's fit as one number (see DecisionWeights): the parts `parts` leaves in. */
export function fitScore(
  fit: SkillFit,
  parts: FitParts = { words: true, fit: true },
  weights: DecisionWeights = DECISION_WEIGHTS,
): number {
  let score = 0;
  if (parts.words)
    score +=
      weights.nameWords * fit.nameWords +
      weights.descriptionWords * fit.descriptionWords +
      weights.parameterWords * fit.parameterWords +
      weights.nameCoverage * fit.nameCoverage;
  if (parts.fit)
    score += weights.grounded * (fit.required === 0 ? 1 : fit.grounded / fit.required) + weights.exact * fit.exact;
  return score;
}

/** The skill whose words fit `text` best (see fitScore's words part), with its score; the first one on a tie. */
export function bestFitScored(
  text: string,
  skills: readonly SkillProfile[],
): { skill: SkillProfile; score: number } | undefined {
  const values = questionValues(text);
  let best: { skill: SkillProfile; score: number } | undefined;
  for (const skill of skills) {
    const score = fitScore(skillFit(skill, values), { words: true, fit: false });
    if (!best || score > best.score) best = { skill, score };
  }
  return best;
}

/** The skill that fits `text` best (see fitScore), the first one on a tie. */
export function bestFit(text: string, skills: readonly SkillProfile[]): SkillProfile | undefined {
  const values = questionValues(text);
  let best: { skill: SkillProfile; score: number } | undefined;
  for (const skill of skills) {
    const score = fitScore(skillFit(skill, values));
    if (!best || score > best.score) best = { skill, score };
  }
  return best?.skill;
}
