/**
 * Grounding's rules: each one job on top of the four parts (copy, numbers, strings, answers; GroundingLever), named so
 * that it can be turned off alone (`GroundingOptions.rulesOff`) and so that a run can say which ones acted
 * (`GroundingOptions.onRule`). What each reads in the question, what it biases, and why it is there; its measured
 * gain is in docs/grounding.md's rule table (scripts/grounding-rules.ts).
 */

/** One rule of the table. */
export interface GroundingRuleInfo {
  name: string;
  /** What it reads in the question, the schema or the reply. */
  reads: string;
  /** What it biases. */
  biases: string;
  /** Why it is there: the failure it was added for. */
  reason: string;
}

export const GROUNDING_RULES = [
  {
    name: "string-bound",
    reads: "the longest source text",
    biases: "closes an argument string at that length",
    reason: 'a runaway string ran to the grammar\'s cap ("New York, NY, you should format it as ...")',
  },
  {
    name: "digit-runaway",
    reads: "the source's longest digit run and numeral",
    biases: "closes a string or an answer that ends in a longer run",
    reason: 'SmolLM2 wrote "150.0000000000000001", Gemma "Safeway 1000000000..."',
  },
  {
    name: "number-bounds",
    reads: "the source's longest numeral and digit run",
    biases: "closes a number past them (plus a margin)",
    reason: "Gemma wrote 5000000000000000 for 50, 16 digits to the cap",
  },
  {
    name: "start-malus",
    reads: "the key's name, the instructions, the skill descriptions",
    biases: "malus on a value's first token that begins them",
    reason: 'values began with the schema\'s words ("string", "The ...") or the key itself',
  },
  {
    name: "inside-name",
    reads: "capitalized words after another inside a name",
    biases: "no value begins inside a name",
    reason: 'Gemma wrote "player_name":"Carlsen" for Magnus Carlsen',
  },
  {
    name: "mid-word",
    reads: "the source word a value is in the middle of",
    biases: "a stronger bonus to finish that word",
    reason: 'Gemma wrote "Yellowak" past a plain copy bonus on "stone"',
  },
  {
    name: "place-region",
    reads: "a place name followed by a comma and a region",
    biases: "goes on to the region before closing",
    reason: '"Denver" closed before ", Colorado"',
  },
  {
    name: "name-goes-on",
    reads: "capitalized names and quoted texts",
    biases: "goes on to a name's last word or the closing quote before closing",
    reason: 'Gemma closed "Yellowstone" of "Yellowstone National Park"',
  },
  {
    name: "written-once",
    reads: "the values this reply wrote already",
    biases: "no copy bonus for one of them again, nor an anchor's where the source writes it once",
    reason: 'one numeral or name went into every argument; `years` took the 1000 of "$1000 per year"',
  },
  {
    name: "item-references",
    reads: "whether the call takes an item of the question that refers to no earlier result",
    biases: 'malus on a reference (`{"$ref"`) where its value begins',
    reason: 'SmolLM2 wrote `{"$ref":"calls[0].result"}` for the second team of "Lakers and Bulls"',
  },
  {
    name: "numeral-prefix",
    reads: "a number value that is the first digits of the source's numerals and none of them",
    biases: "malus on closing it there",
    reason: 'Gemma closed "for the next 14 days" at 1',
  },
  {
    name: "string-digits",
    reads: "a string value after a word or a space",
    biases: "malus on a digit the source does not write there",
    reason: 'Gemma wrote "New York 1000" for a `location`',
  },
  {
    name: "previous-call",
    reads: "in a `calls` list, the call before's value of the key, where this call's item anchors another to the key",
    biases: "malus on the digits that go on to it",
    reason: "SmolLM2 wrote the first sine wave's `end_range` 10 again where the second's 10 is its frequency",
  },
  {
    name: "refused-answer",
    reads: "the final answers the run refused as the prompt's own text",
    biases: "malus on each token that writes one again",
    reason: 'Gemma answered "no more skill calls" in every final round of a run',
  },
  {
    name: "chain-anchor",
    reads: "a key's anchors past the newest result (a chain), at a value an earlier call took",
    biases: "the anchor bonus goes to the newest result's beginning instead",
    reason: 'both models wrote "Alice" again for "the manager of the manager of Alice\'s manager", after "Bob"',
  },
  {
    name: "failed-value",
    reads: "the string values of the run's calls that failed with an error quoting them",
    biases: "malus on the token that completes one again for the same skill and key, and on closing it",
    reason: 'both models wrote `"product":"widgets"` three times after `no entry for "widgets"; known: widget, ...`',
  },
  {
    name: "distinct-items",
    reads: "the string items a list value wrote already",
    biases: "malus on the token that writes one again, and on closing an item that is one",
    reason: 'both models wrote `["points","assists","rebounds","rebounds","rebounds", ...]` to the grammar\'s cap',
  },
  {
    name: "schema-numerals",
    reads: "the numerals the schema alone writes (a description's default)",
    biases: "no copy bonus where a number value begins",
    reason: "every call of a three-city question wrote a default's 7 for `days_ahead`",
  },
  {
    name: "key-word-malus",
    reads: "the words of the key's own name and of the called skill's name",
    biases: "malus on a value that begins with them",
    reason: 'values like "cell" for cell_type, "musical" for the show of musical_ticket.buy',
  },
  {
    name: "other-keys-values",
    reads: "values the question puts beside another key's word; other skills' schema values",
    biases: "no copy bonus for them in this key; a value closes before running into one",
    reason: "a value anchored to one argument was written into another",
  },
  {
    name: "anchors",
    reads:
      "a key's word in the question and the value beside it (its other words where keys share one; a number word " +
      "before it; a year key's years; a key's value a word of the question begins; a date in the form the key's " +
      "description spells; a currency as its code; the numeral before the unit a number key's description names; " +
      'the numeral after a number key\'s other word where the question lacks its head word ("top 5" for `top_number`); ' +
      'a pair\'s sides, the name after "from" for `from_lang` and after "to" for `to_lang`; ' +
      'the word before the noun a kind\'s key sorts: "single room" for `room_type`, "violent crime" for a crime\'s ' +
      '`type`; or before the noun a one-word key is: "the downtown location" for `location`)',
    biases:
      "bonus for that value, a string begun there goes on along it ahead of other spans, and a whole anchored " +
      "numeral closes; a kind closes before its noun, and the noun's own " +
      "tokens get the malus; in a calls list, no reference to an earlier result opens where the question gives the " +
      "key a value",
    reason: 'Gemma wrote dividends of 2000000 for "dividends paid of $200,000" beside $2,000,000',
  },
  {
    name: "ordinal-keys",
    reads:
      "keys numbered among siblings (number1, number2; year1, year2 take the years; year1_revenue, year2_revenue " +
      "the other numerals, scaled: $1M is 1000000)",
    biases: "the question's numerals in order, as anchors",
    reason: '"the GCD of 36 and 24" took one numeral twice',
  },
  {
    name: "ranges",
    reads: 'a range of numbers ("between 1 and 1000", "from 10 to 20") where the skill takes both ends (lower/upper)',
    biases: "the range's first numeral as the low end's anchor, its second as the high end's",
    reason: 'Gemma wrote `"lower_limit":1000` for "between 1 and 1000"',
  },
  {
    name: "no-pronoun",
    reads: 'the pronoun "I" where a span of the source starts ("I would like", "I\'m")',
    biases: "no copy bonus for a value that begins there",
    reason: 'both test models wrote `"start_point":"I"` and `"key":"I"` for "I am driving from ..."',
  },
  {
    name: "names-holding",
    reads: "names of the question that hold a word of the key",
    biases: "those names as anchors",
    reason: 'Gemma wrote the city ("Chicago") as hotel_name for "the Hilton Hotel"',
  },
  {
    name: "place-anchors",
    reads: '"in", "near", "around", "at", "of" before a capitalized name; "from", "to" for a route\'s sides',
    biases: "that name as the place key's anchor",
    reason: 'Gemma wrote "location":"in", "hospital", "nearby"',
  },
  {
    name: "number-key-numerals",
    reads: "numerals a number key of the skill still needs",
    biases: "malus on a string that begins with one",
    reason: '"location":"1800" before "year":1800',
  },
  {
    name: "no-empty-value",
    reads: "the value so far",
    biases: 'malus on an empty or punctuation-only value ("", [], {}, [","])',
    reason: 'SmolLM2 wrote "target":"" and empty lists',
  },
  {
    name: "lists",
    reads: "lists the question writes out (a, b and c); the key's own values it writes",
    biases: "the next item ahead of other spans; the array ends where the list ends",
    reason: "lists stopped after one item or went on past the question's",
  },
  {
    name: "list-bound",
    reads: 'the most items a list of the question can hold (its clauses\' commas and "and"s, plus one)',
    biases: "a list of texts that follows no list of the question ends there, as at a list's end",
    reason: 'both models wrote 12 items and more for "points, assists, rebounds, and minutes"',
  },
  {
    name: "arguments-end",
    reads:
      "optional arguments the question asks for or does not (a number one named after a negation does not), past " +
      "the last key written (the schema's order)",
    biases:
      "goes on to an asked one; closes the arguments when only unasked ones remain; an unasked one does not begin " +
      "while a required or asked one is to come",
    reason: 'Gemma closed before "standardize" that the question asked for; went on with "z":2',
  },
  {
    name: "units",
    reads: "a conversion's units in the question (from/to sides)",
    biases: "unit keys copy only those units, to their last word",
    reason: 'SmolLM2 wrote "from":"many", "from":"US" for "5 US gallons"',
  },
  {
    name: "formula",
    reads: "arithmetic stretches of the question",
    biases: "expression keys copy a stretch whole (inside it, the mid-word bonus), and close at its end",
    reason: '"17*23" closed before "plus 4"; "466566  #1000" and "60 ∙ 4" for "466566 / 1000" and "60 / 4"',
  },
  {
    name: "coefficients",
    reads:
      'polynomials the question writes ("5x^2 - 7x + 3"); number keys described as a coefficient ("Coefficient of x.")',
    biases: "each such key's term's coefficient, signed, as its anchor (-7 for the coefficient of x)",
    reason: 'both models wrote `"a":3,"b":5,"c":7` for "5x^2 - 7x + 3 = 0"',
  },
  {
    name: "flag-true",
    reads: 'a flag whose name the question uses, and a negation before it ("do not include the impact")',
    biases: "bonus for true; for false, and a malus on true, where it is negated",
    reason: 'details=false for "in detail"',
  },
  {
    name: "taken",
    reads: "values earlier calls wrote (and other items' numerals)",
    biases: "malus on beginning a value with one; twice the malus for another item's value in a calls list's call",
    reason: "parallel calls copied one item into every call",
  },
  {
    name: "no-negative",
    reads: "whether any numeral of the source is negative",
    biases: 'malus on "-" when none is',
    reason: "numbers came out negative",
  },
  {
    name: "number-fits",
    reads: "integer keys, percentages written with %, numerals written only as an exponent (m/s^2, x^2)",
    biases: "a numeral the key cannot hold is not favoured (8% is 0.08; the 2 of m/s^2 is no acceleration)",
    reason: "a rate of 8% went in as 8; a decimal into an integer key",
  },
  {
    name: "answer-newest",
    reads: "the newest result, where the source begins with it",
    biases: "an answer that begins with it gets more",
    reason: 'Gemma answered "Japan" after "Tokyo" for the capital of Mount Fuji\'s country',
  },
  {
    name: "answer-numerals",
    reads: "numerals of the results and the question not written yet",
    biases: "bonus at a word's start of an answer; not those that only echo the question",
    reason: 'Gemma answered "98.6" for 98.6 °F in Celsius after the result 37',
  },
] as const satisfies readonly GroundingRuleInfo[];

export type GroundingRule = (typeof GROUNDING_RULES)[number]["name"];

const NAMES: ReadonlySet<string> = new Set(GROUNDING_RULES.map((rule) => rule.name));

/** Whether `value` is a list of rule names. */
export function isGroundingRuleList(value: unknown): value is readonly GroundingRule[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string" && NAMES.has(item));
}

/**
 * One call's rules: `on(rule)` is asked where the rule would act, and says whether it may (not when turned off); each
 * rule asked is reported once (`onRule`), on or off. A rule never asked in a run did not change it: turning it off
 * gives the same run (scripts/grounding-rules.ts re-runs only where a rule was asked).
 */
export class RuleGate {
  readonly #off: ReadonlySet<string>;
  readonly #asked = new Set<string>();
  readonly #onRule: ((rule: GroundingRule) => void) | undefined;

  constructor(off: readonly string[] = [], onRule?: (rule: GroundingRule) => void) {
    this.#off = new Set(off);
    this.#onRule = onRule;
  }

  on(rule: GroundingRule): boolean {
    if (!this.#asked.has(rule)) {
      this.#asked.add(rule);
      this.#onRule?.(rule);
    }
    return !this.#off.has(rule);
  }
}
