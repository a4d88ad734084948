/**
 * The values a question's text writes (numerals, quoted texts, capitalized names), where each stands and what stands
 * beside it: how a clause's values take the places of the clause before it (see questionItems).
 */
import { writtenSpans } from "../model/grounding/key-anchors.js";

/** A numeral as a question writes it: "$2,000", "5.6", "-3", "12%". */
export const NUMERAL = String.raw`-?\$?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:e-?\d+)?%?`;

/** A capitalized name of one or more words ("Los Angeles", "Taylor Swift", "Maroon 5", "Battle of Waterloo"; "I" is none). */
export const NAME = String.raw`(?!I(?:'\p{L}+)?\b)\p{Lu}[\p{L}\p{N}'.-]*(?:\s+(?:of\s+(?:the\s+)?|de\s+|del\s+)?(?:(?!I(?:'\p{L}+)?\b)\p{Lu}[\p{L}\p{N}'.-]*|\d+\b))*`;

/** A quoted text. */
export const QUOTE = String.raw`'[^'\n]{1,60}'|"[^"\n]{1,60}"`;
/** A value of a question: a numeral written in digits, a quoted text, or a capitalized name past a clause's start ("I" is none). */
export const VALUE = new RegExp(`(?<![\\p{L}\\p{N}])\\d|${QUOTE}|(?<=\\S\\s+)(?!I\\b)\\p{Lu}`, "u");

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

/** A text's values (see VALUE_SPAN), a capitalized word that begins a sentence left out ("The second equation"). */
export function valuesOf(text: string): ValueSpan[] {
  const sentenceStart = (m: RegExpExecArray) => m[3] !== undefined && /(?:^|[.?!:"]\s*)$/.test(text.slice(0, m.index));
  return [...text.matchAll(VALUE_SPAN)]
    .filter((m) => !sentenceStart(m))
    .map((m) => {
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

/** The enum values of `slots` that `text` writes as words, as values of kind 4 (none inside a name or a quote). */
function enumSpans(text: string, slots: readonly { enums: readonly { values: readonly string[] }[] }[]): ValueSpan[] {
  const taken = valuesOf(text);
  const spans: ValueSpan[] = [];
  for (const value of new Set(slots.flatMap((s) => s.enums.flatMap((e) => e.values))))
    for (const [start, end] of writtenSpans(text, value))
      if (!taken.some((v) => v.start <= start && v.end >= end))
        spans.push({ kind: 4, start, end, after: "", before: "" });
  return spans;
}

/** Where one period of values ends and the next begins: a comma, "and" or a semicolon (the last one in the gap). */
const PERIOD_JOINT = /,\s*(?:and\s+)?|\s+and\s+|;\s*/g;

/**
 * Where a sentence gives several calls' worth of one skill's values in a repeating order, each period with values of
 * two kinds or more, a name or a quoted text among them ("$30.45 in Chicago, Illinois, $52.33 in Sacramento, California and $11.23 in Portland, Oregon": a
 * numeral and two names, three times): the offsets of the joints before the second period and each after it. A period
 * must fit a skill's slots (`slots`: its number and text arguments), and all of them together must not.
 */
export function periodicCuts(
  text: string,
  slots: readonly { number: number; text: number; enums: readonly { values: readonly string[] }[] }[],
): number[] {
  // (an enum value the text writes is a value of a fourth kind: "stage 7 in easy mode and stage 3 in hard mode")
  const values = [...valuesOf(text), ...enumSpans(text, slots)].sort((a, b) => a.start - b.start);
  const kinds = values.map((v) => v.kind);
  let best: { start: number; period: number; repeats: number } | undefined;
  for (let start = 0; start < values.length; start++)
    for (let period = 2; period <= 5; period++) {
      const frame = kinds.slice(start, start + period);
      // values of two kinds or more, one a name or a quote (a list of one kind is a list: see expandLists)
      if (frame.length < period || !frame.some((kind) => kind !== 2) || new Set(frame).size < 2) continue;
      let repeats = 1;
      for (let at = start + period; at + period <= values.length; at += period) {
        const gap = text.slice(values[at - 1].end, values[at].start);
        const same = kinds.slice(at, at + period).every((kind, i) => kind === frame[i]);
        if (!same || /[.?!]\s/.test(gap) || !PERIOD_JOINT.test(gap)) break;
        PERIOD_JOINT.lastIndex = 0;
        repeats++;
      }
      PERIOD_JOINT.lastIndex = 0;
      const numbers = frame.filter((kind) => kind === 2).length;
      const enums = frame.filter((kind) => kind === 4).length;
      const texts = period - numbers - enums;
      const fits = slots.some(
        (s) =>
          numbers <= s.number &&
          texts <= s.text &&
          enums <= s.enums.length &&
          (repeats * numbers > s.number || repeats * texts > s.text || repeats * enums > s.enums.length),
      );
      if (repeats >= 2 && fits && (!best || period * repeats > best.period * best.repeats))
        best = { start, period, repeats };
    }
  if (!best) return [];
  const cuts: number[] = [];
  for (let k = 1; k < best.repeats; k++) {
    const at = best.start + k * best.period;
    const from = values[at - 1].end;
    const joints = [...text.slice(from, values[at].start).matchAll(PERIOD_JOINT)];
    cuts.push(from + (joints.at(-1)?.index ?? 0));
  }
  return cuts;
}
