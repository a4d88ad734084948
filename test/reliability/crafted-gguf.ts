/**
 * Crafted GGUF files for the reliability suite: one small valid model file (written by scripts/lib/gguf-writer.ts,
 * every u32/u64 field's offset recorded), then variants with each length, count, type, dimension and offset set to
 * hostile values, and the file cut at every field boundary. Nothing large is written: every variant is the size of
 * the base file or less.
 */
import { GGML_TYPE, gguf, ggufLayout, type GgufField } from "../../scripts/lib/gguf-writer.js";

/** A variant: its name (what was changed) and its bytes. */
export interface CraftedFile {
  name: string;
  bytes: Buffer;
}

/**
 * The base file, from the one GGUF writer with the offset of every u32/u64 field: a gemma3-like header with string,
 * u8, u32 and nested arrays, then two F32 tensors and a Q8_0 one (each tensor's data 0x11 bytes).
 */
export function baseGguf(): { bytes: Buffer; fields: GgufField[] } {
  const tensor = (name: string, dims: number[], type: (typeof GGML_TYPE)[keyof typeof GGML_TYPE], bytes: number) => ({
    name,
    dims,
    type,
    data: Buffer.alloc(bytes, 0x11),
  });
  return ggufLayout({
    metadata: [
      ["general.architecture", gguf.str("gemma3")],
      ["general.name", gguf.str("crafted")],
      ["gemma3.context_length", gguf.u32(1024)],
      ["tokenizer.ggml.tokens", gguf.arr("str", ["<pad>", "<bos>", "hello", "world"])],
      ["tokenizer.ggml.token_type", gguf.arr("u32", [1, 1, 1, 1])],
      ["crafted.bytes", gguf.arr("u8", [1, 2, 3])],
      ["crafted.nested", gguf.arrays([gguf.arr("f32", [0, 0])])],
    ],
    tensors: [
      tensor("token_embd.weight", [8, 4], GGML_TYPE.F32, 8 * 4 * 4),
      tensor("output_norm.weight", [8], GGML_TYPE.F32, 8 * 4),
      tensor("blk.0.attn_q.weight", [32, 2], GGML_TYPE.Q8_0, 2 * 34),
    ],
  });
}

const U64_VALUES: Array<[string, bigint]> = [
  ["0", 0n],
  ["1", 1n],
  ["2^31", 2n ** 31n],
  ["2^32", 2n ** 32n],
  ["2^40", 2n ** 40n],
  ["2^53+1", 2n ** 53n + 1n],
  ["2^62", 2n ** 62n],
  ["2^64-1", 2n ** 64n - 1n],
];
const U32_VALUES: Array<[string, number]> = [
  ["0", 0],
  ["1", 1],
  ["5", 5],
  ["13", 13],
  ["31", 31],
  ["999", 999],
  ["2^31", 2 ** 31],
  ["2^32-1", 2 ** 32 - 1],
];

/** Every hostile variant of the base file: each field set to each hostile value (and ±1), then every truncation. */
export function craftedGgufFiles(): CraftedFile[] {
  const { bytes, fields } = baseGguf();
  const files: CraftedFile[] = [];
  for (const field of fields) {
    const current = field.width === 8 ? bytes.readBigUInt64LE(field.offset) : BigInt(bytes.readUInt32LE(field.offset));
    const values: Array<[string, bigint]> =
      field.width === 8 ? [...U64_VALUES] : U32_VALUES.map(([label, v]) => [label, BigInt(v)]);
    values.push(["+1", current + 1n]);
    if (current > 0n) values.push(["-1", current - 1n]);
    const max = field.width === 8 ? 2n ** 64n - 1n : 2n ** 32n - 1n;
    for (const [label, value] of values) {
      if (value === current || value > max) continue;
      const copy = Buffer.from(bytes);
      if (field.width === 8) copy.writeBigUInt64LE(value, field.offset);
      else copy.writeUInt32LE(Number(value), field.offset);
      files.push({ name: `${field.name} = ${label}`, bytes: copy });
    }
  }
  // the last tensor (68 bytes of Q8_0) is followed by 28 bytes of padding: cut into its data, not the padding
  const cuts = new Set<number>([5, 8, 16, 24, bytes.length - 29, bytes.length - 60]);
  for (const field of fields) {
    cuts.add(field.offset);
    cuts.add(field.offset + 1);
  }
  for (const cut of [...cuts].sort((a, b) => a - b))
    if (cut > 0 && cut < bytes.length) files.push({ name: `cut at byte ${cut}`, bytes: bytes.subarray(0, cut) });
  return files;
}
