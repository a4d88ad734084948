/** The lists a question writes out ("C, F and G", "3 and 4, 5 and 12"), read for an array's items. */
import {
  ITEM_ARTICLE,
  LEADING_NUMERAL,
  LIST_ITEM_END,
  LIST_JOINER,
  LIST_SEPARATOR,
  TEXT_JOINT,
  itemAt,
} from "./grounding-words.js";

/**
 * Where `items` (an array's items, in order) follow a list `source` (the question and the schema's values) writes
 * out ("[3, 4, 5, 6, 4]", "C, F and G", "'Age', 'Income' and 'Education'"; letter case aside): the item that comes next there, or `end` when the list
 * ends with them. Undefined where they follow no list. Numbers go on only with a number.
 */
export function listAfter(written: string, items: readonly string[]): { next?: string; end?: true } | undefined {
  const wanted = items.map((item) => item.toLowerCase());
  const numeric = wanted.every((item) => LEADING_NUMERAL.test(item));
  // ordinals are numbers of a list ("the 2nd, 3rd and 4th floors": 2, 3, 4), read with their suffix as spaces
  const source = numeric
    ? written.replace(/(\d)(st|nd|rd|th)\b/gi, (_, digit: string, suffix: string) => digit + " ".repeat(suffix.length))
    : written;
  const text = source.toLowerCase();
  for (let start = text.indexOf(wanted[0]); start !== -1; start = text.indexOf(wanted[0], start + 1)) {
    if (!itemAt(text, start, wanted[0])) continue;
    let p = start + wanted[0].length;
    let chained = true;
    let joined = false;
    for (const item of wanted.slice(1)) {
      const separator = listSeparator(text, p);
      if (separator === undefined || !itemAt(text, p + separator.length, item)) {
        chained = false;
        break;
      }
      joined ||= LIST_JOINER.test(separator);
      p += separator.length + item.length;
    }
    if (!chained) continue;
    const separator = listSeparator(text, p);
    // "'Age', 'Income' and 'Education' and a target ...": the item after "and" is the list's last
    if (separator === undefined || joined) return { end: true };
    const rest = source.slice(p + separator.length).split(TEXT_JOINT)[0];
    const next = numeric
      ? LEADING_NUMERAL.exec(rest)?.[0]
      : rest.slice(0, LIST_ITEM_END.exec(rest)?.index ?? rest.length).trim();
    return next ? { next } : { end: true };
  }
  return undefined;
}

/** The separator of a list at `p` of `text` (lower case), an article after it included; undefined where none. */
export function listSeparator(text: string, p: number): string | undefined {
  const separator = LIST_SEPARATOR.exec(text.slice(p))?.[0];
  if (separator === undefined) return undefined;
  return separator + (ITEM_ARTICLE.exec(text.slice(p + separator.length))?.[0] ?? "");
}

/** What joins two items of a list a clause writes out: a comma (with "and" or "or"), "and", "or", "&". */
const ITEM_JOINT = /,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|\s*&\s*/giu;

/**
 * The most items a list of `text` can hold: its joints (commas, "and", "or") and sentence breaks, plus one ("points,
 * assists, rebounds, and minutes" 4 of them). A loose bound, not a reading: every comma and "and" counts, and a list
 * may gather items from several sentences.
 */
export function mostListItems(text: string): number {
  return 1 + (text.match(ITEM_JOINT)?.length ?? 0) + (text.match(/[.?!;:\n]+\s*(?=\S)/gu)?.length ?? 0);
}
