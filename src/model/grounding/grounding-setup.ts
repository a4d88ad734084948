import { dateFormatOf } from "./date-formats.js";
import { isCurrencyKey } from "./currencies.js";
import { keyNoun } from "./grounding-words.js";
import { coefficientPower } from "./polynomials.js";
import { otherUnitSpellings } from "../../skills/builtin/unit-table.js";
import type { Token } from "./token.js";
import {
  GROUNDING_LEVERS,
  isGroundingLeverList,
  type DecisionOptions,
  type GroundingOptions,
  type JsonSchema,
} from "../model-handle.js";
import { actionOptions, DecisionSteer } from "./decision-steer.js";
import { GroundingSteer, type GroundingVocabulary, type Steering } from "./grounding-steer.js";
import { JsonValueTracker } from "./json-value-tracker.js";
import type { SteerSource } from "./steer-source.js";
import { numeralsOf } from "../../numerals.js";
import { replySteer, type ReplySteer } from "./reply-steer.js";
import { GROUNDING_RULES, isGroundingRuleList } from "./rules.js";
import type { TokenClasses } from "./token-classes.js";

const schemaValueCache = new WeakMap<object, string[]>();
/** A literal quoted in a description ("Default is 'cm'", "Choices are 'trapezoid' or 'simpson'"); not an apostrophe. */
const QUOTED_LITERAL = /(?<=^|[\s(,:])(?:'([^'\n]{1,40})'|"([^"\n]{1,40})")(?=$|[\s).,;:])/g;
/** Where a description starts giving examples ("e.g.", "for example", "such as", "like"): up to the clause's end. */
const EXAMPLES = /\b(?:e\.g\.|eg\.|for example|for instance|such as|like\b)(?<examples>[^.;)]*(?:\.(?!\s)[^.;)]*)*)/gi;
/**
 * The literals a description quotes, less its examples: a small model copies an example in place of the question's
 * value (both test models wrote the calculator's `15/100*80` for "the square root of 1764", and `"from":"mi",
 * "to":"km"` from `e.g. "km", "lb"` for "How many kilograms is 150 pounds?"). Left out, an example stays in the avoid
 * texts (the instructions): unfavoured where the question does not begin it.
 */
export function quotedLiterals(description: string): string[] {
  const examples = [...description.matchAll(EXAMPLES)].map((m) => [m.index, m.index + m[0].length]);
  const literals: string[] = [];
  for (const match of description.matchAll(QUOTED_LITERAL))
    if (!examples.some(([start, end]) => match.index >= start && match.index < end))
      literals.push(match[1] ?? match[2]);
  return literals;
}

/**
 * Collect `enum` items and `default` values (strings and numbers) of `node` and below; the skill names (the enum of
 * `skill_name`) left out. `key`: the property `node` is the schema of; `properties`: whether `node` maps names to schemas.
 */
function collectValues(node: unknown, into: Set<string>, where: { key?: string; properties?: boolean }, depth: number) {
  if (depth > 32 || node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) collectValues(item, into, {}, depth + 1);
    return;
  }
  const record = node as Record<string, unknown>;
  const plain = (value: unknown) => (typeof value === "string" || typeof value === "number") && into.add(String(value));
  if (!where.properties && where.key !== "skill_name") {
    if (Array.isArray(record.enum)) record.enum.forEach(plain);
    if (Object.hasOwn(record, "default")) plain(record.default);
  }
  for (const [name, value] of Object.entries(record)) {
    if (!where.properties && name === "description" && typeof value === "string")
      for (const literal of quotedLiterals(value)) into.add(literal);
    if (!where.properties && (name === "enum" || name === "default" || name === "const")) continue;
    const child = where.properties ? { key: name } : { properties: name === "properties" };
    collectValues(value, into, child, depth + 1);
  }
}

/**
 * The values a schema names (`enum` items, `default`s, literals quoted in a description; not the skill names): spans
 * a grounded value may copy too.
 */
export function schemaValues(schema: JsonSchema | undefined): string[] {
  if (!schema || typeof schema !== "object") return [];
  let values = schemaValueCache.get(schema);
  if (!values) {
    const found = new Set<string>();
    collectValues(schema, found, {}, 0);
    schemaValueCache.set(schema, (values = [...found].filter((v) => v.trim() !== "")));
  }
  return values;
}

/** Entries the grounding memo of a handle keeps (a few runs' avoid texts at once: an evaluation's parallel runs). */
const MEMO_ENTRIES = 16;

/** A skill's argument keys: all those its `arguments` schema names, and those of them it does not require. */
export interface SkillArgumentKeys {
  all: string[];
  optional: string[];
  /** Those whose schema type is `integer` (a numeral with a fraction is no value of theirs). */
  integer: string[];
  /** Those whose description asks for a percentage as such ("as a percentage"; not "in decimal form"): `5%` is 5. */
  percent: string[];
  /** Those typed `number` or `integer`. */
  numeric: string[];
  /** Those that take an arithmetic expression (see formulaKey). */
  formula: string[];
  /**
   * Each key's values that the question may write (see askingValues): an optional key is asked for when it writes
   * one (`temp_unit` and "Celsius", `amenities` and "tennis court"), and any key's value is anchored there.
   */
  askedBy: Record<string, string[]>;
  /** Those whose description asks for a date in a format it spells (see dateFormatOf), with that format. */
  dateFormats: Record<string, string>;
  /** Those that take a currency (see isCurrencyKey): its code. */
  currency: string[];
  /** Number keys whose description names the unit they are in ("Maximum distance (in miles)"), with that word. */
  units: Record<string, string>;
  /** String keys that take a kind of a noun (see kindNoun: `room_type`, "The type of crime"), with the noun. */
  kinds: Record<string, string>;
  /** Number keys whose description says they are a polynomial's coefficient (see coefficientPower), with its power. */
  powers: Record<string, number>;
}

/**
 * The unit a number's description names: in parentheses ("Maximum distance (in miles) within which ...") or at a
 * clause's end ("Weight of the person in kilograms."; a unit is anchored only where the question writes a numeral
 * before that word, so "in total." anchors nothing).
 */
function unitOfDescription(description: unknown): string | undefined {
  if (typeof description !== "string") return undefined;
  const unit = /\(\s*in\s+(\p{L}{2,})\s*\)|\bin\s+(\p{L}{3,})\s*(?:[.,;]|$)/iu.exec(description);
  return (unit?.[1] ?? unit?.[2])?.toLowerCase();
}

/** The clause of a description that gives its default ("Default is 'Fahrenheit'.", "default: ['Personal Info']"). */
const DEFAULT_CLAUSE = /\bdefaults?\b[^.;]*(?:\.(?!\s|$)[^.;]*)*/gi;
/** Any quoted text, a list's item too ("Default is ['Personal Info']"). */
const ANY_QUOTED = /'([^'\n]{1,40})'|"([^"\n]{1,40})"/g;
/** An unquoted example list of a description: "e.g. vegan, gluten-free", "such as rock or jazz". */
const EXAMPLE_WORDS = /^[\s,:]*([^'"]*)$/;
/** The shortest value that asks for a key by itself (not "a", "5"). */
const MIN_ASKING_CHARS = 3;

/**
 * The values that ask for an optional key where the question writes them: its `enum` items (its items' too), the
 * literals its description quotes and the words it gives as examples, less its default (the schema's `default` and
 * those the description's default clause names). A small model closes the arguments after the required ones: "the
 * next 3 days in Celsius" left `temp_unit` out, "a park with a tennis court" `amenities`.
 */
export function askingValues(schema: unknown, key?: string): string[] {
  if (!schema || typeof schema !== "object") return [];
  const node = schema as { enum?: unknown; items?: unknown; description?: unknown; default?: unknown };
  const values = new Set<string>();
  const add = (value: unknown) => typeof value === "string" && values.add(value.trim());
  for (const level of [node, node.items as typeof node | undefined])
    if (level && Array.isArray(level.enum)) level.enum.forEach(add);
  const defaults = new Set<string>();
  for (const value of [node.default].flat()) if (typeof value === "string") defaults.add(value.toLowerCase());
  if (typeof node.description === "string") {
    const description = node.description;
    for (const clause of description.match(DEFAULT_CLAUSE) ?? [])
      for (const match of clause.matchAll(ANY_QUOTED)) defaults.add((match[1] ?? match[2]).toLowerCase());
    const rest = description.replace(DEFAULT_CLAUSE, "");
    for (const match of rest.matchAll(QUOTED_LITERAL)) add(match[1] ?? match[2]);
    for (const match of rest.matchAll(EXAMPLES)) {
      const words = EXAMPLE_WORDS.exec(match.groups?.examples ?? "")?.[1];
      for (const word of words?.split(/,|\bor\b|\band\b|\betc\b/) ?? []) add(word);
    }
  }
  // a unit argument with a default unit: the other units of its kind ("meters" for "Defaults to cm.")
  if (key !== undefined && UNIT_KEY.test(key) && typeof node.description === "string") {
    const unit = UNIT_DEFAULT.exec(node.description);
    for (const spelling of unit ? otherUnitSpellings(unit[1] ?? unit[2]) : []) add(spelling);
  }
  return [...values].filter((value) => value.length >= MIN_ASKING_CHARS && !defaults.has(value.toLowerCase()));
}

/** A key that takes a unit of measure (`unit`, `units`, `distance_unit`). */
const UNIT_KEY = /(?:^|_)units?$/i;
/** A description's default unit: "Defaults to cm.", "Default is 'cm'." */
const UNIT_DEFAULT = /\bdefaults?\s+(?:is\s+|to\s+|:\s*)?(?:'([^']{1,20})'|"?(\p{L}{1,12})"?)/iu;

/** A key's name that says it takes an arithmetic expression (`expression`, `math_expression`, `formula`). */
const FORMULA_KEY = /(?:^|_)(?:expression|expr|formula)$/i;

/**
 * Whether `key` takes an arithmetic expression: a string named so (FORMULA_KEY), or one whose description says
 * "arithmetic". BFCL's keys named `function` or `equation` (a derivative's "3x^2 + 2x - 1") are not: the calculator's
 * words are no reading of theirs.
 */
export function formulaKey(key: string, schema: unknown): boolean {
  const node = (schema ?? {}) as { type?: unknown; description?: unknown };
  if (node.type !== "string") return false;
  return FORMULA_KEY.test(key) || (typeof node.description === "string" && /\barithmetic\b/i.test(node.description));
}

/** What grounding reads of one skill's `arguments` schema (its value branches; see valueBranch). */
function argumentFigures(args: { properties: Record<string, unknown>; required?: unknown }): SkillArgumentKeys {
  const described = (key: string) => (args.properties[key] as { description?: unknown } | undefined)?.description;
  const typed = (key: string) => (args.properties[key] as { type?: unknown } | undefined)?.type;
  const required = new Set(Array.isArray(args.required) ? args.required : []);
  const all = Object.keys(args.properties);
  const integer = all.filter((key) => {
    const type = typed(key);
    return type === "integer" || (Array.isArray(type) && type.includes("integer") && !type.includes("number"));
  });
  const percent = all.filter((key) => {
    const description = described(key);
    return typeof description === "string" && /percent/i.test(description) && !/decimal/i.test(description);
  });
  const numeric = all.filter((key) => {
    const type = typed(key);
    return [type].flat().some((t) => t === "integer" || t === "number");
  });
  const formula = all.filter((key) => formulaKey(key, args.properties[key]));
  const optional = all.filter((key) => !required.has(key));
  const askedBy = Object.fromEntries(all.map((key) => [key, askingValues(args.properties[key], key)]));
  const dateFormats = Object.fromEntries(
    all.flatMap((key) => {
      const format = dateFormatOf(described(key));
      return format === undefined ? [] : [[key, format]];
    }),
  );
  const currency = all.filter((key) => isCurrencyKey(key, described(key)));
  const units = Object.fromEntries(
    numeric.flatMap((key) => {
      const unit = unitOfDescription(described(key));
      return unit === undefined ? [] : [[key, unit]];
    }),
  );
  const kinds = Object.fromEntries(
    all.flatMap((key) => {
      const noun = typed(key) === "string" ? keyNoun(key, described(key)) : undefined;
      return noun === undefined ? [] : [[key, noun]];
    }),
  );
  const powers = Object.fromEntries(
    numeric.flatMap((key) => {
      const power = coefficientPower(described(key));
      return power === undefined ? [] : [[key, power]];
    }),
  );
  return {
    all,
    optional,
    integer,
    percent,
    numeric,
    formula,
    askedBy,
    dateFormats,
    currency,
    units,
    kinds,
    powers,
  };
}

const argumentKeyCache = new WeakMap<object, Map<string, SkillArgumentKeys>>();

/**
 * Each skill's argument keys (see SkillArgumentKeys), by skill name: the action schema's branches (`skill_name` a
 * `const`, `arguments` an object), wherever they sit (a parallel call's items too).
 */
export function skillArgumentKeys(schema: JsonSchema | undefined): Map<string, SkillArgumentKeys> {
  if (!schema || typeof schema !== "object") return new Map();
  const kept = argumentKeyCache.get(schema);
  if (kept) return kept;
  const keys = new Map<string, SkillArgumentKeys>();
  const walk = (node: unknown, depth: number): void => {
    if (depth > 32 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((item) => walk(item, depth + 1));
    const record = node as Record<string, unknown>;
    const properties = record.properties as Record<string, { const?: unknown } & Record<string, unknown>> | undefined;
    const name = properties?.skill_name?.const;
    const written = properties?.arguments as { properties?: Record<string, unknown>; required?: unknown } | undefined;
    // a `calls` item's argument may be a reference to an earlier call's result: its value's own schema is the other
    // branch (without this, a parallel reply's keys had no type, no description and no values)
    const args = written?.properties && {
      ...written,
      properties: Object.fromEntries(
        Object.entries(written.properties).map(([key, value]) => [key, valueBranch(value)]),
      ),
    };
    // the first branch of a skill (the one-call action's) is as good as any: a later one does not replace it
    if (typeof name === "string" && args?.properties && !keys.has(name)) keys.set(name, argumentFigures(args));
    for (const value of Object.values(record)) walk(value, depth + 1);
  };
  walk(schema, 0);
  argumentKeyCache.set(schema, keys);
  return keys;
}

/** An argument's schema without the reference branch a `calls` item adds (see withReferences in action-json-schema.ts). */
function valueBranch(schemaNode: unknown): unknown {
  const anyOf = (schemaNode as { anyOf?: unknown } | undefined)?.anyOf;
  if (!Array.isArray(anyOf)) return schemaNode;
  const isReference = (branch: unknown) =>
    !!(branch as { properties?: Record<string, unknown> } | undefined)?.properties?.$ref;
  const values = anyOf.filter((branch) => !isReference(branch));
  return values.length === 1 && values.length < anyOf.length ? values[0] : schemaNode;
}

/** Each skill's optional argument keys (those its `arguments` schema names and does not require), by skill name. */
export function optionalArgumentKeys(schema: JsonSchema | undefined): Map<string, string[]> {
  return new Map([...skillArgumentKeys(schema)].map(([name, keys]) => [name, keys.optional]));
}

/** The grounding vocabulary of a model (built once per handle from its token classes). */
export function groundingVocabulary(classes: TokenClasses, banned: ReadonlySet<Token>): GroundingVocabulary {
  const kept = new Map<string, unknown>();
  const memo = <T>(key: string, compute: () => T): T => {
    if (kept.has(key)) {
      const value = kept.get(key) as T;
      kept.delete(key);
      kept.set(key, value); // most recently used last
      return value;
    }
    const value = compute();
    kept.set(key, value);
    if (kept.size > MEMO_ENTRIES) kept.delete(kept.keys().next().value!);
    return value;
  };
  return {
    memo,
    tokensFor: (text) => classes.byText.get(text),
    maxTokenChars: classes.maxTokenChars,
    stringClosers: classes.stringEnds,
    valueClosers: classes.numberEnds,
    banned,
  };
}

/**
 * One constrained call's steering: its decision at the reply's branch points (see DecisionSteer) and its grounding
 * (the steer over its source); undefined when the call has neither (no decision, and no grounding or `off`). The
 * loader turns it into a token bias (llama/steer-bias.ts).
 */
export function replySteerFor(
  vocabulary: GroundingVocabulary,
  grounding: GroundingOptions | undefined,
  schema: JsonSchema | undefined,
  decision?: DecisionOptions,
): ReplySteer | undefined {
  if (!schema) return undefined;
  const values = groundingSteer(vocabulary, grounding, schema);
  const choice = decision ? new DecisionSteer(decision, actionOptions(schema), vocabulary) : undefined;
  if (!values && !choice) return undefined;
  return replySteer(choice, values);
}

/**
 * The arguments of the last whole call of a reply's `calls` list (`text` the reply so far), each number or string as
 * text; undefined where none parses.
 */
function lastCallArguments(text: string): Record<string, string> | undefined {
  const open = text.indexOf('"calls"');
  let depth = 0;
  let start = -1;
  let inString = false;
  let last: string | undefined;
  for (let i = text.indexOf("[", open) + 1; open >= 0 && i > 0 && i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" && depth++ === 0) start = i;
    else if (ch === "}" && --depth === 0) last = text.slice(start, i + 1);
  }
  try {
    const args = (JSON.parse(last ?? "") as { arguments?: unknown }).arguments;
    if (!args || typeof args !== "object") return undefined;
    const values = Object.entries(args).filter(([, v]) => typeof v === "number" || typeof v === "string");
    return Object.fromEntries(values.map(([key, value]) => [key, String(value)]));
  } catch {
    return undefined;
  }
}

/** A text's quoted texts and capitalized words past its start ("Santa Clara", "Facebook"; "I" is none). */
function namesOf(text: string): string[] {
  const names = [...text.matchAll(/'([^'\n]{2,60})'|"([^"\n]{2,60})"/gu)].map((m) => m[1] ?? m[2]);
  for (const match of text.matchAll(/(?<=\S\s+)(?!I\b)\p{Lu}[\p{L}\p{N}'-]+/gu)) names.push(match[0]);
  return names;
}

/**
 * The grounding steer of one constrained call; undefined when the call has none, or `off`. With items (see
 * GroundingOptions.items), one steer per item, each with its item in the first source's place, made when a `calls`
 * list reaches its call.
 */
function groundingSteer(
  vocabulary: GroundingVocabulary,
  grounding: GroundingOptions | undefined,
  schema: JsonSchema,
): { next(text: string): Steering } | undefined {
  const items = (grounding?.items ?? []).filter((item) => typeof item === "string");
  if (!grounding || items.length < 2) return oneGroundingSteer(vocabulary, grounding, schema);
  const steers: (GroundingSteer | undefined)[] = [];
  const tracker = new JsonValueTracker();
  return {
    next(text) {
      tracker.update(text);
      const k = Math.min(tracker.rootArrayItems("calls") ?? 0, items.length - 1);
      const source = [items[k], ...(grounding.source ?? []).slice(1)];
      // the other items' numbers and names are no values of this call's (those this item writes too are kept: see
      // SteerTokens.taken)
      const taken = [
        ...(grounding.taken ?? []),
        ...items.filter((_, i) => i !== k).flatMap((item) => [...numeralsOf(item), ...namesOf(item)]),
      ];
      // (the call before's values, by key: one this item gives another key is no value of this one's)
      const previous = k > 0 && steers[k] === undefined ? lastCallArguments(text) : undefined;
      steers[k] ??= oneGroundingSteer(vocabulary, { ...grounding, source, taken }, schema, previous);
      return steers[k]?.next(text) ?? { type: "none" };
    },
  };
}

/** The grounding steer of one constrained call over its source; undefined when the call has none, or `off`. */
function oneGroundingSteer(
  vocabulary: GroundingVocabulary,
  grounding: GroundingOptions | undefined,
  schema: JsonSchema,
  previous?: Readonly<Record<string, string>>,
): GroundingSteer | undefined {
  if (!grounding || grounding.mode === "off") return undefined;
  if (grounding.mode !== "soft" && grounding.mode !== "strict")
    throw new TypeError(`generate: grounding.mode must be "off", "soft" or "strict" (got ${String(grounding.mode)})`);
  const levers = grounding.levers;
  if (levers !== undefined && !isGroundingLeverList(levers))
    throw new TypeError(
      `generate: grounding.levers must be a list of ${GROUNDING_LEVERS.join(", ")} (got ${JSON.stringify(levers)})`,
    );
  const rulesOff = grounding.rulesOff;
  if (rulesOff !== undefined && !isGroundingRuleList(rulesOff))
    throw new TypeError(
      `generate: grounding.rulesOff must be a list of ${GROUNDING_RULES.map((r) => r.name).join(", ")} (got ${JSON.stringify(rulesOff)})`,
    );
  const source = steerSource({ ...grounding, mode: grounding.mode }, schema);
  return new GroundingSteer({ ...source, ...(previous && { previous }) }, vocabulary);
}

/**
 * What grounding reads for one constrained call (see SteerSource): the call's source texts, the schema's values and
 * each skill's kinds of argument keys. `grounding.mode` is soft or strict (checked by the caller).
 */
export function steerSource(
  grounding: GroundingOptions & { mode: SteerSource["mode"] },
  schema: JsonSchema,
): SteerSource {
  const { levers, rulesOff } = grounding;
  const source = (grounding.source ?? []).filter((text) => typeof text === "string");
  const avoid = (grounding.avoid ?? []).filter((text) => typeof text === "string");
  const skills = [...skillArgumentKeys(schema)];
  const byKind = <K extends keyof SkillArgumentKeys>(kind: K) =>
    new Map(skills.map(([name, keys]) => [name, keys[kind]]));
  return {
    mode: grounding.mode,
    ...(levers && { levers }),
    ...(rulesOff && { rulesOff }),
    ...(typeof grounding.onRule === "function" && { onRule: grounding.onRule }),
    source,
    ...((grounding.items?.length ?? 0) > 1 && { itemized: true }),
    avoid,
    question: typeof grounding.question === "string" ? grounding.question : undefined,
    schemaValues: schemaValues(schema),
    optionalKeys: byKind("optional"),
    argumentKeys: byKind("all"),
    integerKeys: byKind("integer"),
    percentKeys: byKind("percent"),
    numericKeys: byKind("numeric"),
    formulaKeys: byKind("formula"),
    askedBy: byKind("askedBy"),
    dateFormats: byKind("dateFormats"),
    currencyKeys: byKind("currency"),
    keyUnits: byKind("units"),
    kindNouns: byKind("kinds"),
    keyPowers: byKind("powers"),
    taken: (grounding.taken ?? []).filter((value) => typeof value === "string"),
    refused: (grounding.refused ?? []).filter((value) => typeof value === "string" && value !== ""),
    failed: (grounding.failed ?? []).filter(
      (f) => typeof f?.skill === "string" && typeof f.key === "string" && typeof f.value === "string" && f.value !== "",
    ),
  };
}
