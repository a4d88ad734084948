/**
 * Test helper: writes small GGUF files byte by byte from the format description (ggml docs/gguf.md), independently of
 * the reader under test. Files it writes are cross-checked against node-llama-cpp's own GGUF parser in the tests.
 */

/** A typed metadata value, as GGUF stores it. */
export type GgufValue =
  | { type: "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "f32" | "f64" | "bool"; value: number | boolean }
  | { type: "u64" | "i64"; value: bigint }
  | { type: "string"; value: string }
  | { type: "array"; itemType: "string"; items: string[] }
  | { type: "array"; itemType: "u8" | "i32" | "f32"; items: number[] };

const TYPE_IDS = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
};

export interface GgufSpec {
  metadata: Array<[key: string, value: GgufValue]>;
  /** Default 3. */
  version?: number;
  /** Declared tensor count (no tensor infos are written). Default: 1 with a payload (an I8 tensor holding it), else 0. */
  tensorCount?: bigint;
  /** Declared metadata count; default the real one. Lying here makes corrupt files. */
  metadataCount?: bigint;
  bigEndian?: boolean;
  /** Tensor data after the header (aligned to 32): one I8 tensor `payload` of this many elements, to make files of a given size. */
  payload?: Buffer;
}

/** The bytes of a GGUF file described by `spec`. */
export function buildGguf(spec: GgufSpec): Buffer {
  const be = spec.bigEndian ?? false;
  const parts: Buffer[] = [Buffer.from("GGUF", "latin1")];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    if (be) b.writeUInt32BE(n);
    else b.writeUInt32LE(n);
    parts.push(b);
  };
  const u64 = (n: bigint) => {
    const b = Buffer.alloc(8);
    if (be) b.writeBigUInt64BE(n);
    else b.writeBigUInt64LE(n);
    parts.push(b);
  };
  const str = (s: string) => {
    const bytes = Buffer.from(s, "utf8");
    u64(BigInt(bytes.length));
    parts.push(bytes);
  };
  const scalar = (type: string, value: number | boolean | bigint) => {
    const sizes: Record<string, number> = {
      u8: 1,
      i8: 1,
      bool: 1,
      u16: 2,
      i16: 2,
      u32: 4,
      i32: 4,
      f32: 4,
      f64: 8,
      u64: 8,
      i64: 8,
    };
    const b = Buffer.alloc(sizes[type]);
    const view = new DataView(b.buffer, b.byteOffset, b.length);
    const le = !be;
    const n = typeof value === "bigint" ? 0 : Number(value);
    switch (type) {
      case "u8":
      case "bool":
        view.setUint8(0, n);
        break;
      case "i8":
        view.setInt8(0, n);
        break;
      case "u16":
        view.setUint16(0, n, le);
        break;
      case "i16":
        view.setInt16(0, n, le);
        break;
      case "u32":
        view.setUint32(0, n, le);
        break;
      case "i32":
        view.setInt32(0, n, le);
        break;
      case "f32":
        view.setFloat32(0, n, le);
        break;
      case "f64":
        view.setFloat64(0, n, le);
        break;
      case "u64":
        view.setBigUint64(0, BigInt(value), le);
        break;
      case "i64":
        view.setBigInt64(0, BigInt(value), le);
        break;
    }
    parts.push(b);
  };

  u32(spec.version ?? 3);
  const payloadTensor = spec.payload !== undefined && spec.tensorCount === undefined;
  u64(spec.tensorCount ?? (payloadTensor ? 1n : 0n));
  u64(spec.metadataCount ?? BigInt(spec.metadata.length));
  for (const [key, value] of spec.metadata) {
    str(key);
    u32(TYPE_IDS[value.type]);
    if (value.type === "string") str(value.value);
    else if (value.type === "array") {
      u32(TYPE_IDS[value.itemType]);
      u64(BigInt(value.items.length));
      for (const item of value.items) {
        if (value.itemType === "string") str(item as string);
        else scalar(value.itemType, item as number);
      }
    } else scalar(value.type, value.value);
  }
  if (payloadTensor) {
    str("payload");
    u32(1);
    u64(BigInt(spec.payload!.length));
    u32(24); // GGML_TYPE_I8
    u64(0n);
  }
  const header = Buffer.concat(parts);
  if (!spec.payload) return header;
  const padding = Buffer.alloc((32 - (header.length % 32)) % 32);
  return Buffer.concat([header, padding, spec.payload]);
}

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

/** A small but complete-looking Gemma 3 header: architecture, name, file type, context length, a vocabulary. */
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
  return buildGguf({
    metadata: [
      ["general.architecture", { type: "string", value: "gemma3" }],
      ["general.name", { type: "string", value: options.name ?? "Tiny Test Gemma" }],
      ["general.file_type", { type: "u32", value: options.fileType ?? 15 }],
      ["general.quantization_version", { type: "u32", value: 2 }],
      ["gemma3.context_length", { type: "u32", value: options.contextLength ?? 32768 }],
      ["gemma3.block_count", { type: "u32", value: 2 }],
      ["tokenizer.ggml.model", { type: "string", value: "llama" }],
      ["tokenizer.ggml.tokens", { type: "array", itemType: "string", items: vocabulary }],
      ["tokenizer.ggml.scores", { type: "array", itemType: "f32", items: vocabulary.map((_, i) => -i) }],
      ["tokenizer.ggml.token_type", { type: "array", itemType: "i32", items: vocabulary.map(() => 1) }],
      ["tokenizer.ggml.add_bos_token", { type: "bool", value: true }],
      [
        "tokenizer.chat_template",
        { type: "string", value: "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}" },
      ],
    ],
    payload: options.payloadBytes ? pseudoRandomBytes(options.payloadBytes) : undefined,
  });
}
