/**
 * The cases of the differential fuzzer of our GBNF matcher against llama.cpp's grammar (issue 42): JSON Schemas of
 * the shapes BFCL lacks (nested `anyOf`, `pattern`, `minItems` / `maxItems`, string escapes and unicode in keys and
 * values, `$ref` with recursion, empty objects, long enums, `const`, enums of mixed types, integer and number ranges,
 * nullable types, `additionalProperties`, required and optional properties, nested arrays, tuples, `allOf`, string
 * formats), schemas the compiler must refuse, and texts: walked through our matcher (valid, free choices at random),
 * then perhaps mutated (a character changed, inserted, deleted, or the text cut), or random.
 *
 * Shared by test/reliability/matcher-fuzz.test.ts (seeded, bounded) and scripts/fuzz-matcher.ts (the long run);
 * matcher-fuzz-oracle.ts asks both sides about each text.
 */
import fc from "fast-check";
import { callReferencePattern } from "../../src/call-reference-pattern.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import type { ParsedGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import type { JsonSchemaGrammarErrorCode } from "../../src/model/gbnf/json-schema-keywords.js";
import type { JsonSchema } from "../../src/json-schema.js";

/** Characters that JSON escapes or that sit on the edges of the grammar's character classes. */
const AWKWARD = ['"', "\\", "/", "\n", "\t", "\r", "\b", "\f", "\u0001", "\u001f", "\u007f", "\u0080", "\u00a0"];
const UNICODE = ["é", "ß", "中", "😀", "\u2028", "\u3000", "\ufeff", "\u00e9\u0301", "𝄞"];
const PLAIN = Array.from("abcxyzAZ019 _-.:,{}[]#$");

/**
 * What a walk or a mutation may write: JSON's structure, digits, letters, escapes, control and non-ASCII characters,
 * blanks (U+0000 left out: llama.cpp never lets a token piece start with it, and no compiled grammar allows it).
 */
const BASE_ALPHABET = [
  ...new Set([
    ...Array.from('{}[]",:.-+0123456789eEabcdfnrtuxyzABFTZ \\/_'),
    ...AWKWARD,
    ...Array.from(UNICODE.join("")),
  ]),
];

/** How a walk closes a text once its free choices are spent: what ends strings, objects and arrays first. */
const CLOSERS = Array.from('"}]0a1te,:[{.-');

/** Short text for keys, enum and const values: mostly plain, with escapes and unicode mixed in. */
const shortText = fc.string({
  unit: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PLAIN) }, fc.constantFrom(...AWKWARD, ...UNICODE)),
  maxLength: 6,
});

/** A JSON value for `const` and `enum`: strings with escapes and unicode, integers, decimals, nested values. */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 2, depthIdentifier: "json-value" },
    shortText,
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
    fc.constantFrom(true, false, null, 0, -1, 1e21, 1.5e-7),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(shortText, tie("value"), { maxKeys: 3 }),
  ),
})).value;

/** Drop the keys whose value is undefined (fast-check records give them when a key is optional). */
function defined(record: Record<string, unknown>): JsonSchema {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

const smallCount = fc.nat({ max: 4 });

const stringSchema: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc
    .tuple(fc.option(smallCount, { nil: undefined }), fc.option(fc.nat({ max: 8 }), { nil: undefined }))
    .map(([minLength, extra]) =>
      defined({ type: "string", minLength, maxLength: extra === undefined ? undefined : (minLength ?? 0) + extra }),
    ),
  fc
    .tuple(
      fc.constantFrom(String.raw`\S`, String.raw`^.*\S.*$`, String.raw`[^\s]`, "^[a-z]+$", "x{2}"),
      fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    )
    .map(([pattern, maxLength]) => defined({ type: "string", pattern, maxLength })),
  // long bounds: llama.cpp unrolls `char{m,n}` into nested rules, our matcher counts repetitions
  fc
    .tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 300 }))
    .map(([minLength, extra]) => ({ type: "string", minLength, maxLength: minLength + extra })),
  fc.integer({ min: 1, max: 3 }).map((calls) => ({ type: "string", pattern: callReferencePattern(calls) })),
  fc.constantFrom("date", "time", "date-time", "uuid", "email").map((format) => ({ type: "string", format })),
);

/** Bounds as JSON Schema writes them: inclusive, exclusive (numbers, or draft 4's booleans), fractional. */
const bound = fc.oneof(
  fc.integer({ min: -30, max: 30 }),
  fc.integer({ min: -2_000_000, max: 2_000_000 }),
  fc.constantFrom(0, -1, 9, 10, 99, 100, 1e15, -9007199254740991, 9007199254740991),
  fc.double({ min: -100, max: 100, noNaN: true }).map((x) => Math.round(x * 4) / 4),
);

function numericSchema(type: "integer" | "number"): fc.Arbitrary<JsonSchema> {
  return fc
    .record(
      {
        lo: bound,
        width: fc.oneof(fc.nat({ max: 20 }), fc.nat({ max: 100_000 })),
        lower: fc.constantFrom("minimum", "exclusiveMinimum", "draft4", "none"),
        upper: fc.constantFrom("maximum", "exclusiveMaximum", "draft4", "none"),
      },
      { requiredKeys: ["lo", "width", "lower", "upper"] },
    )
    .map(({ lo, width, lower, upper }) => {
      const schema: JsonSchema = { type };
      const hi = lo + width;
      if (lower === "draft4") Object.assign(schema, { minimum: lo, exclusiveMinimum: true });
      else if (lower !== "none") schema[lower] = lo;
      if (upper === "draft4") Object.assign(schema, { maximum: hi + 1, exclusiveMaximum: true });
      else if (upper !== "none") schema[upper] = hi + 1;
      return schema;
    });
}

const enumSchema: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc.array(jsonValue, { minLength: 1, maxLength: 6 }).map((values) => ({ enum: values })),
  // a long enum of strings sharing prefixes, as tool schemas list units, countries, or ids
  fc
    .uniqueArray(fc.string({ unit: fc.constantFrom(...Array.from("abcé中-_ 0")), minLength: 1, maxLength: 5 }), {
      minLength: 30,
      maxLength: 200,
    })
    .map((values) => ({ type: "string", enum: values })),
);

const leafSchema: fc.Arbitrary<JsonSchema | boolean> = fc.oneof(
  stringSchema,
  numericSchema("integer"),
  numericSchema("number"),
  fc.constantFrom<JsonSchema | boolean>(
    { type: "boolean" },
    { type: "null" },
    { type: "integer" },
    { type: "number" },
    true,
    {},
    { description: "anything" },
  ),
  jsonValue.map((value) => ({ const: value })),
  enumSchema,
);

/** `$ref`s the schema may hold: to its root and to its two definitions (see withDefinitions). */
const refSchema = fc.constantFrom<JsonSchema>({ $ref: "#/$defs/a" }, { $ref: "#/definitions/b" }, { $ref: "#" });

/** `nullable` as OpenAPI writes it, or a type array with "null". */
function nullable(schema: JsonSchema | boolean, style: boolean): JsonSchema | boolean {
  if (typeof schema === "boolean" || typeof schema.type !== "string") return schema;
  return style ? { ...schema, nullable: true } : { ...schema, type: [schema.type, "null"] };
}

/** Supported schemas, nested up to `maxDepth` containers; `$ref`s only when `refs` (the root then has $defs). */
function schemaTree(refs: boolean, maxDepth: number): fc.Arbitrary<JsonSchema | boolean> {
  return fc.letrec<{ schema: JsonSchema | boolean }>((tie) => {
    const child = tie("schema");
    const objectSchema = fc
      .record(
        {
          properties: fc.uniqueArray(fc.tuple(shortText, child, fc.boolean()), {
            maxLength: 4,
            selector: ([key]) => key,
          }),
          declared: fc.constantFrom("properties", "properties", "none"),
          additional: fc.constantFrom<"absent" | "true" | "false" | "schema">("absent", "true", "false", "schema"),
          additionalSchema: child,
          extraRequired: fc.option(shortText, { nil: undefined }),
        },
        { requiredKeys: ["properties", "declared", "additional", "additionalSchema"] },
      )
      .map(({ properties, declared, additional, additionalSchema, extraRequired }) => {
        const schema: JsonSchema = { type: "object" };
        if (declared === "properties") {
          schema.properties = Object.fromEntries(properties.map(([key, value]) => [key, value]));
          const required = properties.filter(([, , req]) => req).map(([key]) => key);
          if (extraRequired !== undefined && !Object.hasOwn(schema.properties as object, extraRequired))
            required.push(extraRequired);
          if (required.length > 0) schema.required = required;
        }
        if (additional !== "absent")
          schema.additionalProperties = additional === "schema" ? additionalSchema : additional === "true";
        return schema;
      });
    const arraySchema = fc.oneof(
      fc
        .record(
          { items: child, minItems: smallCount, extra: fc.option(smallCount, { nil: undefined }), free: fc.boolean() },
          { requiredKeys: ["items", "minItems", "free"] },
        )
        .map(({ items, minItems, extra, free }) =>
          defined({
            type: "array",
            items: free ? undefined : items,
            minItems: minItems === 0 ? undefined : minItems,
            maxItems: extra === undefined ? undefined : minItems + extra,
          }),
        ),
      fc
        .tuple(child, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 40 }))
        .map(([items, minItems, extra]) => ({ type: "array", items, minItems, maxItems: minItems + extra })),
      fc
        .record({
          prefixItems: fc.array(child, { minLength: 1, maxLength: 3 }),
          items: fc.oneof(fc.constant(false), fc.constant(undefined), child),
          minItems: fc.nat({ max: 2 }),
          maxItems: fc.option(fc.nat({ max: 4 }), { nil: undefined }),
        })
        .map(({ prefixItems, items, minItems, maxItems }) =>
          defined({
            type: "array",
            prefixItems,
            items,
            minItems,
            maxItems: maxItems === undefined ? undefined : Math.max(minItems, maxItems),
          }),
        ),
    );
    const branches = fc.array(child, { minLength: 1, maxLength: 3 });
    const anyOfSchema = fc.oneof(
      fc.tuple(fc.constantFrom("anyOf", "oneOf"), branches).map(([keyword, list]) => ({ [keyword]: list })),
      // an object's shared keywords beside its branches: merged into each object branch
      fc
        .tuple(fc.array(objectSchema, { minLength: 1, maxLength: 3 }), shortText, child)
        .map(([list, key, shared]) => ({ type: "object", properties: { [key]: shared }, anyOf: list })),
      // a string's shared keywords beside branches that are not objects
      fc
        .tuple(fc.array(stringSchema, { minLength: 1, maxLength: 3 }), fc.nat({ max: 3 }))
        .map(([list, minLength]) => ({ type: "string", minLength, oneOf: list })),
    );
    const allOfSchema = fc.oneof(
      fc.array(objectSchema, { minLength: 1, maxLength: 3 }).map((parts) => ({ allOf: parts })),
      // parts of one type merged keyword by keyword (the later part's keyword wins)
      fc.array(fc.oneof(stringSchema, numericSchema("integer")), { minLength: 2, maxLength: 3 }).map((parts) => ({
        allOf: parts,
      })),
    );
    const nullableSchema = fc
      .tuple(fc.oneof(leafSchema, objectSchema, arraySchema), fc.boolean())
      .map(([schema, style]) => nullable(schema, style));
    return {
      schema: fc.oneof(
        { maxDepth, depthIdentifier: "schema" },
        ...(refs ? [leafSchema, refSchema] : [leafSchema]),
        objectSchema,
        arraySchema,
        anyOfSchema,
        allOfSchema,
        nullableSchema,
      ),
    };
  }).schema;
}

/** A root with two definitions (`$defs/a`, `definitions/b`) that it and they may `$ref`, recursively. */
const withDefinitions: fc.Arbitrary<JsonSchema | boolean> = fc
  .tuple(schemaTree(true, 3), schemaTree(true, 2), schemaTree(true, 2))
  .map(([root, a, b]) => ({
    // a root that is only `{"$ref": "#"}` is a cycle the compiler refuses: refer it to a definition instead
    ...(typeof root === "boolean" ? {} : root.$ref === "#" ? { $ref: "#/$defs/a" } : root),
    $defs: { a },
    definitions: { b },
  }));

/** A JSON Schema of a shape the compiler claims to support (it may still be one no value satisfies). */
export const supportedSchema: fc.Arbitrary<JsonSchema | boolean> = fc.oneof(
  { weight: 3, arbitrary: schemaTree(false, 4) },
  { weight: 1, arbitrary: withDefinitions },
);

/** A schema the compiler must refuse, with the JsonSchemaGrammarError code it must give. */
export interface RefusedSchema {
  readonly schema: JsonSchema | boolean;
  readonly code: JsonSchemaGrammarErrorCode;
}

const refusedLeaf = fc.constantFrom<RefusedSchema>(
  { schema: false, code: "unsatisfiable" },
  { schema: { type: "dict" }, code: "unknown_type" },
  { schema: { type: ["string", "float"] }, code: "unknown_type" },
  { schema: { type: 7 }, code: "malformed" },
  { schema: { $ref: "#/$defs/missing" }, code: "unresolved_ref" },
  { schema: { $ref: "https://example.com/schema.json" }, code: "unresolved_ref" },
  { schema: { type: "integer", minimum: 5, maximum: 4 }, code: "unsatisfiable" },
  { schema: { type: "integer", minimum: 0.5, maximum: 0.7 }, code: "unsatisfiable" },
  { schema: { type: "integer", exclusiveMinimum: 3, exclusiveMaximum: 4 }, code: "unsatisfiable" },
  { schema: { type: "number", minimum: 2, maximum: 1 }, code: "unsatisfiable" },
  { schema: { type: "string", minLength: 3, maxLength: 2 }, code: "unsatisfiable" },
  { schema: { type: "string", pattern: String.raw`\S`, maxLength: 0 }, code: "unsatisfiable" },
  { schema: { type: "array", minItems: 2, maxItems: 1 }, code: "unsatisfiable" },
  { schema: { type: "array", items: false, minItems: 1 }, code: "unsatisfiable" },
  { schema: { type: "array", prefixItems: [{}], items: false, minItems: 2 }, code: "unsatisfiable" },
  { schema: { enum: [] }, code: "malformed" },
  { schema: { enum: "a" }, code: "malformed" },
  { schema: { anyOf: [] }, code: "malformed" },
  { schema: { oneOf: [] }, code: "malformed" },
  { schema: { allOf: [{ type: "object" }, false] }, code: "unsatisfiable" },
  { schema: { type: "object", properties: [] }, code: "malformed" },
);

/**
 * A refused schema, alone or where a value must match it (a required property, the items of a non-empty array, the
 * one branch of an `anyOf`): the refusal must surface with its code.
 */
export const refusedSchema: fc.Arbitrary<RefusedSchema> = fc
  .tuple(refusedLeaf, fc.constantFrom("alone", "property", "items", "branch"), shortText)
  .map(([{ schema, code }, where, key]) => {
    if (where === "alone") return { schema, code };
    if (where === "property")
      return { schema: { type: "object", properties: { [key]: schema }, required: [key] }, code };
    if (where === "items") return { schema: { type: "array", items: schema, minItems: 1 }, code };
    return { schema: { anyOf: [schema] }, code };
  });

/** One edit of a text: at `at` (modulo its length), with `char` (modulo the alphabet) where a character is needed. */
export interface Mutation {
  readonly kind: "replace" | "insert" | "delete" | "truncate";
  readonly at: number;
  readonly char: number;
}

/** How to make one text for a schema: walk its grammar along `choices`, then apply `mutations`; or random text. */
export interface TextPlan {
  readonly kind: "walk" | "random";
  readonly choices: readonly number[];
  readonly mutations: readonly Mutation[];
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom("replace", "insert", "delete", "truncate"),
  at: fc.nat(),
  char: fc.nat(),
});

/** Walked texts (half of them left valid), mutated walked texts, random texts. */
export const textPlan: fc.Arbitrary<TextPlan> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant("walk" as const),
      choices: fc.array(fc.nat(), { maxLength: 80 }),
      mutations: fc.oneof(fc.constant([]), fc.array(mutation, { minLength: 1, maxLength: 3 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("random" as const),
      choices: fc.array(fc.nat(), { maxLength: 30 }),
      mutations: fc.constant([]),
    }),
  },
);

/** The characters texts for this grammar are made of: the base alphabet and every character its GBNF names. */
export function alphabetFor(gbnf: string): string[] {
  const named = Array.from(gbnf).filter((c) => c !== "\u0000");
  return [...new Set([...BASE_ALPHABET, ...named])];
}

/**
 * A text of the grammar: each choice takes the forced text if any, else one allowed character of the alphabet (or,
 * once the match is complete, may stop: one choice in four); then the text is closed along CLOSERS, in at most 400
 * steps. A text that cannot be closed that way is returned as it stands (a live prefix).
 */
export function walkText(parsed: ParsedGbnf, choices: readonly number[], alphabet: readonly string[]): string {
  const matcher = new GbnfMatcher(parsed);
  let out = "";
  const take = (piece: string) => {
    matcher.accept(piece);
    out += piece;
  };
  for (const choice of choices) {
    if (matcher.finished || (matcher.complete && choice % 4 === 0)) return out;
    const forced = matcher.forced(32);
    if (forced !== "") {
      take(forced);
      continue;
    }
    const allowed = alphabet.filter((c) => matcher.allows(c));
    if (allowed.length === 0) return out;
    take(allowed[choice % allowed.length]);
  }
  for (let step = 0; step < 400 && !matcher.complete; step++) {
    const forced = matcher.forced(32);
    const next = forced !== "" ? forced : CLOSERS.find((c) => matcher.allows(c));
    if (next === undefined) break;
    take(next);
  }
  return out;
}

/** A text of random characters of the alphabet, one per choice. */
export function randomText(choices: readonly number[], alphabet: readonly string[]): string {
  return choices.map((choice) => alphabet[choice % alphabet.length]).join("");
}

/** Apply the mutations in order (positions in code points). */
export function mutate(text: string, mutations: readonly Mutation[], alphabet: readonly string[]): string {
  let chars = Array.from(text);
  for (const { kind, at, char } of mutations) {
    const c = alphabet[char % alphabet.length];
    const i = at % (chars.length + 1);
    if (kind === "truncate") chars = chars.slice(0, i);
    else if (kind === "insert") chars.splice(i, 0, c);
    else if (chars.length > 0) chars.splice(i % chars.length, 1, ...(kind === "replace" ? [c] : []));
  }
  return chars.join("");
}

/** The text a plan makes for a grammar. */
export function planText(parsed: ParsedGbnf, plan: TextPlan, alphabet: readonly string[]): string {
  if (plan.kind === "random") return randomText(plan.choices, alphabet);
  return mutate(walkText(parsed, plan.choices, alphabet), plan.mutations, alphabet);
}

/** One fuzz case: a supported schema and how to make its text, or a schema the compiler must refuse. */
export type FuzzCase =
  | { readonly kind: "supported"; readonly schema: JsonSchema | boolean; readonly plan: TextPlan }
  | { readonly kind: "refused"; readonly schema: JsonSchema | boolean; readonly code: JsonSchemaGrammarErrorCode };

/** Mostly supported schemas with a text; one case in twenty a schema to refuse. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  {
    weight: 19,
    arbitrary: fc
      .tuple(supportedSchema, textPlan)
      .map(([schema, plan]): FuzzCase => ({ kind: "supported", schema, plan })),
  },
  { weight: 1, arbitrary: refusedSchema.map(({ schema, code }): FuzzCase => ({ kind: "refused", schema, code })) },
);
