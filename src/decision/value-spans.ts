/**
 * The values a question's text writes (numerals, quoted texts, capitalized names), where each stands and what stands
 * beside it: how a clause's values take the places of the clause before it (see questionItems).
 */

/** A numeral as a question writes it: "$2,000", "5.6", "-3", "12%". */
export const NUMERAL = String.raw`-?\$?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:e-?\d+)?%?`;

/** A capitalized name of one or more words ("Los Angeles", "Taylor Swift", "Maroon 5", "Battle of Waterloo"; "I" is none). */
export const NAME = String.raw`(?!I(?:'\p{L}+)?\b)\p{Lu}[\p{L}\p{N}'.-]*(?:\s+(?:of\s+(?:the\s+)?|de\s+|del\s+)?(?:(?!I(?:'\p{L}+)?\b)\p{Lu}[\p{L}\p{N}'.-]*|\d+\b))*`;

/** A quoted text. */
export const QUOTE = String.raw`'[^'\n]{1,60}'|"[^"\n]{1,60}"`;

/** A value of a text, as valueFrame reads them: a quoted text, a numeral, or a capitalized name past the start. */
const VALUE_SPAN = new RegExp(`(${QUOTE})|((?<![\\p{L}\\p{N}.])${NUMERAL})|((?<=\\S\\s+)(?:${NAME}))`, "gu");

interface ValueSpan {
  kind: number;
  start: number;
  end: number;
  /** The word right after it, and the two words before it, lower case ("" where none). */
  after: string;
  before: string;
}

export function valuesOf(text: string): ValueSpan[] {
  return [...text.matchAll(VALUE_SPAN)].map((m) => {
    const end = m.index + m[0].length;
    const words = text.slice(Math.max(0, m.index - 40), m.index).match(/\p{L}+/gu) ?? [];
    return {
      kind: m[1] ? 1 : m[2] ? 2 : 3,
      start: m.index,
      end,
      after: (/^\s+(\p{L}+)/u.exec(text.slice(end))?.[1] ?? "").toLowerCase(),
      before: words.length >= 2 ? words.slice(-2).join(" ").toLowerCase() : "",
    };
  });
}

/**
 * The text of the clause before, with the values `own` gives in their places: each own value replaces the first one
 * of its kind that the same word follows ("the Lamarck model" for "the Darwin model") or the same two words precede
 * ("located in Los Angeles" for "located in New York").
 */
export function substituted(before: string, own: string): string {
  const theirs = valuesOf(before);
  const done = new Set<ValueSpan>();
  for (const value of valuesOf(own)) {
    const match = theirs.find(
      (t) =>
        !done.has(t) &&
        t.kind === value.kind &&
        ((t.after !== "" && t.after === value.after) || (t.before !== "" && t.before === value.before)),
    );
    if (match) done.add(Object.assign(match, { text: own.slice(value.start, value.end) }));
  }
  let text = before;
  for (const t of [...done].sort((a, b) => b.start - a.start))
    text = text.slice(0, t.start) + (t as ValueSpan & { text: string }).text + text.slice(t.end);
  return text;
}
