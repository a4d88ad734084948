/**
 * Strict grounding as a request's own schema, for a model that samples where no per-token bias reaches (a model
 * server): each argument value of the action schema limited to what strict grounding allows in process (the spans of
 * the source, the question's numerals, the parameter's default and quoted values), written into the JSON Schema as
 * `enum`s. Any server that honours a schema then decodes under it, with no code on the server (input-dependent
 * grammars: Geng et al., EMNLP 2023).
 */
import type { JsonSchema } from "../../json-schema.js";
import { GROUNDING_LEVERS, type GroundingLever, type GroundingOptions } from "../model-handle.js";
import {
  GROUNDED_SCHEMA_MAX_BYTES,
  GROUNDED_SCHEMA_MAX_VALUES,
  GROUNDED_SPAN_MAX_CHARS,
  GROUNDED_SPAN_MAX_WORDS,
  GROUNDING_MIN_STRING_CHARS,
} from "./defaults.js";
import { GroundingIndex } from "./grounding-index.js";
import { askingValues, quotedLiterals, steerSource } from "./grounding-setup.js";
import { QuestionReading } from "./question-reading.js";
import { RuleGate } from "./rules.js";
import { percentOnlyNumerals, TEXT_JOINT } from "./grounding-words.js";

/** Bounds of one grounded schema (defaults: grounding/defaults.ts). */
export interface GroundedSchemaLimits {
  /** The most string values offered (shared by every string argument). */
  maxValues?: number;
  /** The most bytes those values take, JSON-encoded. */
  maxBytes?: number;
  /** The most words of one span. */
  maxSpanWords?: number;
  /** The most characters of one span. */
  maxSpanChars?: number;
}

/** A grounded schema, and what it holds. */
export interface GroundedSchema {
  schema: JsonSchema;
  /** String values offered (the spans), and numbers. */
  strings: number;
  numbers: number;
  /** Argument values limited (string, number and array-item schemas rewritten). */
  limited: number;
  /** Whether the source held more spans than the limits let in. */
  capped: boolean;
}

/** The `$defs` entries a grounded schema adds (names no skill schema uses). */
const SPANS_DEF = "gemma-agent-grounded-strings";
const NUMBERS_DEF = "gemma-agent-grounded-numbers";
const INTEGERS_DEF = "gemma-agent-grounded-integers";

const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** What a span may end with besides a word's last character: a closing bracket or quote, `%`, `+` and `#` (C++, C#). */
const SPAN_LAST = /[\p{L}\p{N}_)\]'"%+#]/u;
/** What a span may begin with besides a word's first character, where a word follows: an opening quote or bracket, a sign. */
const SPAN_OPENER = /['"([$\-+]/;
const QUOTES = new Set(["'", '"', "\u2018", "\u2019", "\u201C", "\u201D"]);

/** A quote mark, not an apostrophe inside a word ("It's"). */
const QUOTE_MARK = /(?<![\p{L}\p{N}])['"\u2018\u201C]|['"\u2019\u201D](?![\p{L}\p{N}])/gu;

/**
 * Whether a span keeps to the question's quotes: it holds no quote mark, or begins with one and ends with its close
 * (`'Ticket to Ride'`; not `delicious.'`, `Apple Inc.' from the year`, `game 'Legend`), and a closing bracket closes
 * one it opened.
 */
function balanced(span: string): boolean {
  const marks = [...span.matchAll(QUOTE_MARK)].map((m) => m.index);
  if (marks.length > 0 && !(marks.length === 2 && marks[0] === 0 && marks[1] === span.length - 1)) return false;
  const [first, last] = [span[0], span.at(-1)!];
  if ((first === "(" && last !== ")") || (first === "[" && last !== "]")) return false;
  return !(last === ")" && !span.includes("(")) && !(last === "]" && !span.includes("["));
}

/**
 * The word-bounded spans of `text` (each begins where a span of in-process grounding may, and ends at a word's end),
 * at most `maxWords` words and `maxChars` characters, none across a line: shorter ones first, then in order.
 */
export function textSpans(text: string, maxWords: number, maxChars: number): string[] {
  const byWords: string[][] = Array.from({ length: maxWords }, () => []);
  for (const { span, words } of spanEntries(text, maxWords, maxChars)) byWords[words - 1].push(span);
  return byWords.flat();
}

/** The spans of textSpans, in the order of their starts, each with its start in `text` and its words. */
function spanEntries(
  text: string,
  maxWords: number,
  maxChars: number,
): { start: number; span: string; words: number }[] {
  const index = new GroundingIndex([text], { skipArticles: true });
  const entries: { start: number; span: string; words: number }[] = [];
  for (const start of index.starts) {
    const first = text[start];
    if (!WORD_CHAR.test(first) && !(SPAN_OPENER.test(first) && WORD_CHAR.test(text[start + 1] ?? ""))) continue;
    if (QUOTES.has(first) && WORD_CHAR.test(text[start - 1] ?? "")) continue; // the "'s" of "It's"
    let words = 0;
    for (let p = start; p < text.length && p - start < maxChars; p++) {
      const ch = text[p];
      if (ch === "\n" || ch === "\r") break;
      // nor across a word that joins a value to the next part of the sentence ("New York | to Los Angeles"), outside
      // quotes ('Ticket to Ride'): where soft grounding's close bonus ends a value in process (endsAtBoundary)
      if (ch === " " && p > start && index.endsAtBoundary(p)) break;
      if (WORD_CHAR.test(ch) && (p === start || !WORD_CHAR.test(text[p - 1])) && ++words > maxWords) break;
      // a quoted sentence's own stop ("delicious." in 'I love ... delicious.') may end a span before its quote
      const last = SPAN_LAST.test(ch) || (/[.!?]/.test(ch) && QUOTES.has(text[p + 1] ?? ""));
      if (last && index.endsWord(p + 1) && balanced(text.slice(start, p + 1)))
        entries.push({ start, span: text.slice(start, p + 1), words: Math.max(words, 1) });
    }
  }
  return entries;
}

/**
 * Where each span of the source texts begins, in the text grounding reads (the texts joined by TEXT_JOINT, as
 * GroundingIndex joins them): span → its starts.
 */
function spanStarts(texts: readonly string[], limits: Required<GroundedSchemaLimits>): Map<string, number[]> {
  const starts = new Map<string, number[]>();
  let offset = 0;
  for (const text of texts) {
    for (const { start, span } of spanEntries(text, limits.maxSpanWords, limits.maxSpanChars)) {
      const list = starts.get(span);
      if (list) list.push(offset + start);
      else starts.set(span, [offset + start]);
    }
    offset += text.length + TEXT_JOINT.length;
  }
  return starts;
}

/** The spans of the source texts, in order (the first text's first), distinct, within the limits. */
function sourceSpans(
  texts: readonly string[],
  limits: Required<GroundedSchemaLimits>,
): { spans: string[]; capped: boolean } {
  const spans = new Set<string>();
  let bytes = 0;
  for (const text of texts)
    for (const span of textSpans(text, limits.maxSpanWords, limits.maxSpanChars)) {
      if (spans.has(span)) continue;
      const size = JSON.stringify(span).length + 1;
      if (spans.size >= limits.maxValues || bytes + size > limits.maxBytes) return { spans: [...spans], capped: true };
      spans.add(span);
      bytes += size;
    }
  return { spans: [...spans], capped: false };
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === "object" && !Array.isArray(value);

/** A number's description that asks for a percentage as such ("as a percentage"; not "in decimal form"). */
const askedAsPercent = (description: string) => /percent/i.test(description) && !/decimal/i.test(description);

/**
 * The source's numerals as numbers, distinct: `plain` as written; `fractions` with those the question writes only as a
 * percentage divided by 100 (the same list where there are none).
 */
function sourceNumbers(texts: readonly string[]): { plain: number[]; fractions: number[] } {
  const numerals = new GroundingIndex(texts).numerals.filter((numeral) => Number.isFinite(Number(numeral)));
  const plain = [...new Set(numerals.map(Number))];
  const percents = percentOnlyNumerals(texts[0] ?? "");
  if (!numerals.some((numeral) => percents.has(numeral))) return { plain, fractions: plain };
  const fraction = (numeral: string) => Number((Number(numeral) / 100).toPrecision(12));
  const fractions = [...new Set(numerals.map((n) => (percents.has(n) ? fraction(n) : Number(n))))];
  return { plain, fractions };
}

/** What a value schema's own words offer: its default and the literals its description quotes (not its examples). */
function ownValues(node: Node, kind: "string" | "number"): unknown[] {
  const values: unknown[] = [];
  if (kind === "string" ? typeof node.default === "string" : typeof node.default === "number")
    values.push(node.default);
  if (kind === "string" && typeof node.description === "string") values.push(...quotedLiterals(node.description));
  return values;
}

/** The rewriting of one schema's argument values. */
class Grounder {
  limited = 0;
  usesSpans = false;
  usesNumbers = false;
  usesIntegers = false;

  readonly #source: string;

  readonly #levers: ReadonlySet<GroundingLever>;
  readonly #stringBound: number;
  /** The most items a grounded list may hold (see #array). */
  readonly #listBounds: { numerals: number; items: number };

  constructor(
    readonly spans: readonly string[],
    readonly numbers: { plain: readonly number[]; fractions: readonly number[] },
    texts: readonly string[],
    levers: readonly GroundingLever[],
    readonly reading: QuestionReading,
    readonly starts: ReadonlyMap<string, readonly number[]> = new Map(),
  ) {
    this.#source = texts.join("\n").toLowerCase();
    this.#levers = new Set(levers);
    this.#stringBound = Math.max(GROUNDING_MIN_STRING_CHARS, ...texts.map((text) => text.length));
    const count = (pattern: RegExp) => texts.reduce((sum, text) => sum + (text.match(pattern)?.length ?? 0), 0);
    this.#listBounds = {
      numerals: Math.max(1, count(/\d+(?:[.,]\d+)*/g)),
      items: Math.max(1, count(/[,;]|(?<![\p{L}\p{N}])(?:and|or)(?![\p{L}\p{N}])/giu) + texts.length),
    };
  }

  /**
   * How the source asks for an optional argument: `value` where it writes one of the values that ask for it (its enum
   * items, quoted literals, example words; see askingValues: "vegan" for `dietary_requirements`), `name` where it
   * writes a word of its name, as in process (QuestionReading.named: a word of 4 letters or more that says what the
   * key holds, by its first 6: "variance" for `equal_variance`, "year" for `want_year`), else undefined.
   */
  #asked(skill: string, key: string, node: unknown): "value" | "name" | undefined {
    const holds = (text: string) =>
      new RegExp(`(?<![\\p{L}\\p{N}])${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u").test(this.#source);
    if (askingValues(node, key).some((value) => holds(value.toLowerCase()))) return "value";
    this.reading.text = `{"skill_name":${JSON.stringify(skill)},"arguments":{`;
    return this.reading.named(key) ? "name" : undefined;
  }

  /**
   * A skill's `arguments`: its values limited; an optional one the source does not ask for left out (a small model
   * fills one with a value of the question: `permeability: 5`), one it asks for by a value made required (in process,
   * soft grounding pushes the reply on to it; a schema can only require it).
   */
  #arguments(skill: string, args: Node): Node {
    if (!isNode(args.properties)) return args;
    if (!this.#levers.has("copy"))
      return { ...args, properties: this.#anchoredAll(skill, this.#values(args.properties, 0)) };
    const required = new Set(Array.isArray(args.required) ? (args.required as string[]) : []);
    const asked = new Set<string>();
    const kept = Object.entries(args.properties).filter(([key, value]) => {
      if (required.has(key)) return true;
      const how = this.#asked(skill, key, value);
      if (how !== undefined) asked.add(key);
      return how !== undefined;
    });
    if (kept.length < Object.keys(args.properties).length || asked.size > 0) this.limited++;
    const properties = this.#values(Object.fromEntries(kept), 0);
    for (const [key, node] of Object.entries(properties)) {
      if (!isNode(node) || Object.hasOwn(node, "enum") || Object.hasOwn(node, "const")) continue;
      // a flag the question names ("verify if it's already closed" for `closed_status`): true, false where it is
      // negated ("do not include"), as the `flag-true` rule favours it in process
      if (node.type === "boolean" && this.#asked(skill, key, node) === "name") {
        properties[key] = { ...node, enum: [this.reading.flagValue(key) !== "false"] };
        this.limited++;
      }
      // a list the question asks for by a value holds at least that value
      if (node.type === "array" && asked.has(key) && node.minItems === undefined)
        properties[key] = { ...node, minItems: 1 };
    }
    this.#anchoredAll(skill, properties);
    return { ...args, properties, ...(asked.size > 0 && { required: [...required, ...asked] }) };
  }

  /** Each of `properties` as the question reads it for its key (see #anchored), in place; returns them. */
  #anchoredAll(skill: string, properties: Node): Node {
    for (const [key, node] of Object.entries(properties)) {
      const anchored = this.#anchored(skill, key, node);
      if (anchored) properties[key] = anchored;
    }
    return properties;
  }

  /**
   * An argument's values as the question reads them for `key` (QuestionReading.anchors, as the `anchors` and
   * `other-keys-values` rules read them in process): a string's spans (see #anchoredString, with the `copy` lever), a
   * number's numerals: those it puts beside the key's word ("for 5 years" for `time_in_years`) where it puts any, else
   * its numerals less those it puts beside another key's word. In process these are a bonus and a malus; a schema can
   * only keep or leave out, so a key keeps its anchored values alone. Undefined: the value as it is.
   */
  #anchored(skill: string, key: string, node: unknown): Node | undefined {
    this.reading.text = `{"skill_name":${JSON.stringify(skill)},"arguments":{`;
    if (isNode(node) && this.#levers.has("copy")) {
      const text = this.#derived(key, node) ?? this.#anchoredString(key, node);
      if (text) return text;
    }
    const values = this.#numberValues(node);
    if (!values) return undefined;
    const q = this.reading;
    const fits = (numeral: string) => q.fits(key, numeral);
    const anchored = new Set(q.anchors(key).numerals.filter(fits).map(Number));
    const others = q.othersAnchors(key).numerals;
    let kept = values.filter((n) => anchored.has(n));
    if (kept.length === 0) kept = values.filter((n) => !others.has(String(n)));
    if (kept.length === 0 || kept.length === values.length) return undefined;
    const { $ref: _, ...rest } = node as Node;
    return {
      ...rest,
      type: isNode(node) && node.$ref === `#/$defs/${INTEGERS_DEF}` ? "integer" : (rest.type ?? "number"),
      enum: kept,
    };
  }

  /**
   * A string argument that takes the question's values in another form (a date in the form its description spells,
   * a currency's code; see QuestionReading.derivedValues): those values alone, as the `anchors` rule favours them
   * alone in process. The question's spans would hold only "June01 2023" for a date "in the format mm-dd-yyyy".
   */
  #derived(key: string, node: Node): Node | undefined {
    if (node.$ref !== `#/$defs/${SPANS_DEF}` && node.type !== "string") return undefined;
    const values = this.reading.derivedValues(key);
    if (values.length === 0 || !this.reading.r.on("anchors")) return undefined;
    const { $ref: _, ...rest } = node;
    return { ...rest, type: "string", enum: values };
  }

  /**
   * A string argument's spans as the question reads them for `key` (as #anchored reads numerals): those that begin
   * where it puts a value beside the key's word ("title 'David'" for `title`), its own values kept; where it puts
   * none, every span less those that begin only where it puts another key's value.
   */
  #anchoredString(key: string, node: Node): Node | undefined {
    const values: unknown[] | undefined =
      node.$ref === `#/$defs/${SPANS_DEF}`
        ? [...this.spans]
        : node.type === "string" && Array.isArray(node.enum)
          ? node.enum
          : undefined;
    if (!values) return undefined;
    const anchored = new Set(this.reading.anchors(key).starts);
    const others = this.reading.othersAnchors(key).starts;
    const at = (value: unknown) => (typeof value === "string" ? (this.starts.get(value) ?? []) : []);
    let kept = values.filter((value) => at(value).some((p) => anchored.has(p)));
    if (kept.length > 0) kept.push(...values.filter((value) => at(value).length === 0));
    else kept = values.filter((value) => at(value).length === 0 || at(value).some((p) => !others.has(p)));
    if (kept.length === 0 || kept.length === values.length) return undefined;
    const { $ref: _, ...rest } = node;
    return { ...rest, type: "string", enum: kept };
  }

  /** The numbers a grounded number schema offers (its own `enum`, or the shared list it refers to). */
  #numberValues(node: unknown): number[] | undefined {
    if (!isNode(node)) return undefined;
    if (node.$ref === `#/$defs/${NUMBERS_DEF}`) return [...this.numbers.fractions];
    if (node.$ref === `#/$defs/${INTEGERS_DEF}`) return this.numbers.plain.filter(Number.isInteger);
    const numeric = node.type === "number" || node.type === "integer";
    return numeric && Array.isArray(node.enum) && node.enum.every((v) => typeof v === "number") ? node.enum : undefined;
  }

  /** A value schema, limited where grounding limits it (a string, a number, an array's items, an object's values). */
  value(node: unknown, depth: number): unknown {
    if (!isNode(node) || depth > 16) return node;
    if (Object.hasOwn(node, "enum") || Object.hasOwn(node, "const") || Object.hasOwn(node, "$ref")) return node;
    if (Array.isArray(node.anyOf)) return { ...node, anyOf: node.anyOf.map((branch) => this.value(branch, depth + 1)) };
    if (node.type === "string")
      return this.#levers.has("copy") ? this.#string(node) : this.#levers.has("strings") ? this.#bounded(node) : node;
    if ((node.type === "number" || node.type === "integer") && this.#levers.has("numbers"))
      return this.#number(node, node.type === "integer");
    if (node.type === "array" && isNode(node.items)) return this.#array(node, this.value(node.items, depth + 1));
    if (node.type === "object" && isNode(node.properties))
      return { ...node, properties: this.#values(node.properties, depth + 1) };
    return node;
  }

  /**
   * An array, its items grounded: where they are (the source's numerals or spans), at most as many as the source can
   * list (its numerals as written, for numbers; its separators plus one, for strings), as the `lists` rule ends a list
   * where the question's ends in process (Gemma ran `"trait_values":[0.8,0.7,0.6,0.4,…]` to the token cap).
   */
  #array(node: Node, items: unknown): Node {
    if (items === node.items || !isNode(items)) return { ...node, items };
    const numeric = this.#numberValues(items) !== undefined;
    const most = numeric ? this.#listBounds.numerals : this.#listBounds.items;
    const max = typeof node.maxItems === "number" ? Math.min(node.maxItems, most) : most;
    const min = typeof node.minItems === "number" ? node.minItems : 0;
    return { ...node, items, ...(max >= min && { maxItems: max }) };
  }

  #values(properties: Node, depth: number): Node {
    return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, this.value(value, depth)]));
  }

  /** A string: the spans (a `$ref` to the shared list), or, where its own bounds or words differ, its own list. */
  #string(node: Node): unknown {
    // a pattern or format (a date, an email) writes what the question may not: left to it
    if (node.pattern !== undefined || node.format !== undefined || this.spans.length === 0) return node;
    const own = ownValues(node, "string").filter((value) => !this.spans.includes(value as string));
    const min = typeof node.minLength === "number" ? node.minLength : 0;
    const max = typeof node.maxLength === "number" ? node.maxLength : Infinity;
    if (own.length === 0 && min === 0 && max === Infinity) {
      this.limited++;
      this.usesSpans = true;
      return {
        $ref: `#/$defs/${SPANS_DEF}`,
        ...(typeof node.description === "string" && { description: node.description }),
      };
    }
    const values = [...this.spans, ...own].filter((v) => typeof v === "string" && v.length >= min && v.length <= max);
    if (values.length === 0) return node;
    this.limited++;
    const { minLength: _, maxLength: __, ...rest } = node;
    return { ...rest, enum: values };
  }

  /**
   * A string left free (the `copy` lever off): at most as long as the longest source text (and 32), as soft grounding's
   * `strings` lever bounds it in process; a pattern or a tighter bound of its own kept.
   */
  #bounded(node: Node): unknown {
    if (node.pattern !== undefined || node.format !== undefined) return node;
    if (typeof node.maxLength === "number" && node.maxLength <= this.#stringBound) return node;
    this.limited++;
    return { ...node, maxLength: this.#stringBound };
  }

  /**
   * A number: the source's numerals (an integer's: those that are integers), within its bounds; none: left alone. A
   * numeral the question writes only as a percentage ("an annual rate of 8%") is offered as its fraction (0.08), as the
   * `number-fits` rule reads it in process, unless the key is an integer or asks for a percentage as such.
   */
  #number(node: Node, integer: boolean): unknown {
    const min = typeof node.minimum === "number" ? node.minimum : -Infinity;
    const max = typeof node.maximum === "number" ? node.maximum : Infinity;
    const own = ownValues(node, "number") as number[];
    const percent = typeof node.description === "string" && askedAsPercent(node.description);
    const fractions = !integer && !percent && this.numbers.fractions !== this.numbers.plain;
    const plain = own.length === 0 && min === -Infinity && max === Infinity && (integer || !percent);
    const numbers = fractions ? this.numbers.fractions : this.numbers.plain;
    const values = [...new Set([...numbers, ...own])].filter(
      (n) => n >= min && n <= max && (!integer || Number.isInteger(n)),
    );
    if (values.length === 0) return node;
    this.limited++;
    if (plain) {
      if (integer) this.usesIntegers = true;
      else this.usesNumbers = true;
      return { $ref: `#/$defs/${integer ? INTEGERS_DEF : NUMBERS_DEF}` };
    }
    const { minimum: _, maximum: __, ...rest } = node;
    return { ...rest, enum: values };
  }

  /** The action schema, its skills' `arguments` values limited (a `calls` list's items too). */
  action(node: unknown, depth: number): unknown {
    if (depth > 32 || node === null || typeof node !== "object") return node;
    if (Array.isArray(node)) return node.map((item) => this.action(item, depth + 1));
    const record = node as Node;
    const properties = record.properties as Node | undefined;
    if (isNode(properties) && isNode(properties.skill_name) && isNode(properties.arguments)) {
      const skill = typeof properties.skill_name.const === "string" ? properties.skill_name.const : "";
      return { ...record, properties: { ...properties, arguments: this.#arguments(skill, properties.arguments) } };
    }
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, this.action(value, depth + 1)]));
  }
}

/**
 * The action schema `schema` with each argument value limited as strict grounding limits it in process: a string to
 * the source's word-bounded spans (at most `maxValues` of them, the first source text's and the shorter ones first)
 * and its own default and quoted values; a number to the source's numerals (an integer to the whole ones) and its
 * default, within its bounds. A value whose schema already fixes it (an `enum`, a `const`, a `pattern`, a `format`)
 * is left alone, as is one the source holds nothing for (a number where the question has no numeral). The final
 * answer stays free text. Undefined when grounding is off or the source is empty: the schema as it is.
 */
export function groundedSchema(
  schema: JsonSchema,
  grounding: GroundingOptions | undefined,
  limits: GroundedSchemaLimits = {},
): GroundedSchema | undefined {
  if (!grounding || grounding.mode === "off") return undefined;
  const texts = (grounding.source ?? []).filter(
    (text): text is string => typeof text === "string" && text.trim() !== "",
  );
  if (texts.length === 0) return undefined;
  const bounds = {
    maxValues: limits.maxValues ?? GROUNDED_SCHEMA_MAX_VALUES,
    maxBytes: limits.maxBytes ?? GROUNDED_SCHEMA_MAX_BYTES,
    maxSpanWords: limits.maxSpanWords ?? GROUNDED_SPAN_MAX_WORDS,
    maxSpanChars: limits.maxSpanChars ?? GROUNDED_SPAN_MAX_CHARS,
  };
  const { spans, capped } = sourceSpans(texts, bounds);
  const numbers = sourceNumbers(texts);
  const mode = grounding.mode === "strict" ? "strict" : "soft";
  const source = steerSource({ ...grounding, mode }, schema);
  const index = new GroundingIndex([...source.source, ...(source.schemaValues ?? [])], { skipArticles: true });
  const reading = new QuestionReading(source, index, new RuleGate(source.rulesOff));
  const starts = spanStarts(source.source, bounds);
  const grounder = new Grounder(spans, numbers, texts, grounding.levers ?? GROUNDING_LEVERS, reading, starts);
  const limited = grounder.action(schema, 0) as JsonSchema;
  if (grounder.limited === 0) return undefined;
  const defs: Node = { ...(isNode(schema.$defs) ? schema.$defs : {}) };
  if (grounder.usesSpans) defs[SPANS_DEF] = { type: "string", enum: spans };
  if (grounder.usesNumbers) defs[NUMBERS_DEF] = { type: "number", enum: numbers.fractions };
  if (grounder.usesIntegers) defs[INTEGERS_DEF] = { type: "integer", enum: numbers.plain.filter(Number.isInteger) };
  return {
    schema: Object.keys(defs).length ? { ...limited, $defs: defs } : limited,
    strings: grounder.usesSpans ? spans.length : 0,
    numbers: numbers.plain.length,
    limited: grounder.limited,
    capped,
  };
}
