import type { JsonSchema } from "../../json-schema.js";
import { repetition, seq, type GbnfCompiler } from "./gbnf-rules.js";
import { finiteNumber, JsonSchemaGrammarError, own, type Schema } from "./json-schema-keywords.js";

/** An array's item-count bounds. */
interface ItemBounds {
  minItems: number;
  maxItems: number | undefined;
}

/**
 * A tuple: the prefix items in order (those past minItems optional, as many as maxItems allows), then further items
 * when `items` allows them.
 */
function compileTuple(
  compiler: GbnfCompiler,
  prefixItems: Schema[],
  items: Schema | undefined,
  { minItems, maxItems }: ItemBounds,
  hint: string,
): string {
  const count = Math.min(prefixItems.length, maxItems ?? prefixItems.length);
  if (count < minItems && items === false)
    throw new JsonSchemaGrammarError("unsatisfiable", `jsonSchemaToGbnf: tuple at "${hint}" cannot reach minItems`);
  const parts = prefixItems.slice(0, count).map((item, i) => compiler.compile(item, `${hint}-${i}`));
  let tail = "";
  if (items !== false && (maxItems === undefined || maxItems > count)) {
    const item = compiler.compile(items ?? true, `${hint}-item`);
    tail = `("," ${item})${repetition(Math.max(0, minItems - count), maxItems === undefined ? undefined : maxItems - count)}`;
  }
  // From the last part back: part i is required when i < minItems, else optional with everything after it.
  let rest = tail;
  for (let i = count - 1; i >= 0; i--) {
    const part = seq(i === 0 ? "" : '","', parts[i], rest);
    rest = i < minItems ? part : `(${part})?`;
  }
  return compiler.rules.rule(hint, seq(`"["`, rest, `"]"`));
}

/** A list: items all of one schema, between minItems and maxItems of them. */
function compileList(
  compiler: GbnfCompiler,
  items: Schema | undefined,
  { minItems, maxItems }: ItemBounds,
  hint: string,
): string {
  const { rules } = compiler;
  if (maxItems === 0 || items === false) {
    if (minItems > 0)
      throw new JsonSchemaGrammarError(
        "unsatisfiable",
        `jsonSchemaToGbnf: array at "${hint}" allows no items but needs ${minItems}`,
      );
    return rules.rule(hint, `"[" "]"`);
  }
  const item = compiler.compile(items ?? true, `${hint}-item`);
  const more = (min: number) =>
    maxItems === 1 ? "" : `("," ${item})${repetition(min, maxItems === undefined ? undefined : maxItems - 1)}`;
  if (minItems === 0) return rules.rule(hint, `"[" (${seq(item, more(0))})? "]"`);
  return rules.rule(hint, seq(`"["`, item, more(minItems - 1), `"]"`));
}

/** An array schema: `items`, `prefixItems` (a tuple), `minItems`, `maxItems`. */
export function compileArray(compiler: GbnfCompiler, schema: JsonSchema, hint: string): string {
  const minItems = Math.max(0, Math.floor(finiteNumber(own(schema, "minItems")) ?? 0));
  const maxRaw = finiteNumber(own(schema, "maxItems"));
  const maxItems = maxRaw === undefined ? undefined : Math.floor(maxRaw);
  if (maxItems !== undefined && maxItems < minItems)
    throw new JsonSchemaGrammarError(
      "unsatisfiable",
      `jsonSchemaToGbnf: array at "${hint}" cannot satisfy its length bounds`,
    );
  const prefixItems = own<Schema[]>(schema, "prefixItems") ?? [];
  const items = own<Schema>(schema, "items");
  if (prefixItems.length > 0) return compileTuple(compiler, prefixItems, items, { minItems, maxItems }, hint);
  return compileList(compiler, items, { minItems, maxItems }, hint);
}
