import type { JsonSchema } from "../../json-schema.js";
import { gbnfLiteral, seq, type GbnfCompiler } from "./gbnf-rules.js";
import { isObject, JsonSchemaGrammarError, own, type Schema } from "./json-schema-keywords.js";

/** No `properties` at all: a free-form map, values per additionalProperties (any value when absent or true). */
function compileMap(compiler: GbnfCompiler, schema: JsonSchema, hint: string): string {
  const { rules } = compiler;
  const additional = own<Schema>(schema, "additionalProperties");
  if (additional === false) return rules.rule(hint, `"{" "}"`);
  const value =
    additional === undefined || additional === true
      ? rules.primitive("value")
      : compiler.compile(additional, `${hint}-value`);
  const key = rules.primitive("string");
  return rules.rule(hint, `"{" (${key} ":" ${value} ("," ${key} ":" ${value})*)? "}"`);
}

/**
 * Declared properties only, in declared order; optional ones may be left out. rest[i]: properties i.. after at
 * least one was written (each present one preceded by a comma); first[i]: properties i.. with none written yet.
 */
function compileDeclared(
  compiler: GbnfCompiler,
  properties: Record<string, Schema>,
  keys: string[],
  required: Set<string>,
  hint: string,
): string {
  const { rules } = compiler;
  const pairs = keys.map((key) => {
    const valueSchema = Object.hasOwn(properties, key) ? properties[key] : true;
    return `${gbnfLiteral(`${JSON.stringify(key)}:`)} ${compiler.compile(valueSchema, `${hint}-${key}`)}`;
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
          : `(${seq(pair, nextRest)} | ${rules.rule(`${hint}-from-${keys[i + 1]}`, first)})`;
    }
    if (i > 0) rest = rules.rule(`${hint}-after-${keys[i]}`, rest);
  }
  return rules.rule(hint, `"{" ${first} "}"`);
}

/**
 * An object schema: its declared `properties` (and any `required` name not declared, valued by anything) in order,
 * undeclared keys never written; without `properties`, a free-form map.
 */
export function compileObject(compiler: GbnfCompiler, schema: JsonSchema, hint: string): string {
  const properties = own<Record<string, Schema>>(schema, "properties") ?? {};
  if (!isObject(properties))
    throw new JsonSchemaGrammarError("malformed", `jsonSchemaToGbnf: "properties" at "${hint}" must be an object`);
  const required = new Set((own<unknown[]>(schema, "required") ?? []).map(String));
  const keys = Object.keys(properties);
  for (const name of required) if (!keys.includes(name)) keys.push(name);
  if (keys.length === 0 && !Object.hasOwn(schema, "properties")) return compileMap(compiler, schema, hint);
  if (keys.length === 0) return compiler.rules.rule(hint, `"{" "}"`);
  return compileDeclared(compiler, properties, keys, required, hint);
}
