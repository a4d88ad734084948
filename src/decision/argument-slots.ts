/**
 * How a skill's arguments take the values of a question's lists (see questionItems): its number and text slots, its
 * arrays and enums.
 */
import type { SkillProfile } from "./skill-fit.js";
import { contentStems, nameStems, stem } from "./words.js";

/** A string key that takes an arithmetic expression (the calculator's `expression`): a list of numerals is its, whole. */
const FORMULA_KEY = /(?:^|_)(?:expression|expr|formula)$/i;

/** Keys that come in pairs for one call: numbered (`city_1`, `team2`) or the two ends of a span or a route. */
const PAIRED_KEY =
  /(?:^|_)(?:\w*?\d|start|end|from|to|origin|destination|source|target|departure|arrival|home|away|first|second)(?:_|$)/i;

/**
 * How the arguments of a skill take a list's items: how many number arguments there are, how many text arguments
 * come in pairs (see PAIRED_KEY: "between New York and Washington DC" is one call's two places), and whether an array
 * argument takes a whole list of numbers or of texts.
 */
export interface Slots {
  number: number;
  /** String arguments that may take a name (no enum, no expression). */
  text: number;
  /** Array arguments (a tuple "(40.7, -74.0)" is one's value where the skill has them). */
  arrays: number;
  pairedText: number;
  numberArray: boolean;
  textArray: boolean;
  /** Each array argument's item enum, lower case (see groupSize). */
  arrayEnums: string[][];
  /**
   * Each enum argument's values (see enumLists); `tight` where a description quotes them (no `enum`): its values make
   * a list only joined by a comma or "and" alone ("all roots, real or complex" is no list of 'real' and 'all').
   */
  enums: { values: string[]; tight?: true }[];
  /** Each number argument's words (its name's and its description's stems): the units it is measured in. */
  numberWords: ReadonlySet<string>[];
  /** Each key's name stems, the keys of nested objects too (`update_info.name`: ["name"]). */
  keys: string[][];
  /** The thing of each key numbered by a digit (`side1`, `side2`: "side", "side"). */
  numbered: string[];
}

/** The keys of a schema's properties and of its nested objects' properties. */
function allKeys(properties: Record<string, unknown>): string[] {
  return Object.entries(properties).flatMap(([key, schema]) => {
    const nested = (schema as { properties?: unknown } | undefined)?.properties;
    return [key, ...(nested && typeof nested === "object" ? allKeys(nested as Record<string, unknown>) : [])];
  });
}

export function argumentSlots(skill: SkillProfile | undefined): Slots {
  const properties = (skill?.parameters.properties ?? {}) as Record<string, { type?: unknown; items?: unknown }>;
  const slots: Slots = {
    number: 0,
    text: 0,
    arrays: 0,
    pairedText: 0,
    numberArray: false,
    textArray: false,
    arrayEnums: [],
    enums: [],
    numberWords: [],
    keys: allKeys(properties).map((key) => nameStems(key)),
    numbered: Object.keys(properties)
      .filter((key) => /\d$/.test(key) && nameStems(key).length === 1)
      .map((key) => nameStems(key)[0]),
  };
  for (const [key, schema] of Object.entries(properties)) {
    const types = [schema?.type].flat();
    const values = (schema as { enum?: unknown }).enum;
    if (Array.isArray(values) && values.length > 1) slots.enums.push({ values: values.map(String) });
    else if (types.includes("string")) {
      // the values a description quotes ("Allowed values: 'copper', 'aluminum'"): an enum the schema does not spell
      const description = (schema as { description?: unknown }).description;
      const quoted = new Set(
        [...String(typeof description === "string" ? description : "").matchAll(/'([^'\n]{1,30})'/g)].map((m) => m[1]),
      );
      if (quoted.size > 1) slots.enums.push({ values: [...quoted], tight: true });
    }
    if (types.includes("array")) {
      slots.arrays++;
      const item = schema.items as { type?: unknown; enum?: unknown } | undefined;
      const items = [item?.type].flat();
      if (items.includes("number") || items.includes("integer")) slots.numberArray = true;
      // an array of enum values takes a list of its values whole ("a Patio and Wi-Fi"), no other list of names
      // ("near Berlin and Paris" beside `amenities`: Parking, ...)
      else if (Array.isArray(item?.enum)) slots.arrayEnums.push(item.enum.map((value) => String(value).toLowerCase()));
      else slots.textArray = true;
    } else if (types.includes("number") || types.includes("integer")) {
      slots.number++;
      const description = (schema as { description?: unknown }).description;
      slots.numberWords.push(
        new Set([...nameStems(key), ...contentStems(typeof description === "string" ? description : "")]),
      );
    } else if (types.includes("string") && FORMULA_KEY.test(key)) slots.numberArray = true;
    else if (types.includes("string") && PAIRED_KEY.test(key)) slots.pairedText++;
    if (types.includes("string") && !FORMULA_KEY.test(key) && !Array.isArray((schema as { enum?: unknown }).enum))
      slots.text++;
  }
  return slots;
}

/** Words joined as a list: "name and email", "width, height and depth". */
const KEY_LIST = /\p{L}+(?:\s*,\s*\p{L}+)*\s*,?\s+and\s+\p{L}+/giu;

/**
 * How many keys of the skill the last list of words in `before` names, each word a different key's ("update the name
 * and email of a customer ... to": 2); 0 where a word of that list names no key.
 */
export function namedKeys(before: string, slots: Slots): number {
  const list = [...before.matchAll(KEY_LIST)].at(-1)?.[0];
  if (list === undefined) return 0;
  const words = list.split(/\s*,\s*(?:and\s+)?|\s+and\s+/i).map((word) => stem(word.trim()));
  const keys = words.map((word) => slots.keys.findIndex((key) => key.length === 1 && key[0] === word));
  return keys.every((key) => key >= 0) && new Set(keys).size === keys.length ? keys.length : 0;
}

/**
 * How many numbered keys of one thing ("side1", "side2", "side3": 3) the skill has whose thing `before` names ("the
 * lengths of the sides are"); 0 where it names none.
 */
export function numberedKeys(before: string, slots: Slots): number {
  const words = new Set(contentStems(before));
  const counts = new Map<string, number>();
  for (const key of slots.numbered) if (words.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}
