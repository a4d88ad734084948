/**
 * Small Gemma-like GGUF files for the model-file tests, written with the project's one GGUF writer
 * (scripts/lib/gguf-writer.ts) and cross-checked against node-llama-cpp's own GGUF parser in the tests.
 */
import { GGML_TYPE, gguf, ggufBytes } from "../../scripts/lib/gguf-writer.js";

/** Deterministic pseudo-random bytes (xorshift32), so payloads are the same on every run. */
export function pseudoRandomBytes(length: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/**
 * A small but complete-looking Gemma 3 header: architecture, name, file type, context length, a vocabulary; with
 * `payloadBytes`, one I8 tensor of that many pseudo-random bytes (to make files of a given size).
 */
export function gemmaLikeGguf(
  options: {
    name?: string;
    fileType?: number;
    contextLength?: number;
    payloadBytes?: number;
    vocabulary?: number;
  } = {},
): Buffer {
  const vocabulary = Array.from({ length: options.vocabulary ?? 64 }, (_, i) => (i === 0 ? "<pad>" : `tok${i}`));
  const payload = options.payloadBytes ? pseudoRandomBytes(options.payloadBytes) : undefined;
  return ggufBytes({
    metadata: [
      ["general.architecture", gguf.str("gemma3")],
      ["general.name", gguf.str(options.name ?? "Tiny Test Gemma")],
      ["general.file_type", gguf.u32(options.fileType ?? 15)],
      ["general.quantization_version", gguf.u32(2)],
      ["gemma3.context_length", gguf.u32(options.contextLength ?? 32768)],
      ["gemma3.block_count", gguf.u32(2)],
      ["tokenizer.ggml.model", gguf.str("llama")],
      ["tokenizer.ggml.tokens", gguf.arr("str", vocabulary)],
      [
        "tokenizer.ggml.scores",
        gguf.arr(
          "f32",
          vocabulary.map((_, i) => -i),
        ),
      ],
      [
        "tokenizer.ggml.token_type",
        gguf.arr(
          "i32",
          vocabulary.map(() => 1),
        ),
      ],
      ["tokenizer.ggml.add_bos_token", gguf.bool(true)],
      ["tokenizer.chat_template", gguf.str("{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}")],
    ],
    tensors: payload ? [{ name: "payload", dims: [payload.length], type: GGML_TYPE.I8, data: payload }] : [],
  });
}
