/** The kinds of quantity `convert_units` knows; a conversion must stay within one. */
export type UnitCategory = "length" | "mass" | "temperature" | "volume";

/** One unit: its symbol as shown in results, its category, and how it maps to the category's base unit. */
export interface UnitDefinition {
  symbol: string;
  category: UnitCategory;
  /** Value in base units (m, kg, °C, L) of `value` in this unit. */
  toBase(value: number): number;
  /** Value in this unit of `base` base units. */
  fromBase(base: number): number;
}

const linear = (symbol: string, category: UnitCategory, factor: number): UnitDefinition => ({
  symbol,
  category,
  toBase: (value) => value * factor,
  fromBase: (base) => base / factor,
});

// Exact legal definitions: international yard and pound (1959), US gallon = 231 in³, imperial gallon = 4.54609 L.
const INCH = 0.0254;
const POUND = 0.45359237;
const US_GALLON = 3.785411784;
const IMPERIAL_GALLON = 4.54609;

/** Each unit with its spellings (matched after lower-casing, removing `°` and the words "degree(s)"). */
const UNITS: ReadonlyArray<[UnitDefinition, string[]]> = [
  [linear("mm", "length", 0.001), ["mm", "millimeter", "millimetre"]],
  [linear("cm", "length", 0.01), ["cm", "centimeter", "centimetre"]],
  [linear("m", "length", 1), ["m", "meter", "metre"]],
  [linear("km", "length", 1000), ["km", "kilometer", "kilometre", "kms"]],
  [linear("in", "length", INCH), ["in", "inch", "inches", '"']],
  [linear("ft", "length", 12 * INCH), ["ft", "foot", "feet", "'"]],
  [linear("yd", "length", 36 * INCH), ["yd", "yard", "yds"]],
  [linear("mi", "length", 63_360 * INCH), ["mi", "mile"]],
  [linear("nmi", "length", 1852), ["nmi", "nautical mile"]],

  [linear("mg", "mass", 1e-6), ["mg", "milligram", "milligramme"]],
  [linear("g", "mass", 0.001), ["g", "gram", "gramme"]],
  [linear("kg", "mass", 1), ["kg", "kilogram", "kilogramme", "kilo", "kgs"]],
  [linear("t", "mass", 1000), ["t", "tonne", "metric ton", "metric tonne"]],
  [linear("oz", "mass", POUND / 16), ["oz", "ounce"]],
  [linear("lb", "mass", POUND), ["lb", "lbs", "pound"]],
  [linear("st", "mass", 14 * POUND), ["st", "stone"]],
  [linear("short ton", "mass", 2000 * POUND), ["ton", "short ton", "us ton"]],
  [linear("long ton", "mass", 2240 * POUND), ["long ton", "imperial ton", "uk ton"]],

  [{ symbol: "°C", category: "temperature", toBase: (v) => v, fromBase: (c) => c }, ["c", "celsius", "centigrade"]],
  [
    { symbol: "°F", category: "temperature", toBase: (v) => ((v - 32) * 5) / 9, fromBase: (c) => (c * 9) / 5 + 32 },
    ["f", "fahrenheit"],
  ],
  [{ symbol: "K", category: "temperature", toBase: (v) => v - 273.15, fromBase: (c) => c + 273.15 }, ["k", "kelvin"]],

  [
    linear("mL", "volume", 0.001),
    ["ml", "milliliter", "millilitre", "cm3", "cc", "cubic centimeter", "cubic centimetre"],
  ],
  [linear("cL", "volume", 0.01), ["cl", "centiliter", "centilitre"]],
  [linear("dL", "volume", 0.1), ["dl", "deciliter", "decilitre"]],
  [linear("L", "volume", 1), ["l", "liter", "litre", "ltr"]],
  [linear("m3", "volume", 1000), ["m3", "m³", "cubic meter", "cubic metre"]],
  [linear("tsp", "volume", US_GALLON / 768), ["tsp", "teaspoon"]],
  [linear("tbsp", "volume", US_GALLON / 256), ["tbsp", "tablespoon"]],
  [linear("fl oz", "volume", US_GALLON / 128), ["fl oz", "fl. oz", "floz", "fluid ounce", "us fl oz"]],
  [linear("cup", "volume", US_GALLON / 16), ["cup", "us cup"]],
  [linear("pt", "volume", US_GALLON / 8), ["pt", "pts", "pint", "us pint"]],
  [linear("qt", "volume", US_GALLON / 4), ["qt", "qts", "quart", "us quart"]],
  [linear("gal", "volume", US_GALLON), ["gal", "gallon", "us gal", "us gallon"]],
  [linear("imp fl oz", "volume", IMPERIAL_GALLON / 160), ["imp fl oz", "uk fl oz", "imperial fluid ounce"]],
  [linear("imp pt", "volume", IMPERIAL_GALLON / 8), ["imp pt", "uk pint", "imperial pint"]],
  [linear("imp gal", "volume", IMPERIAL_GALLON), ["imp gal", "uk gal", "uk gallon", "imperial gallon"]],
  [linear("ft3", "volume", (12 * INCH) ** 3 * 1000), ["ft3", "ft³", "cubic foot", "cubic feet"]],
  [linear("in3", "volume", INCH ** 3 * 1000), ["in3", "in³", "cubic inch", "cubic inches"]],
];

const BY_ALIAS: ReadonlyMap<string, UnitDefinition> = new Map(
  UNITS.flatMap(([unit, aliases]) => [unit.symbol.toLowerCase(), ...aliases].map((alias) => [alias, unit] as const)),
);

function normalize(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/°/g, "")
    .replace(/^degrees?\s+/, "")
    .replace(/\.$/, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The unit a spelling names (`km`, `Kilometres`, `°C`, `degrees fahrenheit`, `fl oz`, `gallons`), or undefined. */
export function findUnit(text: string): UnitDefinition | undefined {
  const key = normalize(text);
  const exact = BY_ALIAS.get(key);
  if (exact) return exact;
  // Plurals: "miles", "litres", "cups", "fluid ounces" (not 2-3 letter symbols: "ms" is not metres).
  if (key.length > 3 && key.endsWith("s")) return BY_ALIAS.get(key.slice(0, -1));
  return undefined;
}

/** Unit symbols per category, for error messages. */
export function unitSymbolsByCategory(): Record<UnitCategory, string[]> {
  const result: Record<UnitCategory, string[]> = { length: [], mass: [], temperature: [], volume: [] };
  for (const [unit] of UNITS) result[unit.category].push(unit.symbol);
  return result;
}

/** Spellings whose plural is another word or none ("feet", "inches" are spellings of their own). */
const NO_PLURAL: ReadonlySet<string> = new Set(["foot", "feet", "inch", "nmi", "celsius", "fahrenheit", "centigrade"]);

/**
 * The spellings of the other units of `unit`'s kind, three letters or more, with their plurals ("meter", "meters",
 * "feet", ... for "cm"): the values a unit argument whose default is `unit` may be asked for with. None where `unit`
 * names no unit.
 */
export function otherUnitSpellings(unit: string): string[] {
  const own = findUnit(unit);
  if (!own) return [];
  const spellings = UNITS.filter(([other]) => other.category === own.category && other !== own).flatMap(([, aliases]) =>
    aliases.filter((alias) => alias.length >= 3 && /^[a-z ]+$/.test(alias)),
  );
  const plural = (alias: string) => !alias.endsWith("s") && !NO_PLURAL.has(alias);
  return [...new Set(spellings.flatMap((alias) => (plural(alias) ? [alias, `${alias}s`] : [alias])))];
}
