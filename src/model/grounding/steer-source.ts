import type { Token } from "./token.js";
import type { FailedValue, GroundingLever, GroundingMode } from "../model-handle.js";

/** What the steer needs of a model's vocabulary (token-classes.ts builds it once per model). */
export interface GroundingVocabulary {
  /** The tokens whose text is exactly `text` (several may share one: a byte token and a piece). */
  tokensFor(text: string): readonly Token[] | undefined;
  /** The longest token text, in characters (bounds the lookups). */
  maxTokenChars: number;
  /**
   * Tokens that close a JSON string with what may follow it (`"`, `",`, `","`, `"}`, ...): all alike, so that closing
   * a value never favours ending the object over the next property.
   */
  stringClosers: readonly Token[];
  /** Tokens that end a number (`,`, `,"`, `}`, `]}`, ...), the same way. */
  valueClosers: readonly Token[];
  /** Tokens never sampled: never given a bonus (their "never" must stay). */
  banned: ReadonlySet<Token>;
  /**
   * What a handle keeps across calls (absent: nothing kept): the avoid texts (instructions, skill descriptions) are
   * the same on every step of a run, and the tokens that begin their spans take milliseconds to look up.
   */
  memo?: <T>(key: string, compute: () => T) => T;
}

/** The bias for the next token: none, a wrap-up (close the string / the value), or logit changes on some tokens. */
export type Steering =
  | { type: "none" }
  | { type: "close-string" }
  | { type: "close-value" }
  | { type: "bias"; logits: ReadonlyMap<Token, number> };

/** One generate call's grounding, as the loader takes it (GroundingOptions, plus the schema's enum/default values). */
export interface SteerSource {
  mode: Exclude<GroundingMode, "off">;
  /** Which parts act (see GroundingLever). Default: all of them. */
  levers?: readonly GroundingLever[];
  /** Rules turned off (see GROUNDING_RULES), and who is told which rules were asked (see RuleGate). */
  rulesOff?: readonly string[];
  onRule?: (rule: string) => void;
  source: readonly string[];
  /**
   * The call is one of a `calls` list over the question's items (GroundingOptions.items), its own item first in
   * `source`: what it reads is that item, no earlier call's result unless the item refers to one.
   */
  itemized?: boolean;
  /** In a `calls` list, the call before's arguments (each number or string as text): see ValueStart. */
  previous?: Readonly<Record<string, string>>;
  avoid?: readonly string[];
  /** Values the schema names (`enum`, `default`): spans a value may copy too. */
  schemaValues?: readonly string[];
  /** Each skill's optional argument keys, by skill name (see optionalArgumentKeys). */
  optionalKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's argument keys, by skill name (see skillArgumentKeys): whose anchored values a key leaves alone. */
  argumentKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's integer-typed argument keys, by skill name: only whole numerals are favoured for them. */
  integerKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's keys whose description asks for a percentage as such, by skill name: `5%` stays 5 for them. */
  percentKeys?: ReadonlyMap<string, readonly string[]>;
  /** The user's question, where `source` holds tool results too (see GroundingOptions.question). */
  question?: string;
  /** Each skill's keys typed `number` or `integer`, by skill name. */
  numericKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's keys that take an arithmetic expression (see formulaKey), by skill name. */
  formulaKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's optional keys and the values that ask for them (see askingValues), by skill name. */
  askedBy?: ReadonlyMap<string, Readonly<Record<string, readonly string[]>>>;
  /** Each skill's keys whose description spells a date format, with it (`yyyy-mm-dd`), by skill name. */
  dateFormats?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Each skill's keys that take a currency (see isCurrencyKey), by skill name. */
  currencyKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's number keys whose description names their unit ("(in miles)"), with it, by skill name. */
  keyUnits?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Each skill's string keys that take a kind of a noun (`room_type`: room), with the noun, by skill name. */
  kindNouns?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Each skill's number keys described as a polynomial's coefficient ("Coefficient of x^2."), with its power. */
  keyPowers?: ReadonlyMap<string, Readonly<Record<string, number>>>;
  /** Values earlier calls wrote (see GroundingOptions.taken): a numeral of them the source lacks gets a malus. */
  taken?: readonly string[];
  /** Final answers refused as the prompt's own text (see GroundingOptions.refused). */
  refused?: readonly string[];
  /** Values of calls that failed with an error that quotes them (see GroundingOptions.failed). */
  failed?: readonly FailedValue[];
}
