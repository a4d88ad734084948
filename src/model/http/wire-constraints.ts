import type { JsonSchema } from "../../json-schema.js";
import { canonicalSchemaKey } from "../gbnf/canonical-json.js";
import { jsonSchemaToGbnf } from "../gbnf/json-schema-to-gbnf.js";
import { GBNF_CACHE_SIZE } from "./defaults.js";
import type { WireConstraint } from "./request-body.js";

/**
 * The wire constraint of each call's `jsonSchema`: the schema itself, or (`gbnf`) the GBNF our compiler makes of it,
 * compiled once per schema. The compiler is our own (model/gbnf/json-schema-to-gbnf.ts, pure TypeScript,
 * no llama.cpp): a llama-server then decodes under exactly the grammar an in-process model would.
 */
export class WireConstraints {
  readonly #grammars = new Map<string, string>();

  for(schema: JsonSchema | undefined, mode: "auto" | "json-schema" | "gbnf" | "none"): WireConstraint | undefined {
    if (schema === undefined || mode === "none") return undefined;
    if (mode !== "gbnf") return { kind: "json-schema", schema };
    const key = canonicalSchemaKey(schema);
    let grammar = this.#grammars.get(key);
    if (grammar === undefined) {
      grammar = jsonSchemaToGbnf(schema);
      if (this.#grammars.size >= GBNF_CACHE_SIZE) this.#grammars.delete(this.#grammars.keys().next().value!);
      this.#grammars.set(key, grammar);
    }
    return { kind: "gbnf", grammar };
  }
}
