import type { JsonSchema } from "../model-handle.js";
import {
  MAX_REFERENCE_KEY_LENGTH,
  MAX_REFERENCE_PATH_SEGMENTS,
  parseCallReferencePattern,
} from "../../call-reference-pattern.js";
import { integerRangeGbnf, MAX_INTEGER_DIGITS } from "./gbnf-integer-range.js";

/** A JSON Schema the grammar compiler cannot turn into GBNF (a caller bug: fix the schema). */
export class JsonSchemaGrammarError extends Error {
  override readonly name = "JsonSchemaGrammarError";
}

/** Digits after the decimal point of an unbounded number: enough for a double, and a random model cannot run away. */
const MAX_FRACTION_DIGITS = 16;

/** Characters JavaScript's `\s` matches: a non-blank string (`pattern: "\\S"`) must begin with none of them. */
const BLANK_CLASS = String.raw`\x00-\x20\x7F\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF`;

/** `pattern`s that mean "contains a non-whitespace character"; any other pattern is not enforced by the grammar. */
const NON_BLANK_PATTERNS = new Set([
  String.raw`\S`,
  String.raw`\S+`,
  String.raw`.*\S.*`,
  String.raw`^.*\S.*$`,
  String.raw`[^\s]`,
  String.raw`^(?!\s*$).+`,
]);

const PRIMITIVES: Record<string, string> = {
  char: String.raw`[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})`,
  "nonblank-char": String.raw`[^"\\${BLANK_CLASS}] | "\\" ["\\/]`,
  string: String.raw`"\"" char* "\""`,
  "int-part": `"0" | [1-9] [0-9]{0,${MAX_INTEGER_DIGITS - 1}}`,
  number: `"-"? int-part ("." [0-9]{1,${MAX_FRACTION_DIGITS}})? ([eE] [-+]? [0-9]{1,2})?`,
  integer: `"-"? int-part`,
  boolean: `"true" | "false"`,
  null: `"null"`,
  value: `object | array | string | number | boolean | null`,
  object: String.raw`"{" (string ":" value ("," string ":" value)*)? "}"`,
  array: `"[" (value ("," value)*)? "]"`,
};
/** Which primitives each primitive needs. */
const PRIMITIVE_DEPENDENCIES: Record<string, string[]> = {
  string: ["char"],
  number: ["int-part"],
  integer: ["int-part"],
  value: ["object", "array", "string", "number", "boolean", "null"],
  object: ["string", "value"],
  array: ["value"],
};

/** Quote text as a GBNF string literal. */
export function gbnfLiteral(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A JSON value as a GBNF literal of its compact JSON text. */
function jsonLiteral(value: unknown): string {
  return gbnfLiteral(JSON.stringify(value));
}

type Schema = JsonSchema | boolean;
const KNOWN_TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own<T = unknown>(schema: JsonSchema, key: string): T | undefined {
  return Object.hasOwn(schema, key) ? (schema[key] as T) : undefined;
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Join the non-empty parts of a GBNF sequence. */
function seq(...parts: string[]): string {
  return parts.filter((p) => p !== "").join(" ");
}

/** The GBNF repetition suffix for `min..max` occurrences (`max` undefined = unbounded); never called with max 0. */
function repetition(min: number, max: number | undefined): string {
  if (max === undefined) return min === 0 ? "*" : min === 1 ? "+" : `{${min},}`;
  if (min === max) return min === 1 ? "" : `{${min}}`;
  return min === 0 && max === 1 ? "?" : `{${min},${max}}`;
}

/** Integer bounds of a schema as BigInts (`null` = open), from minimum/maximum and their exclusive forms. */
function integerBounds(schema: JsonSchema): {
  lo: bigint | null;
  hi: bigint | null;
  loNumber?: number;
  hiNumber?: number;
  loExclusive: boolean;
  hiExclusive: boolean;
} {
  let loNumber = finiteNumber(own(schema, "minimum"));
  let hiNumber = finiteNumber(own(schema, "maximum"));
  let loExclusive = false;
  let hiExclusive = false;
  const exMin = own(schema, "exclusiveMinimum");
  const exMax = own(schema, "exclusiveMaximum");
  if (exMin === true) loExclusive = loNumber !== undefined;
  else if (finiteNumber(exMin) !== undefined && (loNumber === undefined || (exMin as number) >= loNumber))
    [loNumber, loExclusive] = [exMin as number, true];
  if (exMax === true) hiExclusive = hiNumber !== undefined;
  else if (finiteNumber(exMax) !== undefined && (hiNumber === undefined || (exMax as number) <= hiNumber))
    [hiNumber, hiExclusive] = [exMax as number, true];
  const lo = loNumber === undefined ? null : BigInt(loExclusive ? Math.floor(loNumber) + 1 : Math.ceil(loNumber));
  const hi = hiNumber === undefined ? null : BigInt(hiExclusive ? Math.ceil(hiNumber) - 1 : Math.floor(hiNumber));
  return { lo, hi, loNumber, hiNumber, loExclusive, hiExclusive };
}

/** Compiles one schema into a set of named GBNF rules. */
class GbnfBuilder {
  readonly #rules = new Map<string, string>();
  readonly #byBody = new Map<string, string>();
  readonly #refs = new Map<string, string>();
  readonly #root: JsonSchema;

  constructor(root: JsonSchema) {
    this.#root = root;
  }

  /** The grammar text, `root` first, one rule per line, rules that `root` cannot reach left out. */
  render(rootExpression: string): string {
    const reachable = new Set<string>();
    const pending = [rootExpression];
    while (pending.length > 0) {
      // Rule references are the bare words of a body once string literals and character classes are removed.
      const body = pending.pop()!.replace(/"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|\{[0-9,]*\}/g, " ");
      for (const name of body.match(/[A-Za-z0-9-]+/g) ?? []) {
        if (!reachable.has(name) && this.#rules.has(name)) {
          reachable.add(name);
          pending.push(this.#rules.get(name)!);
        }
      }
    }
    const lines = [`root ::= ${rootExpression}`];
    for (const [name, body] of this.#rules) if (reachable.has(name)) lines.push(`${name} ::= ${body}`);
    return `${lines.join("\n")}\n`;
  }

  primitive(name: string): string {
    if (!this.#rules.has(name)) {
      this.#rules.set(name, "");
      for (const dep of PRIMITIVE_DEPENDENCIES[name] ?? []) this.primitive(dep);
      this.#rules.set(name, PRIMITIVES[name]);
    }
    return name;
  }

  #uniqueName(hint: string): string {
    const base =
      hint
        .replace(/[^A-Za-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .toLowerCase()
        .slice(0, 40) || "r";
    let name = `s-${base}`;
    for (let i = 2; this.#rules.has(name); i++) name = `s-${base}-${i}`;
    return name;
  }

  /** A named rule for `body` (the same body always gets the same name). */
  rule(hint: string, body: string): string {
    if (/^[A-Za-z0-9-]+$/.test(body) && this.#rules.has(body)) return body;
    const existing = this.#byBody.get(body);
    if (existing) return existing;
    const name = this.#uniqueName(hint);
    this.#rules.set(name, body);
    this.#byBody.set(body, name);
    return name;
  }

  /** A rule expression (usually a rule name) that matches exactly the compact JSON texts this builder allows. */
  compile(schema: Schema, hint: string): string {
    if (schema === true) return this.primitive("value");
    if (schema === false)
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: schema at "${hint}" is false: no value can match it`);
    if (!isObject(schema))
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: schema at "${hint}" is not an object or boolean`);

    const ref = own<string>(schema, "$ref");
    if (ref !== undefined) return this.#compileRef(ref, hint);

    if (Object.hasOwn(schema, "const")) return this.rule(hint, jsonLiteral(schema.const));
    const enumValues = own<unknown[]>(schema, "enum");
    if (enumValues !== undefined) {
      if (!Array.isArray(enumValues) || enumValues.length === 0)
        throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: "enum" at "${hint}" must be a non-empty array`);
      return this.rule(hint, [...new Set(enumValues.map((v) => jsonLiteral(v)))].join(" | "));
    }

    const allOf = own<Schema[]>(schema, "allOf");
    if (Array.isArray(allOf)) {
      const { allOf: _, ...rest } = schema;
      return this.compile(
        allOf.reduce<JsonSchema>((merged, part) => mergeSchemas(merged, part, hint), rest),
        hint,
      );
    }

    const branches = own<Schema[]>(schema, "anyOf") ?? own<Schema[]>(schema, "oneOf");
    if (branches !== undefined) {
      if (!Array.isArray(branches) || branches.length === 0)
        throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: "anyOf"/"oneOf" at "${hint}" must be a non-empty array`);
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      const hasRest = Object.keys(rest).some((k) => !ANNOTATIONS.has(k));
      const alternatives = branches.map((branch, i) =>
        this.compile(hasRest && isObject(branch) ? { ...rest, ...branch } : branch, `${hint}-${i}`),
      );
      return this.rule(hint, [...new Set(alternatives)].join(" | "));
    }

    const types = this.#types(schema, hint);
    if (types === undefined) return this.primitive("value");
    const alternatives = types.map((type) =>
      this.#compileType(type, schema, types.length > 1 ? `${hint}-${type}` : hint),
    );
    return alternatives.length === 1 ? alternatives[0] : this.rule(hint, alternatives.join(" | "));
  }

  #types(schema: JsonSchema, hint: string): string[] | undefined {
    const declared = own(schema, "type");
    let types: string[] | undefined;
    if (typeof declared === "string") types = [declared];
    else if (Array.isArray(declared)) types = declared.map(String);
    else if (declared !== undefined)
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: "type" at "${hint}" must be a string or an array of strings`);
    else if (["properties", "required", "additionalProperties"].some((k) => Object.hasOwn(schema, k)))
      types = ["object"];
    else if (["items", "prefixItems", "minItems", "maxItems"].some((k) => Object.hasOwn(schema, k))) types = ["array"];
    else if (["minLength", "maxLength", "pattern"].some((k) => Object.hasOwn(schema, k))) types = ["string"];
    else if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].some((k) => Object.hasOwn(schema, k)))
      types = ["number"];
    if (types === undefined) return undefined;
    for (const type of types) {
      if (!KNOWN_TYPES.has(type))
        throw new JsonSchemaGrammarError(
          `jsonSchemaToGbnf: unknown type "${type}" at "${hint}" (map Python-style types first, e.g. bfclToJsonSchema)`,
        );
    }
    if (schema.nullable === true && !types.includes("null")) types = [...types, "null"];
    return [...new Set(types)];
  }

  #compileType(type: string, schema: JsonSchema, hint: string): string {
    switch (type) {
      case "string":
        return this.#compileString(schema, hint);
      case "integer":
        return this.#compileInteger(schema, hint);
      case "number":
        return this.#compileNumber(schema, hint);
      case "boolean":
        return this.primitive("boolean");
      case "null":
        return this.primitive("null");
      case "object":
        return this.#compileObject(schema, hint);
      default:
        return this.#compileArray(schema, hint);
    }
  }

  #compileRef(ref: string, hint: string): string {
    const known = this.#refs.get(ref);
    if (known) return known;
    let target: unknown;
    if (ref === "#") target = this.#root;
    else {
      const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
      const defs = match ? own<Record<string, unknown>>(this.#root, match[1]) : undefined;
      const key = match?.[2].replace(/~1/g, "/").replace(/~0/g, "~");
      target = defs && key !== undefined && Object.hasOwn(defs, key) ? defs[key] : undefined;
    }
    if (target === undefined)
      throw new JsonSchemaGrammarError(
        `jsonSchemaToGbnf: cannot resolve "$ref": "${ref}" at "${hint}" (only "#", "#/$defs/..." and "#/definitions/...")`,
      );
    const name = this.#uniqueName(`ref-${ref.split("/").pop()}`);
    this.#refs.set(ref, name);
    this.#rules.set(name, "");
    this.#rules.set(name, this.compile(target as Schema, name));
    return name;
  }

  #compileString(schema: JsonSchema, hint: string): string {
    const minLength = Math.max(0, Math.floor(finiteNumber(own(schema, "minLength")) ?? 0));
    const maxRaw = finiteNumber(own(schema, "maxLength"));
    const maxLength = maxRaw === undefined ? undefined : Math.floor(maxRaw);
    const pattern = own<string>(schema, "pattern");
    const earlierCalls = typeof pattern === "string" ? parseCallReferencePattern(pattern) : undefined;
    if (earlierCalls !== undefined) return this.#compileCallReference(earlierCalls, hint);
    const nonBlank = typeof pattern === "string" && NON_BLANK_PATTERNS.has(pattern);
    if (maxLength !== undefined && (maxLength < minLength || (nonBlank && maxLength < 1))) {
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: string at "${hint}" cannot satisfy its length bounds`);
    }
    if (!nonBlank && minLength === 0 && maxLength === undefined) return this.primitive("string");
    if (maxLength === 0) return this.rule(hint, gbnfLiteral('""'));
    this.primitive("char");
    if (!nonBlank) return this.rule(hint, `"\\"" char${repetition(minLength, maxLength)} "\\""`);
    this.primitive("nonblank-char");
    const rest =
      maxLength === 1
        ? ""
        : `char${repetition(Math.max(0, minLength - 1), maxLength === undefined ? undefined : maxLength - 1)}`;
    return this.rule(hint, seq(`"\\""`, "nonblank-char", rest, `"\\""`));
  }

  /** `"calls[i].result.key[0]..."` with i below `earlierCalls` (see call-reference-pattern.ts). */
  #compileCallReference(earlierCalls: number, hint: string): string {
    const key = `[A-Za-z_$] [A-Za-z0-9_$-]{0,${MAX_REFERENCE_KEY_LENGTH - 1}}`;
    const segment = `("." ${key} | "[" [0-9]{1,6} "]")`;
    return this.rule(
      hint,
      `"\\"calls[" [0-${earlierCalls - 1}] "].result" ${segment}{0,${MAX_REFERENCE_PATH_SEGMENTS}} "\\""`,
    );
  }

  #compileInteger(schema: JsonSchema, hint: string): string {
    const { lo, hi } = integerBounds(schema);
    if (lo === null && hi === null) return this.primitive("integer");
    const body = integerRangeGbnf(lo, hi);
    if (body === null)
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: no integer satisfies the bounds at "${hint}"`);
    return this.rule(hint, body);
  }

  /**
   * Numbers with bounds: the integers in range, plus decimals `i.ddd` whose whole unit interval lies in range (a
   * subset of the valid numbers that a grammar can state exactly; no exponent).
   */
  #compileNumber(schema: JsonSchema, hint: string): string {
    const { lo, hi, loNumber, hiNumber } = integerBounds(schema);
    if (loNumber === undefined && hiNumber === undefined) return this.primitive("number");
    const fraction = `"." [0-9]{1,${MAX_FRACTION_DIGITS}}`;
    const alternatives: string[] = [];
    const integers = integerRangeGbnf(lo, hi);
    if (integers !== null) alternatives.push(`(${integers})`);
    // i.ddd with i >= 0 lies in [i, i+1): needs i to satisfy the lower bound and i+1 <= maximum.
    const positiveFrom = lo === null || lo < 0n ? 0n : lo;
    const positiveTo = hiNumber === undefined ? null : BigInt(Math.floor(hiNumber)) - 1n;
    if (positiveTo === null || positiveFrom <= positiveTo) {
      const whole = integerRangeGbnf(positiveFrom, positiveTo);
      if (whole !== null) alternatives.push(`(${whole}) ${fraction}`);
    }
    // -i.ddd with i >= 0 lies in (-(i+1), -i]: needs -(i+1) >= minimum and -i to satisfy the upper bound.
    const negativeFrom = hi === null || hi >= 0n ? 0n : -hi;
    const negativeTo = loNumber === undefined ? null : BigInt(-Math.ceil(loNumber)) - 1n;
    if (negativeTo === null || negativeFrom <= negativeTo) {
      const whole = integerRangeGbnf(negativeFrom, negativeTo);
      if (whole !== null) alternatives.push(`"-" (${whole}) ${fraction}`);
    }
    if (alternatives.length === 0)
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: no number satisfies the bounds at "${hint}"`);
    return this.rule(hint, alternatives.join(" | "));
  }

  #compileObject(schema: JsonSchema, hint: string): string {
    const properties = own<Record<string, Schema>>(schema, "properties") ?? {};
    if (!isObject(properties))
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: "properties" at "${hint}" must be an object`);
    const required = new Set((own<unknown[]>(schema, "required") ?? []).map(String));
    const keys = Object.keys(properties);
    for (const name of required) if (!keys.includes(name)) keys.push(name);

    if (keys.length === 0 && !Object.hasOwn(schema, "properties")) {
      // No `properties` at all: a free-form map, values per additionalProperties (any value when absent or true).
      const additional = own<Schema>(schema, "additionalProperties");
      if (additional === false) return this.rule(hint, `"{" "}"`);
      const value =
        additional === undefined || additional === true
          ? this.primitive("value")
          : this.compile(additional, `${hint}-value`);
      const key = this.primitive("string");
      return this.rule(hint, `"{" (${key} ":" ${value} ("," ${key} ":" ${value})*)? "}"`);
    }

    if (keys.length === 0) return this.rule(hint, `"{" "}"`);
    // Declared properties only, in declared order; optional ones may be left out. rest[i]: properties i.. after at
    // least one was written (each present one preceded by a comma); first[i]: properties i.. with none written yet.
    const pairs = keys.map((key) => {
      const valueSchema = Object.hasOwn(properties, key) ? properties[key] : true;
      return `${gbnfLiteral(`${JSON.stringify(key)}:`)} ${this.compile(valueSchema, `${hint}-${key}`)}`;
    });
    let rest = "";
    let first = "";
    for (let i = keys.length - 1; i >= 0; i--) {
      const pair = pairs[i];
      const nextRest = rest;
      if (required.has(keys[i])) {
        rest = seq(`","`, pair, nextRest);
        first = seq(pair, nextRest);
      } else {
        rest = seq(`("," ${pair})?`, nextRest);
        first =
          first === ""
            ? `(${seq(pair, nextRest)})?`
            : `(${seq(pair, nextRest)} | ${this.rule(`${hint}-from-${keys[i + 1]}`, first)})`;
      }
      if (i > 0) rest = this.rule(`${hint}-after-${keys[i]}`, rest);
    }
    return this.rule(hint, `"{" ${first} "}"`);
  }

  #compileArray(schema: JsonSchema, hint: string): string {
    const minItems = Math.max(0, Math.floor(finiteNumber(own(schema, "minItems")) ?? 0));
    const maxRaw = finiteNumber(own(schema, "maxItems"));
    const maxItems = maxRaw === undefined ? undefined : Math.floor(maxRaw);
    if (maxItems !== undefined && maxItems < minItems)
      throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: array at "${hint}" cannot satisfy its length bounds`);
    const prefixItems = own<Schema[]>(schema, "prefixItems") ?? [];
    const items = own<Schema>(schema, "items");

    if (prefixItems.length > 0) {
      // A tuple: the prefix items in order (those past minItems optional, as many as maxItems allows), then further
      // items when `items` allows them.
      const count = Math.min(prefixItems.length, maxItems ?? prefixItems.length);
      if (count < minItems && items === false)
        throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: tuple at "${hint}" cannot reach minItems`);
      const parts = prefixItems.slice(0, count).map((item, i) => this.compile(item, `${hint}-${i}`));
      let tail = "";
      if (items !== false && (maxItems === undefined || maxItems > count)) {
        const item = this.compile(items ?? true, `${hint}-item`);
        tail = `("," ${item})${repetition(Math.max(0, minItems - count), maxItems === undefined ? undefined : maxItems - count)}`;
      }
      // From the last part back: part i is required when i < minItems, else optional with everything after it.
      let rest = tail;
      for (let i = count - 1; i >= 0; i--) {
        const part = seq(i === 0 ? "" : '","', parts[i], rest);
        rest = i < minItems ? part : `(${part})?`;
      }
      return this.rule(hint, seq(`"["`, rest, `"]"`));
    }

    if (maxItems === 0 || items === false) {
      if (minItems > 0)
        throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: array at "${hint}" allows no items but needs ${minItems}`);
      return this.rule(hint, `"[" "]"`);
    }
    const item = this.compile(items ?? true, `${hint}-item`);
    const more = (min: number) =>
      maxItems === 1 ? "" : `("," ${item})${repetition(min, maxItems === undefined ? undefined : maxItems - 1)}`;
    if (minItems === 0) return this.rule(hint, `"[" (${seq(item, more(0))})? "]"`);
    return this.rule(hint, seq(`"["`, item, more(minItems - 1), `"]"`));
  }
}

/** Keywords that say nothing about which values are valid. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "$schema",
  "$id",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$defs",
  "definitions",
]);

/** Shallow merge for `allOf`: properties merged, `required` united, other keywords from the later part win. */
function mergeSchemas(a: JsonSchema, b: Schema, hint: string): JsonSchema {
  if (b === true) return a;
  if (b === false || !isObject(b))
    throw new JsonSchemaGrammarError(`jsonSchemaToGbnf: "allOf" at "${hint}" holds a schema no value matches`);
  const merged: JsonSchema = { ...a, ...b };
  const pa = own<JsonSchema>(a, "properties");
  const pb = own<JsonSchema>(b, "properties");
  if (pa || pb) merged.properties = { ...pa, ...pb };
  const ra = own<string[]>(a, "required") ?? [];
  const rb = own<string[]>(b, "required") ?? [];
  if (ra.length + rb.length > 0) merged.required = [...new Set([...ra, ...rb])];
  return merged;
}

/**
 * Compile a JSON Schema into a GBNF grammar (llama.cpp's grammar format) that produces compact JSON: no newline, no
 * indentation, no space, and nothing after the value, so a constrained model spends its tokens on content and stops
 * (end of generation is the only thing a completed grammar allows).
 *
 * Every text the grammar accepts is valid JSON that satisfies the schema, for this subset: `type` (also arrays of
 * types, and `nullable`), `const`, `enum`, `anyOf` / `oneOf` (oneOf's exclusivity is not enforced), `allOf` of object
 * schemas, `$ref` to `#`, `#/$defs/*` or `#/definitions/*`, objects (`properties` in declared order, `required`;
 * undeclared keys are never written, so `properties: {}` means `{}`; without `properties`, a free-form map valued
 * by `additionalProperties`), arrays (`items`, `prefixItems`, `minItems`, `maxItems`), strings (`minLength`, `maxLength`, and the non-blank pattern `\S`,
 * met by starting with a non-blank character), integers and numbers with `minimum` / `maximum` / exclusive bounds
 * (exact; bounded numbers have no exponent), booleans, null, and `{}` / `true` (any JSON value).
 * Not enforced (the grammar then accepts more than the schema): other `pattern`s, `format`, `multipleOf`,
 * `uniqueItems`, `minProperties` / `maxProperties`, `not`, conditionals. Unbounded numbers are capped at
 * {@link MAX_INTEGER_DIGITS} integer digits, 16 decimals and a 2-digit exponent so a runaway model cannot spin.
 *
 * Throws {@link JsonSchemaGrammarError} for a schema nothing can satisfy, an unknown `type`, or an unresolvable `$ref`.
 */
export function jsonSchemaToGbnf(schema: JsonSchema | boolean): string {
  const builder = new GbnfBuilder(isObject(schema) ? schema : {});
  const root = builder.compile(schema, "root");
  return builder.render(root);
}
