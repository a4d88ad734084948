import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { JsonSchema } from "../model-handle.js";
import { canonicalSchemaKey } from "../gbnf/canonical-json.js";
import { GRAMMAR_CACHE_SIZE } from "./defaults.js";
import { parseGbnf, type ParsedGbnf } from "../gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../gbnf/json-schema-to-gbnf.js";

/** A schema's grammar: llama.cpp's, and our reading of the same GBNF (for jump-forward; absent if unreadable). */
export interface CompiledGrammar {
  readonly grammar: LlamaGrammar;
  readonly gbnf: ParsedGbnf | undefined;
}

function readGbnf(gbnf: string): ParsedGbnf | undefined {
  try {
    return parseGbnf(gbnf);
  } catch {
    return undefined; // llama.cpp still constrains decoding; only jump-forward is off for this grammar
  }
}

/**
 * Compiled grammars by schema (least recently used dropped past `capacity`): an agent sends the same action schema
 * on every step, and compiling it (GBNF text, then llama.cpp's parser) each time would cost milliseconds per step.
 */
export class GrammarCache {
  readonly #entries = new Map<string, Promise<CompiledGrammar>>();
  readonly #llama: Llama;
  readonly #capacity: number;
  #compiled = 0;

  constructor(llama: Llama, capacity: number = GRAMMAR_CACHE_SIZE) {
    this.#llama = llama;
    this.#capacity = capacity;
  }

  /** How many grammars were compiled so far (cache misses). */
  get compiled(): number {
    return this.#compiled;
  }

  /** The grammar for `schema`, compiled on first use. Throws JsonSchemaGrammarError for a schema it cannot compile. */
  get(schema: JsonSchema): Promise<CompiledGrammar> {
    const key = canonicalSchemaKey(schema);
    let entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry;
    }
    const gbnf = jsonSchemaToGbnf(schema);
    this.#compiled++;
    entry = this.#llama.createGrammar({ grammar: gbnf }).then((grammar) => ({ grammar, gbnf: readGbnf(gbnf) }));
    entry.catch(() => this.#entries.delete(key));
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
    return entry;
  }
}
