/**
 * Pure text readers QuestionReading (question-reading.ts) asks: a key's anchors by its head word, its numerals by its
 * own words or its number, the question's years, where the question writes a value; and where the reply stands inside
 * its arguments (the keys and strings written so far, whether it is directly inside the arguments object).
 */
import { numeralsOf } from "./grounding-index.js";
import {
  ANCHOR_FILLER,
  GENERIC_FLAG_WORDS,
  INNER_ORDINAL_KEY,
  KIND_WORDS,
  NUMBER_WORD_BEFORE,
  NUMERAL_BEFORE,
  ORDINAL_KEY,
  WORD_AT,
  YEAR_NUMERAL,
  anchoredNumerals,
  yearKey,
  keyWords,
} from "./grounding-words.js";
import type { RuleGate } from "./rules.js";

/**
 * The numerals a numbered key of stem `stem` takes in order: the question's, or where the skill numbers two or more
 * stems (`quantity1`, `temperature1`, `quantity2`, `temperature2`) and the question's numerals fall, by the word
 * after each, into as many groups of the right sizes ("2 moles ... 300 K ... 3 moles ... 400 K"), the group in the
 * stem's place (first seen first). Both test models wrote `"quantity2":300`.
 */
export function ordinalNumerals(stem: string, keys: readonly string[], text: string): string[] {
  const all = [...new Set(numeralsOf(text))];
  const count = new Map<string, number>();
  for (const key of keys) {
    const other = ORDINAL_KEY.exec(key)?.[1];
    if (other !== undefined) count.set(other, (count.get(other) ?? 0) + 1);
  }
  const stems = [...count].filter(([, n]) => n > 1).map(([name]) => name);
  if (stems.length < 2) return all;
  const groups = new Map<string, string[]>();
  for (const match of text.matchAll(/(?<![\p{L}\d.,])(\d+(?:\.\d+)?)\s*([\p{L}°%]*)/gu)) {
    const unit = match[2].toLowerCase();
    groups.set(unit, [...(groups.get(unit) ?? []), match[1]]);
  }
  const ordered = [...groups.values()];
  const fits = ordered.length === stems.length && ordered.every((group, i) => group.length === count.get(stems[i]));
  return fits ? ordered[stems.indexOf(stem)] : all;
}

/** A preposition that joins a key's word to its numeral, not to a name ("flight from 'New York'" is no flag's). */
const NUMERAL_PREPOSITION = /^\s+(?:at|from|for)(?=\s+\$?\d)/i;

/**
 * The numerals the question writes after a word of `key` (or its -s, -ed, -ing, -ment form) that no other key of `keys`
 * holds, past at most two more words and a joining word ("synaptic input rate of 200" for `input_synaptic_rate` beside
 * `decay_rate`): where the head word is shared, the other words tell the keys apart.
 */
export function numeralsAfterOwnWords(key: string, keys: readonly string[], text: string): string[] {
  const theirs = new Set(keys.filter((other) => other !== key).flatMap((other) => keyWords(other)));
  const own = keyWords(key).filter((word) => !theirs.has(word) && !GENERIC_FLAG_WORDS.has(word));
  const numerals: string[] = [];
  for (const word of own) {
    // (its forms too: "ending at 20 radians" for `end_range`, "starting from 0" for `start_range`, "investing $5000"
    // for `investment_amount`, "hold the stock for 10 years" for `holding_period`)
    const base = /^(\p{L}{4,}?)(?:ment|ing)$/u.exec(word)?.[1] ?? word;
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${base}(?:s|es|d|ed|ing|ment)?(?![\\p{L}\\p{N}])`, "giu");
    for (const match of text.matchAll(pattern)) {
      let at = match.index + match[0].length;
      for (let skipped = 0; skipped <= 2; skipped++) {
        // (a numeral's "at" or "from" joins too: "ending at 20 radians", "starting from 0")
        const preposition = NUMERAL_PREPOSITION.exec(text.slice(at))?.[0].length ?? 0;
        const filler = ANCHOR_FILLER.exec(text.slice(at + preposition));
        const from = at + preposition + (filler?.[0].length ?? 0);
        const numeral = /^\d[\d,]*(?:\.\d+)?/.exec(text.slice(from))?.[0];
        // past a word, only with a joining word ("input rate of 200"): "initial 2000 final" reads no further
        if (numeral && (skipped === 0 || preposition > 0 || filler?.groups?.join !== undefined)) {
          numerals.push(...anchoredNumerals(numeral, text.slice(from + numeral.length)));
          break;
        }
        const next = /^\s+([\p{L}'-]+)/u.exec(text.slice(at));
        // a word another key holds ends the stretch: "decay rate of 0.1" is not `input_synaptic_rate`'s
        if (!next || (theirs.has(next[1].toLowerCase()) && !keyWords(key).includes(next[1].toLowerCase()))) break;
        at += next[0].length;
      }
    }
  }
  return numerals;
}

/**
 * Whether `text` (the reply so far, a key's opening quote left off) ends directly inside its last `arguments` object
 * (not in a nested one, not past it).
 */
export function atArgumentsTop(text: string): boolean {
  const args = text.slice(text.lastIndexOf('"arguments"'));
  if (!args.startsWith('"arguments"')) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < args.length; i++) {
    const ch = args[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
  }
  return depth === 1 && !inString;
}

/** The years `question` writes (see YEAR_NUMERAL), in its order, each once. */
export function questionYears(question: string): string[] {
  return [...new Set(numeralsOf(question))].filter((numeral) => YEAR_NUMERAL.test(numeral));
}

/**
 * Where `question` writes `value` as words of its own (letter case aside; a plural too: "ratings", "Wars"): the
 * offsets it begins at.
 */
export function writesAt(question: string, value: string): number[] {
  return writtenSpans(question, value).map(([start]) => start);
}

/**
 * Where the question writes `value` as whole words, letter case aside, with a plural's -s or -es, and a value's `_`
 * as a space or a hyphen ("five years" for `five_years`): each span's start and end.
 */
export function writtenSpans(question: string, value: string): [number, number][] {
  const words = value
    .toLowerCase()
    .split("_")
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (words.every((word) => word === "")) return [];
  const pattern = new RegExp(`${words.join("[\\s_-]+")}(?:s|es)?(?![\\p{L}\\p{N}])`, "giu");
  const found: [number, number][] = [];
  for (const match of question.matchAll(pattern)) {
    const before = question[match.index - 1];
    if (before === undefined || !WORD_AT.test(before)) found.push([match.index, match.index + match[0].length]);
  }
  return found;
}

/** The reply `text` from its last `"arguments"` on: the arguments written so far. */
export function argumentsOf(text: string): string {
  return text.slice(text.lastIndexOf('"arguments"'));
}

/** The keys the arguments so far name (of the reply's last `arguments`). */
export function writtenKeysOf(text: string): Set<string> {
  return new Set([...argumentsOf(text).matchAll(/"([^"\\]*)"\s*:/g)].map((match) => match[1]));
}

/** The string values the arguments so far hold (non-empty, unescaped simply). */
export function writtenStringsOf(text: string): string[] {
  return [...argumentsOf(text).matchAll(/"(?:[^"\\]|\\.)*"\s*:\s*"((?:[^"\\]|\\.)+)"/g)].map((m) => m[1]);
}

/** The last string the reply has closed that is a value (not a key: no `:` after it), as written; none when none. */
export function lastClosedValue(text: string): string | undefined {
  let last: string | undefined;
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"(\s*:)?/g)) if (m[2] === undefined) last = m[1];
  return last;
}

/**
 * The numeral a key numbered inside its name takes (see INNER_ORDINAL_KEY: `year1_revenue` beside `year2_revenue`):
 * the question's numerals in its order, scaled by a magnitude after them ("$1M"), its years left out where a key of
 * the skill takes a year; the key's number picks one. Undefined for any other key, or one with no sibling.
 */
export function innerOrdinalNumeral(key: string, keys: readonly string[], text: string): string | undefined {
  const family = (name: string) => {
    const match = INNER_ORDINAL_KEY.exec(name);
    return match ? `${match[1]}#${match[3]}` : undefined;
  };
  const own = INNER_ORDINAL_KEY.exec(key);
  if (!own || !keys.some((other) => other !== key && family(other) === family(key))) return undefined;
  const skipYears = keys.some(yearKey);
  const numerals: string[] = [];
  for (const match of text.matchAll(/(?<![\p{L}\d.,])\d[\d,]*(?:\.\d+)?/gu)) {
    if (skipYears && YEAR_NUMERAL.test(match[0])) continue;
    numerals.push(anchoredNumerals(match[0], text.slice(match.index + match[0].length))[0]);
  }
  return numerals[Number(own[2]) - 1];
}

/**
 * Words before a noun that say no kind of it: articles, pronouns, quantities, joining words, verbs that ask, words
 * that pick one without naming it ("the current location", "a specific region", "the preferred mode").
 */
const NO_KIND = new Set(
  (
    "a an the of for my your me our his her its their this that these those any some which what each every all one " +
    "two three four five six in on at to with and or per as by from into about book find get give show search buy " +
    "rent play want need like other same current specific particular certain given preferred desired chosen " +
    "selected different following default exact whole entire"
  ).split(" "),
);

/**
 * Where `text` writes a word right before `noun` (its plural too) that says which kind of it ("a single room",
 * "violent crime", "a classical concert"), with up to two more words of the same letter case before it ("a historical
 * fiction book"): the kind's offsets. Not a word of `excluded` (the skill's name, its other
 * keys: "hotel room" beside `hotel_name`, "musical scale" for `musical_scale`) nor a kind word, and not where the
 * noun goes on with one of them ("official crime rate" for `get_crime_rate`). A quoted text before the noun, a word
 * between them at most, is the kind whole ("the 'European' region", "the 'Sotheby' auction platform").
 */
export function kindModifiers(text: string, noun: string, excluded: ReadonlySet<string>): number[] {
  const quoted = new RegExp(`(['"])(?=[^'"]{1,40}\\1\\s+(?:\\p{L}+\\s+)?${noun}(?:s|es)?(?![\\p{L}\\p{N}]))`, "giu");
  const found = [...text.matchAll(quoted)].map((match) => match.index + 1);
  return found.length > 0 ? found : wordModifiers(text, noun, excluded);
}

/** The kinds kindModifiers reads from words (see it): a word before the noun, up to two more of its letter case. */
function wordModifiers(text: string, noun: string, excluded: ReadonlySet<string>): number[] {
  const stem = (word: string) => word.toLowerCase().replace(/s$/, "");
  const theirs = new Set([...excluded].map(stem));
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}-])(\\p{L}[\\p{L}-]+)\\s+${noun}(?:s|es)?(?![\\p{L}\\p{N}])(?=(?:\\s+(\\p{L}+))?)`,
    "giu",
  );
  const starts: number[] = [];
  for (const match of text.matchAll(pattern)) {
    const word = match[1].toLowerCase();
    if (NO_KIND.has(word) || KIND_WORDS.has(word) || theirs.has(stem(word))) continue;
    if (match[2] !== undefined && theirs.has(stem(match[2]))) continue;
    // a kind of more words: back to a joining word or a change of letter case ("a historical fiction book")
    let start = match.index;
    for (let words = 0; words < 2; words++) {
      const before = /(?<![\p{L}\p{N}-])(\p{L}[\p{L}-]+)\s+$/u.exec(text.slice(Math.max(0, start - 40), start));
      const more = before?.[1];
      if (!more || NO_KIND.has(more.toLowerCase()) || theirs.has(stem(more))) break;
      if (/^\p{Lu}/u.test(more) !== /^\p{Lu}/u.test(match[1])) break;
      start -= before[0].length;
    }
    starts.push(start);
  }
  return starts;
}

/**
 * Adds to `found` the anchors of `key` (of a skill whose keys are `keys`; `numeric` where it is a number key) that its
 * head word gives (see QuestionReading.anchors): the span after the head word past a few joining words, the numeral
 * before it; where another key shares the head word, or the question does not write a number key's head word, the
 * numeral after the key's own other words. "no-head" where the key has none to read, "shared" where another key
 * shares it, else "read".
 */
export function headWordAnchors(
  r: RuleGate,
  text: string,
  key: string,
  keys: readonly string[],
  numeric: boolean,
  found: { starts: number[]; numerals: string[] },
): "no-head" | "shared" | "read" {
  // an identifier's head is two letters (`building_id` and "building Id B1004")
  const head = /(?:^|_)id$/i.test(key) ? "id" : keyWords(key).at(-1);
  if (!head || head.length < 2 || GENERIC_FLAG_WORDS.has(head)) return "no-head";
  // two keys of the skill with one head word (`initial_value`, `final_value`): the numeral after the key's own other
  // words ("initial investment of $2000", "final value of $3000"), where no other key holds them
  if (keys.some((other) => other !== key && keyWords(other).at(-1) === head)) {
    if (r.on("anchors")) found.numerals.push(...numeralsAfterOwnWords(key, keys, text));
    return "shared";
  }
  const word = new RegExp(`(?<![\\p{L}\\p{N}])${head.replace(/s$/, "")}s?(?![\\p{L}\\p{N}])`, "giu");
  // a number key whose head word the question does not write: the numeral after its other words ("the top 5
  // landmark cases" for `top_number`, where Gemma wrote the 2 of "two tasks")
  if (numeric && !word.test(text) && r.on("anchors")) found.numerals.push(...numeralsAfterOwnWords(key, keys, text));
  word.lastIndex = 0;
  for (const match of text.matchAll(word)) {
    const end = match.index + match[0].length;
    const filler = ANCHOR_FILLER.exec(text.slice(end));
    const at = end + (filler?.[0].length ?? 0);
    // without a joining word or a quote, only a name or a number ("material Marble", "age 25"): "organic bananas"
    // is an adjective and its noun
    const linked = filler?.groups?.join !== undefined || filler?.groups?.quote !== undefined;
    if (
      at > end &&
      at < text.length &&
      (linked ? /[\p{L}\p{N}]/u : /[\p{Lu}\p{N}]/u).test(text[at]) &&
      r.on("anchors")
    ) {
      found.starts.push(at);
      const numeral = /^\d[\d,]*(?:\.\d+)?/.exec(text.slice(at))?.[0];
      if (numeral) found.numerals.push(...anchoredNumerals(numeral, text.slice(at + numeral.length)));
    }
    const before = NUMERAL_BEFORE.exec(text.slice(Math.max(0, match.index - 40), match.index));
    if (before && r.on("anchors")) found.numerals.push(...anchoredNumerals(before[1], before[2] ?? ""));
    const inWords = NUMBER_WORD_BEFORE.exec(text.slice(Math.max(0, match.index - 40), match.index));
    if (inWords && r.on("anchors")) found.numerals.push(...numeralsOf(inWords[1]));
  }
  return "read";
}
