import type { JsonSchema } from "../../json-schema.js";
import { compileArray } from "./gbnf-arrays.js";
import { compileInteger, compileNumber } from "./gbnf-numbers.js";
import { compileObject } from "./gbnf-objects.js";
import { GbnfRules, jsonLiteral, type GbnfCompiler } from "./gbnf-rules.js";
import { compileString } from "./gbnf-strings.js";
import {
  ANNOTATIONS,
  isObject,
  JsonSchemaGrammarError,
  mergeSchemas,
  own,
  schemaTypes,
  type Schema,
} from "./json-schema-keywords.js";

export { gbnfLiteral } from "./gbnf-rules.js";
export { JsonSchemaGrammarError } from "./json-schema-keywords.js";

/**
 * Compiles one schema into a set of named GBNF rules: the keywords that choose among values (`$ref`, `const`,
 * `enum`, `allOf`, `anyOf` / `oneOf`, `type`) here, each type's own keywords in gbnf-strings / gbnf-numbers /
 * gbnf-objects / gbnf-arrays.
 */
class SchemaCompiler implements GbnfCompiler {
  readonly rules = new GbnfRules();
  readonly #refs = new Map<string, string>();
  /** `$ref`s being compiled since the last `{` or `[`: meeting one again is a cycle that reads no character. */
  #openRefs = new Set<string>();
  readonly #root: JsonSchema;

  constructor(root: JsonSchema) {
    this.#root = root;
  }

  /** A rule expression (usually a rule name) that matches exactly the compact JSON texts this schema allows. */
  compile(schema: Schema, hint: string): string {
    if (schema === true) return this.rules.primitive("value");
    if (schema === false)
      throw new JsonSchemaGrammarError(
        "unsatisfiable",
        `jsonSchemaToGbnf: schema at "${hint}" is false: no value can match it`,
      );
    if (!isObject(schema))
      throw new JsonSchemaGrammarError(
        "malformed",
        `jsonSchemaToGbnf: schema at "${hint}" is not an object or boolean`,
      );
    const ref = own<string>(schema, "$ref");
    if (ref !== undefined) return this.#compileRef(ref, hint);
    if (Object.hasOwn(schema, "const")) return this.rules.rule(hint, jsonLiteral(schema.const));
    if (own(schema, "enum") !== undefined) return this.#compileEnum(own<unknown[]>(schema, "enum"), hint);
    const allOf = own<Schema[]>(schema, "allOf");
    if (Array.isArray(allOf)) {
      const { allOf: _, ...rest } = schema;
      return this.compile(
        allOf.reduce<JsonSchema>((merged, part) => mergeSchemas(merged, part, hint), rest),
        hint,
      );
    }
    const branches = own<Schema[]>(schema, "anyOf") ?? own<Schema[]>(schema, "oneOf");
    if (branches !== undefined) return this.#compileBranches(schema, branches, hint);
    const types = schemaTypes(schema, hint);
    if (types === undefined) return this.rules.primitive("value");
    const alternatives = types.map((type) =>
      this.#compileType(type, schema, types.length > 1 ? `${hint}-${type}` : hint),
    );
    return alternatives.length === 1 ? alternatives[0] : this.rules.rule(hint, alternatives.join(" | "));
  }

  #compileEnum(values: unknown[] | undefined, hint: string): string {
    if (!Array.isArray(values) || values.length === 0)
      throw new JsonSchemaGrammarError("malformed", `jsonSchemaToGbnf: "enum" at "${hint}" must be a non-empty array`);
    return this.rules.rule(hint, [...new Set(values.map((v) => jsonLiteral(v)))].join(" | "));
  }

  /** `anyOf` / `oneOf`: one alternative per branch, the schema's other keywords merged into each object branch. */
  #compileBranches(schema: JsonSchema, branches: Schema[], hint: string): string {
    if (!Array.isArray(branches) || branches.length === 0)
      throw new JsonSchemaGrammarError(
        "malformed",
        `jsonSchemaToGbnf: "anyOf"/"oneOf" at "${hint}" must be a non-empty array`,
      );
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    const hasRest = Object.keys(rest).some((k) => !ANNOTATIONS.has(k));
    const alternatives = branches.map((branch, i) =>
      this.compile(hasRest && isObject(branch) ? { ...rest, ...branch } : branch, `${hint}-${i}`),
    );
    return this.rules.rule(hint, [...new Set(alternatives)].join(" | "));
  }

  #compileType(type: string, schema: JsonSchema, hint: string): string {
    switch (type) {
      case "string":
        return compileString(this.rules, schema, hint);
      case "integer":
        return compileInteger(this.rules, schema, hint);
      case "number":
        return compileNumber(this.rules, schema, hint);
      case "boolean":
        return this.rules.primitive("boolean");
      case "null":
        return this.rules.primitive("null");
      case "object":
        return this.#inside(() => compileObject(this, schema, hint));
      default:
        return this.#inside(() => compileArray(this, schema, hint));
    }
  }

  /** Compile an object's or array's parts: they come after its `{` or `[`, so a `$ref` there may recur. */
  #inside(compile: () => string): string {
    const open = this.#openRefs;
    this.#openRefs = new Set();
    try {
      return compile();
    } finally {
      this.#openRefs = open;
    }
  }

  /** `$ref` to `#`, `#/$defs/*` or `#/definitions/*`: one rule per target, so recursive schemas stay finite. */
  #compileRef(ref: string, hint: string): string {
    // `{"$ref": "#"}` at the root, or `a: {"anyOf": [{"$ref": "#/$defs/a"}, ...]}`: the grammar rule would start with
    // itself (left recursion), which llama.cpp refuses ("Failed to parse grammar"); no finite JSON value unfolds it.
    if (this.#openRefs.has(ref))
      throw new JsonSchemaGrammarError(
        "malformed",
        `jsonSchemaToGbnf: "$ref": "${ref}" at "${hint}" refers back to itself before any object or array opens (a cycle that reads nothing)`,
      );
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
        "unresolved_ref",
        `jsonSchemaToGbnf: cannot resolve "$ref": "${ref}" at "${hint}" (only "#", "#/$defs/..." and "#/definitions/...")`,
      );
    const name = this.rules.uniqueName(`ref-${ref.split("/").pop()}`);
    this.#refs.set(ref, name);
    this.rules.define(name, "");
    this.#openRefs.add(ref);
    try {
      this.rules.define(name, this.compile(target as Schema, name));
    } finally {
      this.#openRefs.delete(ref);
    }
    return name;
  }
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
 * by `additionalProperties`), arrays (`items`, `prefixItems`, `minItems`, `maxItems`), strings (`minLength`, `maxLength`, the non-blank pattern `\S`,
 * met by starting with a non-blank character, and the `format`s `date`, `time`, `date-time`, `uuid` as zod checks
 * them), integers and numbers with `minimum` / `maximum` / exclusive bounds
 * (exact; bounded numbers have no exponent), booleans, null, and `{}` / `true` (any JSON value).
 * Not enforced (the grammar then accepts more than the schema): other `pattern`s and `format`s, `multipleOf`,
 * `uniqueItems`, `minProperties` / `maxProperties`, `not`, conditionals. Unbounded numbers are capped at
 * 8999999999999999 in their integer part (a safe integer; `UNBOUNDED_MAX` in gbnf-integer-range.ts), 16 decimals
 * and a 2-digit exponent so a runaway model cannot spin.
 *
 * Throws {@link JsonSchemaGrammarError} for a schema nothing can satisfy, an unknown `type`, an unresolvable `$ref`,
 * or a `$ref` that comes back to itself before an object or array opens (`{"$ref": "#"}` at the root).
 */
export function jsonSchemaToGbnf(schema: JsonSchema | boolean): string {
  const compiler = new SchemaCompiler(isObject(schema) ? schema : {});
  const root = compiler.compile(schema, "root");
  return compiler.rules.render(root);
}
