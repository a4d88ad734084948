/**
 * A question's clauses (see questionItems): where a clause that carries another call's values begins (CLAUSE_BREAK,
 * REQUEST_BREAK, a sentence's repeated frames, periodic runs of values), and what each clause is.
 */
import { argumentSlots } from "./argument-slots.js";
import { escapeRegex, nameStems, stem } from "./words.js";
import { bestFit, type SkillProfile } from "./skill-fit.js";
import { NAME, QUOTE, VALUE, periodicCuts, valuesOf } from "./value-spans.js";
import { ORDINAL_KEY } from "../model/grounding/grounding-words.js";

/**
 * Where a question starts another call's clause: a sentence or clause that begins with "also", "then", "another",
 * "do the same", "the second", ... (a plain second sentence does not: "A car starts at 5 m/s. How far ...?" is one call).
 */
const CLAUSE_BREAK = new RegExp(
  [
    // a sentence that begins with a word that goes on to another call
    String.raw`[.?!;]\s+(?=(?:(?:and|but|so)\s+)?(?:also|then|plus|additionally|furthermore|moreover|lastly|finally|next|now|after that|in addition(?: to that)?|another|do the same|repeat|what if|the (?:second|third|fourth|fifth|last)|(?:second|third|fourth|fifth)(?:ly)?)\b)`,
    // a clause inside a sentence that does ("then" and "also" before a verb of the request, not "then accelerates")
    String.raw`(?:,\s*(?:and\s+)?|\s+and\s+|(?<!\b(?:of|for|to|from|by|about))\s+)(?=(?:(?:also|then)(?!\s+\p{L}+s\b)|another|do the same|repeat|followed by|finally|lastly|after that|while(?!\s+\p{L}+ing\b)|(?:how|what) (?:would|does|about|if)|compare (?:it|them)|the (?:second|third|fourth|fifth)\b(?! (?:one|time))|(?:a )?(?:second|third|fourth|fifth) (?!time)\p{L})\b)`,
    // "... for HSBC ... and for Wells Fargo ...", "between New York and Washington DC, and between Los Angeles and ..."
    String.raw`(?:,\s*and\s+|\s+and\s+)(?=for\s+(?:\p{Lu}|\$?\d|'|"))`,
    String.raw`,\s*and\s+(?=(?:between|from)\s+(?:\p{Lu}|\$?\d|'|"))`,
  ].join("|"),
  "giu",
);

/**
 * Among several skills, another request joined by "and" or a comma: "Invest $2000 in Google and withdraw $1000 from
 * Apple", "the capital city of Australia, what is the current population of Canada" (one skill's question goes on
 * with its own words: "the temperature right now and for the next three hours").
 */
const REQUEST_BREAK =
  /(?:,\s*and\s+|\s+and\s+|,\s+)(?=(?:calculate|compute|find|get|give|generate|make|provide|tell|show|list|check|convert|determine|estimate|predict|play|book|buy|order|search|fetch|retrieve|translate|analyze|assess|identify|withdraw|invest|deposit|send|create|design|plan|update|change|set|add|remove|delete|divide|multiply|subtract|what's|(?:what|how|which|who|where|when)\s+(?:is|are|was|were|does|do|did|would|will|about)\b)\b(?!-))/giu;

/** Words that begin a clause and say nothing of its content (left out of an item's text). */
const OPENER =
  /^(?:[.?!;,]\s*)?(?:and\s+)?(?:(?:also|then|plus|additionally|furthermore|moreover|next|now|in addition(?: to that)?|after that|lastly|finally)\b[,:]?\s*)?/i;

/**
 * Words that take up the result of the call before ("then divide the result by 4", "convert that to feet"); not a case
 * or a scenario named again ("for this case", "in that case": the question's own thing).
 */
const BACK_REFERENCE =
  /\b(?:the results?|it|them)\b|\b(?:that|this|these|those)\b(?!\s+(?:[a-z]+\s+)?(?:cases?|scenarios?|situations?|one)\b)/i;
/**
 * Words that take up a result whatever else the clause holds ("divide the result by 4", "divide it by 1000"); a pronoun
 * alone does only in a clause without values of its own ("convert that to feet", not "lawsuits filed against them in
 * 'San Francisco'").
 */
const RESULT_REFERENCE =
  /\bthe (?:results?|answer|outcome|sum|product|total|difference)\b|\b(?:divide|multiply|convert|add|subtract|round|double|halve|square|take)\s+(?:it|that|this|them)\b/i;

/** A phrase that only sets the scene of the request after it: "In game Battle Reign", "For the triangle". */
const SCENE = /^(?:[.?!;,]\s*)?(?:in|for|on|at|with|from|regarding|about|during|as for)\s+[^,.;?!]{1,40}$/i;

/** A condition the request after it asks under: "If you were to conduct 20 independent experiments with ...". */
const CONDITION = /^(?:[.?!;,]\s*)?(?:if|when|suppose|assuming)\s+(?:[^.;?!]|\.(?=\d))*$/i;

/**
 * Whether the text from the clause's start (a cut or a sentence's start) to `at` only sets the scene (see SCENE) or
 * the condition (see CONDITION) of the request that follows: one request, not two.
 */
function sceneBefore(question: string, at: number, cuts: readonly number[]): boolean {
  const sentence = Math.max(0, ...[...question.slice(0, at).matchAll(/[.?!;]\s+/g)].map((m) => m.index + m[0].length));
  const start = Math.max(sentence, ...cuts.filter((cut) => cut < at));
  const before = question.slice(start, at).trim();
  return SCENE.test(before) || CONDITION.test(before);
}

/** "the total payout", "the sum insured": an amount named by the noun after it. */
const AMOUNT_NOUN = /\bthe (?:sum|product|total|difference)\s+(\p{L}+)/giu;

/**
 * Whether a clause takes up a result (see RESULT_REFERENCE), not where its only "the total ..." names an argument of a
 * skill by the noun after it ("while keeping the total payout at $6,000,000" for `total_payout`).
 */
function takesUpResult(text: string, skills: readonly SkillProfile[]): boolean {
  if (!RESULT_REFERENCE.test(text)) return false;
  const keys = new Set(skills.flatMap((skill) => Object.keys(skill.parameters.properties ?? {}).flatMap(nameStems)));
  let rest = text;
  for (const match of text.matchAll(AMOUNT_NOUN))
    if (keys.has(stem(match[1]))) rest = rest.replace(match[0], " ".repeat(match[0].length));
  return RESULT_REFERENCE.test(rest);
}

export interface Piece {
  text: string;
  values: boolean;
  chain?: boolean;
  /** It opens with words that ask for another call of the skill before ("Also, ...", "another order of ..."). */
  again?: boolean;
  /** It begins inside a sentence (no sentence ends right before it): a clause of the sentence's earlier item. */
  inner?: boolean;
}

/** An ordinal and the thing it counts: "the second charge", "The first sample". */
const ORDINAL_THING = /^(?:[.?!;,]\s*)?(?:and\s+)?the\s+(?:first|second|third|fourth|fifth|last)\s+(\p{L}+)/iu;

/**
 * Whether `rest` opens with an ordinal of a thing some skill takes several of by numbered keys ("the second charge
 * has a magnitude of 10 coulombs" for `charge1`, `charge2`): that clause gives another value of the same call, not
 * another call.
 */
function numberedThing(rest: string, skills: readonly SkillProfile[]): boolean {
  const thing = ORDINAL_THING.exec(rest)?.[1].toLowerCase().replace(/s$/, "");
  if (thing === undefined) return false;
  // (or the thing's sentence gives a numbered key's value after the key's word: "The second sample has a quantity of
  // 3 moles" for `quantity1`, `quantity2`)
  const sentence = rest.slice(0, rest.search(/[.?!](?:\s|$)|$/));
  const second = (key: string) => {
    const numbered = ORDINAL_KEY.exec(key);
    if (numbered === null || numbered[2] !== "2") return false;
    const word = numbered[1].toLowerCase();
    // (one value, joined: "sides 5 and 12" are both sides of another triangle)
    const valued = new RegExp(`\\b${escapeRegex(word)}\\s+(?:of|is|=)\\s*-?\\$?\\d`, "i");
    return word === thing || (word.length >= 3 && valued.test(sentence));
  };
  return skills.some((skill) => Object.keys(skill.parameters.properties ?? {}).some(second));
}

/**
 * Where a cut inside a sentence leaves only its subject before it ("You | also want to start at level 5", "Lastly, I
 * would | also like ..."): the sentence's start, so that the subject goes with its clause. Else the cut itself.
 */
function leadStart(question: string, cut: number, cuts: readonly number[]): number {
  const start = Math.max(0, ...[...question.slice(0, cut).matchAll(/[.?!]\s+/g)].map((m) => m.index + m[0].length));
  // (a cut at a sentence's end is the next sentence's start already)
  if (/[.?!;]/.test(question[cut] ?? "")) return cut;
  if (start === 0 || start >= cut || cuts.some((other) => other >= start && other < cut)) return cut;
  const lead = question.slice(start, cut).replace(OPENER, "").trim();
  return lead.split(/\s+/).length <= LEAD_WORDS && valuesOf(lead).length === 0 ? start : cut;
}

/** The clauses of a question that carry a call's values (see CLAUSE_BREAK), and the text around them. */
export function clauses(question: string, skills: readonly SkillProfile[]): Piece[] {
  const requests = skills.length > 1;
  const cuts = [0];
  for (const match of question.matchAll(CLAUSE_BREAK))
    if (match.index > 0 && !numberedThing(question.slice(match.index + match[0].length), skills))
      cuts.push(match.index);
  if (requests)
    for (const match of question.matchAll(REQUEST_BREAK))
      if (match.index > 0 && !sceneBefore(question, match.index, cuts)) cuts.push(match.index);
  cuts.sort((a, b) => a - b);
  cuts.push(...repeatedFrames(question, cuts, skills));
  // the one skill's values given again and again in one order: a call each (unless it takes a list of them)
  const slots = skills.length === 1 ? [argumentSlots(skills[0])].filter((s) => !s.textArray && !s.numberArray) : [];
  cuts.push(...periodicCuts(question, slots).filter((cut) => !cuts.includes(cut)));
  cuts.sort((a, b) => a - b);
  // (each cut at its subject's start, where it had cut the subject off; `at` keeps where the clause's words begin)
  const at = new Map(cuts.map((cut) => [leadStart(question, cut, cuts), cut]));
  const moved = [...at.keys(), question.length];
  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < moved.length; i++) {
    const raw = question.slice(moved[i], moved[i + 1]);
    // (and without the words that lead into the next clause: "... at the downtown location and then" is no place
    // "then", which Gemma wrote)
    const text = raw.replace(OPENER, "").replace(TRAILING_JOINT, "").trim();
    // (nor a joining word alone: ". And finally, ..." cut before "And" and before "finally")
    if (/^(?:(?:and|but|so)\b)?$/i.test(text)) continue;
    const opening = question.slice(at.get(moved[i]) ?? moved[i], moved[i + 1]);
    const again = i > 0 && ANOTHER_CALL.test(opening.replace(/^[\s.?!;,]*(?:and\s+)?/i, ""));
    // a clause after the first that takes up the result before it ("then convert that to feet"): a call of its own
    const chain = i > 0 && (takesUpResult(text, skills) || (BACK_REFERENCE.test(text) && !VALUE.test(text)));
    const inner = i > 0 && !/[.?!]["')]?\s*$/.test(question.slice(0, moved[i])) && !/^[.?!;]/.test(raw);
    pieces.push({
      text,
      values: chain || (valuesOf(text).length > 0 && !(i === 0 && namesOnly(text, skills))),
      ...(chain && { chain }),
      ...(again && { again }),
      ...(inner && { inner }),
    });
  }
  return pieces;
}

/**
 * Whether a question's first clause only sets the scene: its values are all capitalized names and the skill it fits
 * best takes no name (no text argument, no enum). "John and Mary are playing a game where they each choose two
 * numbers" for `math.gcd` asks for no call; the numbers each of them chose do.
 */
function namesOnly(text: string, skills: readonly SkillProfile[]): boolean {
  const values = valuesOf(text);
  if (values.length === 0 || values.some((value) => value.kind !== 3)) return false;
  const slots = argumentSlots(skills.length === 1 ? skills[0] : bestFit(text, skills));
  return slots.text === 0 && !slots.textArray && slots.enums.length === 0 && slots.arrayEnums.length === 0;
}

/** Where a clause may join another of the same frame: ", and", "and", ";". */
const FRAME_JOINT = /,\s*and\s+|\s+and\s+|;\s+/g;
/** The kinds of values a text gives, in order: `q` a quoted text, `n` a numeral, `c` a capitalized name past its start. */
function valueFrame(text: string): { frame: string; texts: string[] } {
  const kinds = new RegExp(`(${QUOTE})|((?<![\\p{L}\\p{N}])\\$?\\d)|((?<=\\S\\s+)(?:${NAME}))`, "gu");
  const found = [...text.matchAll(kinds)];
  return {
    frame: found.map((m) => (m[1] ? "q" : m[2] ? "n" : "c")).join(""),
    texts: found.filter((m) => !m[2]).map((m) => m[0]),
  };
}

/**
 * Where a sentence goes on with "and" into a clause that gives the same kinds of values in the same order as the
 * clause before it, two of them or more ("the exhibition named 'Wonder of Nature' in the Louvre museum, and 'Age of
 * Reptiles' in the British Museum"; "an Italian restaurant in New York ... and a Japanese sushi restaurant in Los
 * Angeles"): a call's values given twice, two calls, where the frames give a name or a quote and more of them than any
 * skill takes texts (no skill takes a list of them). The cut offsets, past the `cuts` already made.
 */
function repeatedFrames(question: string, cuts: readonly number[], skills: readonly SkillProfile[]): number[] {
  const slots = skills.map((skill) => argumentSlots(skill));
  // where a skill takes a list of texts, or as many texts as both clauses give, they are one call's
  const most = Math.max(0, ...slots.map((slot) => (slot.textArray ? Infinity : slot.text)));
  const found: number[] = [];
  for (const joint of question.matchAll(FRAME_JOINT)) {
    const at = joint.index;
    const sentenceStart = Math.max(...cuts.filter((cut) => cut <= at), question.lastIndexOf(". ", at) + 1, 0);
    const before = valueFrame(question.slice(sentenceStart, at));
    const rest = question.slice(at + joint[0].length);
    const after = valueFrame(rest.slice(0, rest.search(/[.?!](?:\s|$)|$/)));
    const [left, right] = [before.frame, after.frame];
    const shorter = Math.min(left.length, right.length);
    if (shorter < 2 || Math.abs(left.length - right.length) > 1) continue;
    // a name or a quote of its own on the right ("300 Kelvin and ... 350 Kelvin" are one call's two temperatures)
    if (before.texts.length + after.texts.length <= most || after.texts.every((text) => before.texts.includes(text)))
      continue;
    if (left.slice(0, shorter) === right.slice(0, shorter)) found.push(at);
  }
  return found;
}

/**
 * A clause without values that goes on the sentence of a clause with values ("The second equation has coefficients a =
 * 1, b = -3, and c = 2 and I only want to find the real roots") is that clause's own tail, not the question's context
 * for every item (the first equation took "only the real roots" too): it joins the clause before it.
 */
export function keepTails(pieces: Piece[]): void {
  for (let i = pieces.length - 1; i > 0; i--) {
    const [before, piece] = [pieces[i - 1], pieces[i]];
    if (piece.values || !piece.inner || !before.values) continue;
    before.text = `${before.text} and ${piece.text.replace(/^(?:and|but|so)\s+/i, "")}`;
    pieces.splice(i, 1);
  }
}

/** The most words a clause's lead may have: "I would", "could you", "I also found". */
const LEAD_WORDS = 6;

/**
 * A clause of a few words without values, cut from the clause after it inside one sentence ("Lastly, I would | also
 * like to know ...", "what if we | also increase ...", "I also found | another SNP mutation ..."), is that clause's
 * subject, not the question's context for every item (each item read "I would" after its own value, and Gemma went on
 * from a park's name into " <b>"): it joins the clause after it, which keeps its marks.
 */
export function joinLeads(pieces: Piece[]): void {
  for (let i = pieces.length - 2; i >= 0; i--) {
    const [piece, next] = [pieces[i], pieces[i + 1]];
    if (piece.values || !next.inner || /[.?!:;]["')]?$/.test(piece.text)) continue;
    if (piece.text.split(/\s+/).length > LEAD_WORDS) continue;
    next.text = `${piece.text} ${next.text}`;
    pieces.splice(i, 1);
  }
}

/**
 * Among several skills, a sentence without values right after a clause with values, that fits the same skill best
 * ("... The second sample has a quantity of 3 moles and is at a temperature of 500 Kelvin. | What would be the final
 * temperature of the mixture?"), asks for that clause's call: it joins that clause, not every item as the question's
 * context (the later item read it and fit the mixture's skill; the mass went uncalled).
 */
export function keepRequests(pieces: Piece[], skills: readonly SkillProfile[]): void {
  if (skills.length < 2) return;
  for (let i = pieces.length - 1; i > 0; i--) {
    const [before, piece] = [pieces[i - 1], pieces[i]];
    if (piece.values || piece.chain || !before.values) continue;
    if (bestFit(piece.text, skills) !== bestFit(before.text, skills)) continue;
    before.text = `${before.text} ${piece.text}`;
    pieces.splice(i, 1);
  }
}

/** Words at a clause's end that lead into the next one. */
const TRAILING_JOINT = /(?:[,;]?\s+(?:and|then|also|but|so|while))+\s*$/i;

/** A clause's opening that asks for another call of the skill before: "also", "then another", "do the same". */
const ANOTHER_CALL = /^(?:also|additionally|then\s+another|another|do the same|repeat)\b/i;
