import { datesIn, formatDate } from "./date-formats.js";
import { currenciesIn } from "./currencies.js";
import { conversionSide } from "./grounding-words.js";

/**
 * The values a key takes that the question writes in another form: its dates in the form the key's description spells
 * (`format`: "March 17, 1915" as "1915-03-17" for a `date` "in yyyy-mm-dd format"; see datesIn), its currencies as
 * codes for a currency key ("100 euro" as "EUR"; see currenciesIn: a conversion's `from` side takes the first, its
 * `to` side the last of two or more). None for other keys. `text` is the question and the results only, not the
 * schema's values ("Default is 'USD'" is no currency the question asks for).
 */
export function deriveValues(text: string, key: string, format: string | undefined, currency: boolean): string[] {
  if (format !== undefined) return [...new Set(datesIn(text).map((date) => formatDate(date, format)))];
  if (!currency) return [];
  const codes = currenciesIn(text);
  const side = conversionSide(key);
  if (side === undefined) return [...new Set(codes)];
  if (codes.length < 2) return side === "from" ? codes : [];
  return [side === "from" ? codes[0] : codes.at(-1)!];
}
