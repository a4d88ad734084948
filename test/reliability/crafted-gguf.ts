/**
 * Crafted GGUF files for the reliability suite: one small valid model file written field by field (every field's
 * offset recorded), then variants with each length, count, type, dimension and offset set to hostile values, and
 * the file cut at every field boundary. Nothing large is written: every variant is the size of the base file or less.
 */

/** One field of the file: where it is, what it holds, how wide it is. */
interface Field {
  name: string;
  offset: number;
  width: 4 | 8;
  /** What the field is, to pick hostile values: a length or count (u64), a type or dimension count (u32), a value. */
  role: "length" | "count" | "type" | "dims" | "dim" | "offset" | "version" | "value";
}

/** A variant: its name (what was changed) and its bytes. */
export interface CraftedFile {
  name: string;
  bytes: Buffer;
}

class Writer {
  readonly fields: Field[] = [];
  private readonly parts: Buffer[] = [];
  private size = 0;

  raw(bytes: Buffer): void {
    this.parts.push(bytes);
    this.size += bytes.length;
  }

  u32(value: number, name: string, role: Field["role"]): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.fields.push({ name, offset: this.size, width: 4, role });
    this.raw(b);
  }

  u64(value: number | bigint, name: string, role: Field["role"]): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.fields.push({ name, offset: this.size, width: 8, role });
    this.raw(b);
  }

  str(text: string, name: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.u64(bytes.length, `length of ${name}`, "length");
    this.raw(bytes);
  }

  pad(alignment: number): void {
    const rest = this.size % alignment;
    if (rest) this.raw(Buffer.alloc(alignment - rest));
  }

  get length(): number {
    return this.size;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const T = { u8: 0, u32: 4, f32: 6, string: 8, array: 9 };

/** The base file: a gemma3-like header with string, u8, u32 and nested arrays, then two F32 tensors and a Q8_0 one. */
export function baseGguf(): { bytes: Buffer; fields: Field[] } {
  const w = new Writer();
  w.raw(Buffer.from("GGUF", "latin1"));
  w.u32(3, "version", "version");
  const tensors: Array<{ name: string; dims: number[]; type: number; bytes: number }> = [
    { name: "token_embd.weight", dims: [8, 4], type: 0, bytes: 8 * 4 * 4 },
    { name: "output_norm.weight", dims: [8], type: 0, bytes: 8 * 4 },
    { name: "blk.0.attn_q.weight", dims: [32, 2], type: 8, bytes: 2 * 34 },
  ];
  w.u64(tensors.length, "tensor count", "count");
  const metadata: Array<[string, () => void]> = [
    ["general.architecture", () => w.str("gemma3", "general.architecture")],
    ["general.name", () => w.str("crafted", "general.name")],
    ["gemma3.context_length", () => w.u32(1024, "gemma3.context_length", "value")],
    [
      "tokenizer.ggml.tokens",
      () => {
        w.u32(T.string, "item type of tokenizer.ggml.tokens", "type");
        w.u64(4, "length of tokenizer.ggml.tokens", "count");
        for (const [i, token] of ["<pad>", "<bos>", "hello", "world"].entries()) w.str(token, `token ${i}`);
      },
    ],
    [
      "tokenizer.ggml.token_type",
      () => {
        w.u32(T.u32, "item type of tokenizer.ggml.token_type", "type");
        w.u64(4, "length of tokenizer.ggml.token_type", "count");
        for (let i = 0; i < 4; i++) w.u32(1, `token type ${i}`, "value");
      },
    ],
    [
      "crafted.bytes",
      () => {
        w.u32(T.u8, "item type of crafted.bytes", "type");
        w.u64(3, "length of crafted.bytes", "count");
        w.raw(Buffer.from([1, 2, 3]));
      },
    ],
    [
      "crafted.nested",
      () => {
        w.u32(T.array, "item type of crafted.nested", "type");
        w.u64(1, "length of crafted.nested", "count");
        w.u32(T.f32, "inner item type of crafted.nested", "type");
        w.u64(2, "inner length of crafted.nested", "count");
        w.raw(Buffer.alloc(8));
      },
    ],
  ];
  w.u64(metadata.length, "metadata entry count", "count");
  for (const [key, writeValue] of metadata) {
    w.str(key, `key ${key}`);
    const type = key === "gemma3.context_length" ? T.u32 : key.startsWith("general.") ? T.string : T.array;
    w.u32(type, `value type of ${key}`, "type");
    writeValue();
  }
  let offset = 0;
  for (const tensor of tensors) {
    w.str(tensor.name, `name of ${tensor.name}`);
    w.u32(tensor.dims.length, `dimension count of ${tensor.name}`, "dims");
    tensor.dims.forEach((d, i) => w.u64(d, `dimension ${i} of ${tensor.name}`, "dim"));
    w.u32(tensor.type, `type of ${tensor.name}`, "type");
    w.u64(offset, `data offset of ${tensor.name}`, "offset");
    offset += Math.ceil(tensor.bytes / 32) * 32;
  }
  w.pad(32);
  for (const tensor of tensors) {
    w.raw(Buffer.alloc(tensor.bytes, 0x11));
    w.pad(32);
  }
  return { bytes: w.bytes(), fields: w.fields };
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
