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
import { askingValues, quotedLiterals } from "./grounding-setup.js";

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
  const index = new GroundingIndex([text], { skipArticles: true });
  const byWords: string[][] = Array.from({ length: maxWords }, () => []);
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
        byWords[Math.max(words, 1) - 1].push(text.slice(start, p + 1));
    }
  }
  return byWords.flat();
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

  constructor(
    readonly spans: readonly string[],
    readonly numbers: readonly number[],
    texts: readonly string[],
    levers: readonly GroundingLever[],
  ) {
    this.#source = texts.join("\n").toLowerCase();
    this.#levers = new Set(levers);
    this.#stringBound = Math.max(GROUNDING_MIN_STRING_CHARS, ...texts.map((text) => text.length));
  }

  /**
   * How the source asks for an optional argument: `value` where it writes one of the values that ask for it (its enum
   * items, quoted literals, example words; see askingValues: "vegan" for `dietary_requirements`), `name` where it
   * writes every word of its name ("equal variance" for `equal_variance`, "calories" for `maxCalories`; words of 4
   * letters or more, by their first 6), else undefined.
   */
  #asked(key: string, node: unknown): "value" | "name" | undefined {
    const holds = (text: string) =>
      new RegExp(`(?<![\\p{L}\\p{N}])${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u").test(this.#source);
    if (askingValues(node).some((value) => holds(value.toLowerCase()))) return "value";
    const words = key
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 4);
    return words.length > 0 && words.every((word) => holds(word.slice(0, 6))) ? "name" : undefined;
  }

  /**
   * A skill's `arguments`: its values limited; an optional one the source does not ask for left out (a small model
   * fills one with a value of the question: `permeability: 5`), one it asks for by a value made required (in process,
   * soft grounding pushes the reply on to it; a schema can only require it).
   */
  #arguments(args: Node): Node {
    if (!isNode(args.properties)) return args;
    if (!this.#levers.has("copy")) return { ...args, properties: this.#values(args.properties, 0) };
    const required = new Set(Array.isArray(args.required) ? (args.required as string[]) : []);
    const asked = new Set<string>();
    const kept = Object.entries(args.properties).filter(([key, value]) => {
      if (required.has(key)) return true;
      const how = this.#asked(key, value);
      if (how === "value") asked.add(key);
      return how !== undefined;
    });
    if (kept.length < Object.keys(args.properties).length || asked.size > 0) this.limited++;
    const properties = this.#values(Object.fromEntries(kept), 0);
    return { ...args, properties, ...(asked.size > 0 && { required: [...required, ...asked] }) };
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
    if (node.type === "array" && isNode(node.items)) return { ...node, items: this.value(node.items, depth + 1) };
    if (node.type === "object" && isNode(node.properties))
      return { ...node, properties: this.#values(node.properties, depth + 1) };
    return node;
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

  /** A number: the source's numerals (an integer's: those that are integers), within its bounds; none: left alone. */
  #number(node: Node, integer: boolean): unknown {
    const min = typeof node.minimum === "number" ? node.minimum : -Infinity;
    const max = typeof node.maximum === "number" ? node.maximum : Infinity;
    const own = ownValues(node, "number") as number[];
    const plain = own.length === 0 && min === -Infinity && max === Infinity;
    const values = [...new Set([...this.numbers, ...own])].filter(
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
      return { ...record, properties: { ...properties, arguments: this.#arguments(properties.arguments) } };
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
  const numbers = [...new Set(new GroundingIndex(texts).numerals.map(Number).filter(Number.isFinite))];
  const grounder = new Grounder(spans, numbers, texts, grounding.levers ?? GROUNDING_LEVERS);
  const limited = grounder.action(schema, 0) as JsonSchema;
  if (grounder.limited === 0) return undefined;
  const defs: Node = { ...(isNode(schema.$defs) ? schema.$defs : {}) };
  if (grounder.usesSpans) defs[SPANS_DEF] = { type: "string", enum: spans };
  if (grounder.usesNumbers) defs[NUMBERS_DEF] = { type: "number", enum: numbers };
  if (grounder.usesIntegers) defs[INTEGERS_DEF] = { type: "integer", enum: numbers.filter(Number.isInteger) };
  return {
    schema: Object.keys(defs).length ? { ...limited, $defs: defs } : limited,
    strings: grounder.usesSpans ? spans.length : 0,
    numbers: numbers.length,
    limited: grounder.limited,
    capped,
  };
}
