/**
 * Both sides of the differential fuzzer (issue 42): for a schema and a text, our GBNF matcher and llama.cpp's grammar
 * (for the GBNF our compiler writes) must agree on every prefix of the text (is it alive: can it still be extended
 * to a match) and on completeness (is it a complete match).
 *
 * How llama.cpp is asked about a prefix. The addon's only text-level check, `isTextCompatible` (`_testText`), says
 * whether a whole text is a complete match, and answers false both for a dead prefix and for a live, incomplete one.
 * So each text is fed the way sampling feeds it: one byte token at a time into a LlamaGrammarEvaluationState (the
 * sampler-side grammar that candidate sampling falls back to), on the fixture model's Gemma 3 vocabulary loaded
 * vocab-only (its 256 byte tokens `<0x00>`..`<0xFF>` have one-byte pieces, so any UTF-8 text can be spelled with
 * them). For each code point, the bytes before its last are taken (a piece ending inside a character only records
 * the partial UTF-8 in llama.cpp's state), then the addon's `canBeNextTokenForGrammarEvaluationState` is asked for
 * its last byte: true iff some grammar stack survives the whole character (llama_grammar_reject_candidates). That is
 * llama.cpp's "this prefix is alive", at code point boundaries, exactly. A prefix is complete iff the end-of-generation
 * token may be next (llama_grammar_apply_impl allows EOG iff a stack is empty). The whole text is also asked of
 * `isTextCompatible`, which must say the same as the last prefix.
 */
import {
  LlamaGrammarEvaluationState,
  type Llama,
  type LlamaGrammar,
  type LlamaModel,
  type Token,
} from "node-llama-cpp";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf, type ParsedGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { JsonSchemaGrammarError } from "../../src/model/gbnf/json-schema-keywords.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import { getLlamaRuntime } from "../../src/model/llama/llama-runtime.js";
import type { JsonSchema } from "../../src/json-schema.js";
import { alphabetFor, planText, type FuzzCase } from "./matcher-fuzz-cases.js";

/** What one side says about one prefix. */
export interface PrefixVerdict {
  readonly alive: boolean;
  readonly complete: boolean;
}

/** The addon functions used here (node-llama-cpp internals, as src/model/decoding/grammar-state.ts uses them). */
interface AddonSampler {
  canBeNextTokenForGrammarEvaluationState(state: unknown, token: Token): boolean;
  acceptGrammarEvaluationStateToken(state: unknown, token: Token): void;
}

/** A grammar as both sides hold it. */
export interface FuzzGrammar {
  readonly gbnf: string;
  readonly parsed: ParsedGbnf;
  readonly llama: LlamaGrammar;
}

/** What became of one (schema, text) case. */
export type CaseOutcome =
  | { readonly kind: "refused"; readonly code: string }
  | { readonly kind: "agree"; readonly prefixes: number; readonly last: PrefixVerdict }
  | { readonly kind: "disagree"; readonly report: string };

/** Our matcher's verdict on every prefix of `text` (index i: the first i code points). */
export function matcherVerdicts(parsed: ParsedGbnf, text: string): PrefixVerdict[] {
  const matcher = new GbnfMatcher(parsed);
  const verdicts: PrefixVerdict[] = [{ alive: matcher.alive, complete: matcher.complete }];
  for (const char of text) {
    const alive = matcher.alive && matcher.accept(char);
    verdicts.push({ alive, complete: alive && matcher.complete });
  }
  return verdicts;
}

/** llama.cpp's grammar, asked through byte tokens of a vocab-only model (see the header). */
export class LlamaGrammarOracle {
  readonly #llama: Llama;
  readonly #model: LlamaModel;
  readonly #bytes: readonly Token[];
  readonly #eog: Token;
  readonly #sampler: AddonSampler;
  readonly #cache = new Map<string, FuzzGrammar>();

  private constructor(llama: Llama, model: LlamaModel, bytes: Token[], eog: Token) {
    this.#llama = llama;
    this.#model = model;
    this.#bytes = bytes;
    this.#eog = eog;
    this.#sampler = (llama as unknown as { _bindings: { AddonSampler: AddonSampler } })._bindings.AddonSampler;
  }

  /** Load `modelPath`'s vocabulary (a Gemma 3 GGUF: 256 byte tokens) on the CPU runtime. */
  static async open(modelPath: string): Promise<LlamaGrammarOracle> {
    const llama = (await getLlamaRuntime(false)).llama;
    const model = await llama.loadModel({ modelPath, vocabOnly: true, gpuLayers: 0 });
    const bytes: Token[] = [];
    for (const token of model.iterateAllTokens()) {
      if (model.getTokenAttributes(token).byte) bytes.push(token);
      if (bytes.length === 256) break;
    }
    // the byte tokens are <0x00>..<0xFF> in order: check it on every ASCII byte and on a two-byte character
    const spelled = (text: string) => model.detokenize([...Buffer.from(text)].map((b) => bytes[b]));
    const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
    if (bytes.length !== 256 || spelled(ascii) !== ascii || spelled("é中") !== "é中")
      throw new Error(`LlamaGrammarOracle: ${modelPath} has no 256 ordered byte tokens`);
    const eog = model.tokens.eos;
    if (eog === null || !model.isEogToken(eog)) throw new Error(`LlamaGrammarOracle: ${modelPath} has no EOG token`);
    return new LlamaGrammarOracle(llama, model, bytes, eog);
  }

  /** Both sides' grammar for `gbnf` (cached); throws when llama.cpp's parser refuses it. */
  async grammar(gbnf: string): Promise<FuzzGrammar> {
    const known = this.#cache.get(gbnf);
    if (known) return known;
    const grammar = { gbnf, parsed: parseGbnf(gbnf), llama: await this.#llama.createGrammar({ grammar: gbnf }) };
    if (this.#cache.size >= 2000) this.#cache.clear();
    this.#cache.set(gbnf, grammar);
    return grammar;
  }

  /** llama.cpp's verdict on every prefix of `text` (index i: the first i code points). */
  verdicts(grammar: FuzzGrammar, text: string): PrefixVerdict[] {
    const state = new LlamaGrammarEvaluationState({ model: this.#model, grammar: grammar.llama });
    const native = (state as unknown as { _state: unknown })._state;
    const can = (token: Token) => this.#sampler.canBeNextTokenForGrammarEvaluationState(native, token);
    const verdicts: PrefixVerdict[] = [{ alive: true, complete: can(this.#eog) }];
    let alive = true;
    for (const char of text) {
      if (alive) {
        const bytes = [...Buffer.from(char)].map((b) => this.#bytes[b]);
        try {
          for (const token of bytes.slice(0, -1)) this.#sampler.acceptGrammarEvaluationStateToken(native, token);
          alive = can(bytes[bytes.length - 1]);
        } catch {
          alive = false; // llama.cpp throws on a partial byte only when every stack is complete: nothing may follow
        }
        if (alive) this.#sampler.acceptGrammarEvaluationStateToken(native, bytes[bytes.length - 1]);
      }
      verdicts.push({ alive, complete: alive && can(this.#eog) });
    }
    return verdicts;
  }

  /** llama.cpp's whole-text check (`isTextCompatible`): is `text` a complete match. */
  wholeText(grammar: FuzzGrammar, text: string): boolean {
    return (grammar.llama as unknown as { _testText(text: string): boolean })._testText(text);
  }

  async dispose(): Promise<void> {
    this.#cache.clear();
    await this.#model.dispose();
  }
}

const show = (v: PrefixVerdict) => (v.alive ? (v.complete ? "complete" : "alive") : "dead");

/**
 * Compile `schema`, make its text with `makeText` (given the parsed grammar), and compare both sides on every prefix.
 * A schema the compiler refuses must be refused with a JsonSchemaGrammarError; any other error is a failure.
 */
export async function compareCase(
  oracle: LlamaGrammarOracle,
  schema: JsonSchema | boolean,
  makeText: (parsed: ParsedGbnf, gbnf: string) => string,
): Promise<CaseResult> {
  let gbnf: string;
  try {
    gbnf = jsonSchemaToGbnf(schema);
  } catch (error) {
    if (error instanceof JsonSchemaGrammarError) return { kind: "refused", code: error.code };
    return { kind: "disagree", report: `the compiler failed without a JsonSchemaGrammarError: ${String(error)}` };
  }
  let grammar: FuzzGrammar;
  try {
    grammar = await oracle.grammar(gbnf);
  } catch (error) {
    return { kind: "disagree", gbnf, report: `one side refuses the GBNF our compiler wrote: ${String(error)}` };
  }
  const text = makeText(grammar.parsed, gbnf);
  const ours = matcherVerdicts(grammar.parsed, text);
  const theirs = oracle.verdicts(grammar, text);
  const chars = Array.from(text);
  for (let i = 0; i < ours.length; i++) {
    if (ours[i].alive !== theirs[i].alive || ours[i].complete !== theirs[i].complete) {
      const prefix = chars.slice(0, i).join("");
      return {
        kind: "disagree",
        gbnf,
        text,
        report: `prefix ${i} of ${chars.length} code points ${JSON.stringify(prefix)}: our matcher says ${show(ours[i])}, llama.cpp says ${show(theirs[i])}`,
      };
    }
  }
  const whole = oracle.wholeText(grammar, text);
  if (whole !== ours[ours.length - 1].complete)
    return {
      kind: "disagree",
      gbnf,
      text,
      report: `whole text: llama.cpp's isTextCompatible says ${whole}, both prefix walks say ${!whole}`,
    };
  return { kind: "agree", prefixes: ours.length, last: ours[ours.length - 1], text, gbnf };
}

/** What one fuzz case came to, with what a report of it needs. */
export type CaseResult = CaseOutcome & { readonly text?: string; readonly gbnf?: string };

/**
 * Run one case: a supported schema's text compared on every prefix (a refusal is fine when it is a
 * JsonSchemaGrammarError: some combinations no value satisfies); a schema to refuse must be refused with its code.
 */
export async function runCase(oracle: LlamaGrammarOracle, fuzz: FuzzCase): Promise<CaseResult> {
  if (fuzz.kind === "supported")
    return compareCase(oracle, fuzz.schema, (parsed, gbnf) => planText(parsed, fuzz.plan, alphabetFor(gbnf)));
  try {
    const gbnf = jsonSchemaToGbnf(fuzz.schema);
    return { kind: "disagree", gbnf, report: `the compiler accepted a schema it must refuse (${fuzz.code})` };
  } catch (error) {
    if (error instanceof JsonSchemaGrammarError && error.code === fuzz.code && /jsonSchemaToGbnf: /.test(error.message))
      return { kind: "refused", code: error.code };
    return { kind: "disagree", report: `refused without the expected ${fuzz.code} error: ${String(error)}` };
  }
}

/** A readable report of a case that failed: the schema, the GBNF, the text and what each side said. */
export function describeCase(fuzz: FuzzCase, result: CaseResult): string {
  const lines = [`schema: ${JSON.stringify(fuzz.schema)}`];
  if (result.text !== undefined) lines.push(`text:   ${JSON.stringify(result.text)}`);
  if (result.kind === "disagree") lines.push(`what:   ${result.report}`);
  if (result.gbnf !== undefined) lines.push("gbnf:", result.gbnf.trimEnd());
  return lines.join("\n");
}
