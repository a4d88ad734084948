import { arithmeticStretches } from "../skills/builtin/evaluate-expression.js";
import { findUnit } from "../skills/builtin/unit-table.js";
import { imperativeArithmetic } from "./imperative-arithmetic.js";
import { currenciesIn, isCurrencyKey } from "../model/grounding/currencies.js";

/**
 * The kinds of value whose reading the runtime knows, beyond a word or a numeral: an arithmetic expression (the
 * calculator's reading), a unit of measure (the unit table), a date, a time zone, a currency. A question that writes a value of an
 * argument's kind ("17 times 23 plus 4" for an expression, "°F" and "Celsius" for units) asks for the skill in the
 * argument's own terms, whatever words it shares with the skill's name: users ask "What is 15% of 80?", not "use the
 * calculator".
 */
export type ValueKind = "expression" | "unit" | "date" | "time-zone" | "currency";

type Property = { type?: unknown; description?: unknown };

const EXPRESSION_KEY = /(?:^|_)(?:expression|expr|formula)$/i;
/** A unit argument: named so (`unit`, `from_unit`), or a conversion's side whose description says it is a unit. */
const UNIT_KEY = /(?:^|_)units?$/i;
const SIDE_KEY = /^(?:from|to|source|target)(?:_unit)?$/i;
const DATE_KEY = /(?:^|_)(?:date|day|from|to|start|end)$/i;

/** The kind of value an argument takes, where its name and description say one the runtime can read. */
export function valueKind(key: string, schema: Property | undefined): ValueKind | undefined {
  const types = [schema?.type].flat();
  if (!types.includes("string")) return undefined;
  const description = typeof schema?.description === "string" ? schema.description : "";
  if (EXPRESSION_KEY.test(key) || /\barithmetic\b/i.test(description)) return "expression";
  if (/\btime ?zone\b/i.test(key.replace(/_/g, " ")) || /\btime zone\b/i.test(description)) return "time-zone";
  if (/\b(?:ISO 8601|date)\b/i.test(description) && DATE_KEY.test(key)) return "date";
  if (UNIT_KEY.test(key) || (SIDE_KEY.test(key) && /\bunit\b/i.test(description))) return "unit";
  if (isCurrencyKey(key, description)) return "currency";
  return undefined;
}

/** A unit right after a numeral ("10 km", "98.6 °F", "5 US gallons"): a symbol counts there. */
const AFTER_NUMERAL = /\d\s*(°?\p{L}+)(?:\s+(\p{L}+))?/gu;
/** A unit's name anywhere ("in Celsius", "to miles"): four letters or more, so that "in" or "m" alone is none. */
const UNIT_NAME = /(?<![\p{L}])(\p{L}{4,})(?:\s+(\p{L}+))?/gu;
const ISO_DATE = /\b\d{4}-\d{1,2}-\d{1,2}\b/;
const MONTH_DATE =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b/i;

let zoneCities: Set<string> | undefined;
/** The cities of the IANA time zones this runtime knows ("tokyo" of Asia/Tokyo, "new york" of America/New_York). */
function timeZoneCities(): Set<string> {
  if (zoneCities) return zoneCities;
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return (zoneCities = new Set(zones.map((zone) => zone.split("/").at(-1)!.replace(/_/g, " ").toLowerCase())));
}

/**
 * How many values of `kind` (see ValueKind) `text` writes: "convert 10 dollars to Euros" two currencies, "a 10 dollar
 * deposit" one (one value speaks for one argument of its kind, not for a conversion's both sides).
 */
export function valuesWrittenOf(kind: ValueKind, text: string): number {
  switch (kind) {
    case "expression":
      return Math.max(arithmeticStretches(text).length, arithmeticStretches(imperativeArithmetic(text)).length);
    case "date":
      return new Set(
        [...text.matchAll(new RegExp(ISO_DATE, "g")), ...text.matchAll(new RegExp(MONTH_DATE, "gi"))].map((m) => m[0]),
      ).size;
    case "unit": {
      // a unit of two words ("US gallons", "fluid ounces"), or of one
      const unit = (match: RegExpMatchArray) =>
        (match[2] !== undefined && findUnit(`${match[1]} ${match[2]}`)) || findUnit(match[1]);
      const units = [...text.matchAll(AFTER_NUMERAL), ...text.matchAll(UNIT_NAME)].map(unit).filter(Boolean);
      return new Set(units).size;
    }
    case "currency":
      return new Set(currenciesIn(text)).size;
    case "time-zone": {
      const cities = timeZoneCities();
      const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
      const named = words.map((word, i) =>
        cities.has(word)
          ? word
          : i + 1 < words.length && cities.has(`${word} ${words[i + 1]}`)
            ? `${word} ${words[i + 1]}`
            : "",
      );
      return new Set(named.filter(Boolean)).size;
    }
  }
}
