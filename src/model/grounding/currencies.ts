/**
 * Currencies a question writes, as ISO 4217 codes: "USD", "100 euro", "Canadian dollars", "£5". A currency argument
 * (`from_currency`, `target_currency`, `currency`) takes the code; the question writes a name, which is no span to
 * copy (see QuestionReading.derivedValues). The names are the runtime's own (Intl), in English.
 */

/** A currency argument: named so (`currency`, `from_currency`, `base_currency`). */
export const CURRENCY_KEY = /(?:^|_)currency$/i;
/** A conversion's side key (`from`, `to`, `source`, `target`) whose description says it takes a currency. */
const SIDE_KEY = /^(?:from|to|source|target|base)$/i;

/** Whether `key` (its schema's `description`) takes a currency. */
export function isCurrencyKey(key: string, description: unknown): boolean {
  return (
    CURRENCY_KEY.test(key) ||
    (SIDE_KEY.test(key) && typeof description === "string" && /\bcurrency\b/i.test(description))
  );
}

/** The code a name's last word alone means, where several currencies share it ("dollars": USD, not AUD). */
const USUAL: Record<string, string> = {
  dollar: "USD",
  euro: "EUR",
  pound: "GBP",
  yen: "JPY",
  rupee: "INR",
  franc: "CHF",
  yuan: "CNY",
  peso: "MXN",
  ruble: "RUB",
  lira: "TRY",
};
/** Names' last words that are everyday English words too: a currency only with the words before them. */
const EVERYDAY = new Set(["real", "won", "rand", "mark"]);
const SIGNS: Record<string, string> = { $: "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW" };

let table: { codes: Set<string>; names: Map<string, string>; longest: number } | undefined;

/** Codes, and names (lower case, singular: "canadian dollar", "euro", "dollar") with their codes. */
function currencyTable(): NonNullable<typeof table> {
  if (table) return table;
  const codes = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("currency") : [];
  const display = new Intl.DisplayNames(["en"], { type: "currency" });
  const names = new Map<string, string>();
  const byLastWord = new Map<string, string[]>();
  for (const code of codes) {
    const name = display.of(code)?.toLowerCase();
    if (!name || name === code.toLowerCase() || /\(|\d/.test(name)) continue;
    names.set(name, code);
    const last = name.split(" ").at(-1)!;
    byLastWord.set(last, [...(byLastWord.get(last) ?? []), code]);
  }
  for (const [word, shared] of byLastWord)
    if (!EVERYDAY.has(word) && !names.has(word)) {
      const code = USUAL[word] ?? (shared.length === 1 ? shared[0] : undefined);
      if (code !== undefined) names.set(word, code);
    }
  const longest = Math.max(1, ...[...names.keys()].map((name) => name.split(" ").length));
  // "ALL" (the lek) is a word written in capitals too
  return (table = { codes: new Set(codes.filter((code) => code !== "ALL")), names, longest });
}

/**
 * The currencies `text` writes, in order, as codes: a code in capitals ("USD"), a name with its plural ("Canadian
 * dollars", the longest that matches), a sign ("$", "€"). A name's last word alone is the usual currency of that name.
 */
export function currenciesIn(text: string): string[] {
  const { codes, names, longest } = currencyTable();
  const found: string[] = [];
  const words = [...text.matchAll(/[\p{L}]+|[$€£¥₹₩]/gu)];
  for (let i = 0; i < words.length; i++) {
    const word = words[i][0];
    if (SIGNS[word]) {
      found.push(SIGNS[word]);
      continue;
    }
    if (codes.has(word)) {
      found.push(word);
      continue;
    }
    for (let n = Math.min(longest, words.length - i); n >= 1; n--) {
      const name = words
        .slice(i, i + n)
        .map((m) => m[0].toLowerCase())
        .join(" ");
      const code = names.get(name) ?? names.get(name.replace(/e?s$/, "")) ?? names.get(name.replace(/s$/, ""));
      if (code !== undefined) {
        found.push(code);
        i += n - 1;
        break;
      }
    }
  }
  return found;
}
