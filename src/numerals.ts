/** Numerals as a question writes them and as a JSON value writes them: the one reader, for grounding and the decision. */

/** A numeral: not digits glued to a word before them (the 2 of "CO2", the 2562 of "AL2562" are not numbers). */
const NUMERAL = /(?<![\p{L}_\d.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/gu;
/**
 * A numeral written with thousands separators ("12,000", "1,250,000.50"): JSON writes it without them. A comma after
 * it that no digit follows ends the sentence's clause ("$2,000,000, shareholder's equity ..."), not the numeral.
 */
const GROUPED = /(?<![\d.]|\d,)\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d|,\d)/g;
/** A numeral with a magnitude word ("213 million", "2.5 billion"). */
const MAGNITUDE = /(?<![\d.])(\d+(?:\.\d+)?)\s*(thousand|million|billion|trillion)\b/gi;
/** What each magnitude word or letter multiplies by (lower case): numeralsOf and grounding's anchors read them. */
export const MAGNITUDES: Readonly<Record<string, number>> = {
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
  trillion: 1e12,
  k: 1e3,
  m: 1e6,
  b: 1e9,
};
/** An amount of money with a magnitude letter ("$1M", "$1.2M", "€5K", "$3B"): a currency sign before it, no space. */
const MONEY_MAGNITUDE = /(?<=[$€£])(\d+(?:\.\d+)?)([KMB])(?![\p{L}\p{N}])/gu;
/** A percentage ("7%", "2.5 %"): a rate's parameter most often wants the fraction (0.07). */
const PERCENT = /(?<![\d.])(\d+(?:\.\d+)?)\s?%/g;
/** Numbers written as words ("ten major events", "two tickets", "top five"). */
const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  dozen: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  fifty: 50,
  hundred: 100,
};
const NUMBER_WORD = new RegExp(`(?<![\\p{L}])(${Object.keys(NUMBER_WORDS).join("|")})(?![\\p{L}])`, "giu");

/**
 * The numerals of `text` as a JSON value would write them: "12,000" is 12000 (not 12 and 000), and a numeral with a
 * magnitude word or, after a currency sign, letter is also read scaled ("213 million": 213 and 213000000, "$1.2M":
 * 1.2 and 1200000), where the result is an exact integer; a
 * percentage also as its fraction ("7%": 7 and 0.07); a number written as a word as its numeral ("ten": 10).
 */
export function numeralsOf(text: string): string[] {
  const ungrouped = text.replace(GROUPED, (grouped) => grouped.replaceAll(",", ""));
  const found = [...ungrouped.matchAll(NUMERAL)].map((match) => match[0]);
  for (const match of ungrouped.matchAll(MAGNITUDE)) {
    const scaled = Number(match[1]) * MAGNITUDES[match[2].toLowerCase()];
    if (Number.isSafeInteger(scaled)) found.push(String(scaled));
  }
  for (const match of ungrouped.matchAll(MONEY_MAGNITUDE)) {
    const scaled = Number((Number(match[1]) * MAGNITUDES[match[2].toLowerCase()]).toPrecision(12));
    if (Number.isSafeInteger(scaled)) found.push(String(scaled));
  }
  for (const match of ungrouped.matchAll(PERCENT)) found.push(String(Number((Number(match[1]) / 100).toPrecision(12))));
  for (const match of ungrouped.matchAll(NUMBER_WORD)) found.push(String(NUMBER_WORDS[match[1].toLowerCase()]));
  return found;
}
