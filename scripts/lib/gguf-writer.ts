/**
 * The one GGUF (v3) writer: enough to produce real model files for tests and benchmarks (the fixture model), and
 * deliberately broken ones for the load-error tests and the reliability suite's crafted files (which take the offset
 * of every integer field from {@link ggufLayout}). Spec: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 *
 * Output is a pure function of the input: no timestamps, no map-order dependence, so two builds hash the same.
 */
import { closeSync, openSync, renameSync, writeSync } from "node:fs";
import { GGUF_MAGIC } from "../../src/model/gguf/gguf-header.js";
import { ByteSink, type GgufField } from "./gguf-byte-sink.js";

export type { GgufField, GgufFieldRole } from "./gguf-byte-sink.js";

/** GGUF metadata value types (the numbers are the file format's). */
const GGUF_TYPE = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  str: 8,
  arr: 9,
  u64: 10,
  i64: 11,
  f64: 12,
} as const;
type ScalarKind = Exclude<keyof typeof GGUF_TYPE, "arr">;

/** An array value: items of one scalar kind, or (`itemKind: "arr"`) arrays nested in it. */
type GgufArray =
  | { kind: "arr"; itemKind: ScalarKind; items: ArrayLike<number | bigint | boolean | string> }
  | { kind: "arr"; itemKind: "arr"; items: readonly GgufArray[] };

/** One typed metadata value. Build them with {@link gguf}. */
export type GgufValue = { kind: ScalarKind; value: number | bigint | boolean | string } | GgufArray;

/** Typed metadata value constructors: `gguf.u32(2)`, `gguf.str("gemma3")`, `gguf.arr("f32", scores)`. */
export const gguf = {
  u32: (value: number): GgufValue => ({ kind: "u32", value }),
  i32: (value: number): GgufValue => ({ kind: "i32", value }),
  u64: (value: number | bigint): GgufValue => ({ kind: "u64", value }),
  f32: (value: number): GgufValue => ({ kind: "f32", value }),
  bool: (value: boolean): GgufValue => ({ kind: "bool", value }),
  str: (value: string): GgufValue => ({ kind: "str", value }),
  arr: (itemKind: ScalarKind, items: ArrayLike<number | bigint | boolean | string>): GgufArray => ({
    kind: "arr",
    itemKind,
    items,
  }),
  /** An array of arrays (each item written without its own value type, as GGUF nests them). */
  arrays: (items: readonly GgufArray[]): GgufValue => ({ kind: "arr", itemKind: "arr", items }),
};

/** ggml tensor types this writer can store (the numbers are ggml's). */
export const GGML_TYPE = { F32: 0, F16: 1, Q8_0: 8, I8: 24 } as const;

/** Each storable type's block: elements per block and its bytes (Q8_0: 32 int8 weights and an f16 scale). */
const TYPE_BLOCK: Record<GgufTensor["type"], { elements: number; bytes: number }> = {
  [GGML_TYPE.F32]: { elements: 1, bytes: 4 },
  [GGML_TYPE.F16]: { elements: 1, bytes: 2 },
  [GGML_TYPE.Q8_0]: { elements: 32, bytes: 34 },
  [GGML_TYPE.I8]: { elements: 1, bytes: 1 },
};

/** One tensor: `dims` innermost first (ggml `ne[0]` is the row length), data already encoded in `type`. */
export interface GgufTensor {
  name: string;
  dims: readonly number[];
  type: (typeof GGML_TYPE)[keyof typeof GGML_TYPE];
  data: Uint8Array;
}

export interface GgufFile {
  /** Key/value pairs, written in this order. */
  metadata: ReadonlyArray<readonly [string, GgufValue]>;
  tensors: readonly GgufTensor[];
  /** Tensor data alignment; GGUF's default is 32. */
  alignment?: number;
  /** GGUF version to write (3 unless a test wants another). */
  version?: number;
  /** Write every number big-endian (GGUF allows it; the reader must handle it). Default little-endian. */
  bigEndian?: boolean;
  /** The tensor count the header declares; default the real one. Lying here makes corrupt files for tests. */
  tensorCount?: number | bigint;
  /** The metadata count the header declares; default the real one. Lying here makes corrupt files for tests. */
  metadataCount?: number | bigint;
}

function writeScalar(sink: ByteSink, kind: ScalarKind, value: number | bigint | boolean | string, name: string): void {
  switch (kind) {
    case "u8":
      return sink.u8(Number(value));
    case "i8":
      return sink.i8(Number(value));
    case "u16":
      return sink.u16(Number(value));
    case "i16":
      return sink.i16(Number(value));
    case "u32":
      return sink.field32(Number(value), name, "value");
    case "i32":
      return sink.i32(Number(value));
    case "f32":
      return sink.f32(Number(value));
    case "f64":
      return sink.f64(Number(value));
    case "u64":
      return sink.field64(value as number | bigint, name, "value");
    case "i64":
      return sink.i64(value as number | bigint);
    case "bool":
      return sink.u8(value ? 1 : 0);
    case "str":
      return sink.str(String(value), name);
  }
}

/** An array's item type, its length, then its items (`name[i]`; a nested array has no value type of its own). */
function writeArray(sink: ByteSink, array: GgufArray, name: string): void {
  sink.field32(GGUF_TYPE[array.itemKind], `item type of ${name}`, "type");
  sink.field64(array.items.length, `length of ${name}`, "count");
  if (array.itemKind === "arr") array.items.forEach((item, i) => writeArray(sink, item, `${name}[${i}]`));
  else for (let i = 0; i < array.items.length; i++) writeScalar(sink, array.itemKind, array.items[i], `${name}[${i}]`);
}

function tensorByteSize(tensor: GgufTensor): number {
  const elements = tensor.dims.reduce((a, b) => a * b, 1);
  const block = TYPE_BLOCK[tensor.type];
  if (elements % block.elements !== 0)
    throw new Error(
      `gguf-writer: tensor ${tensor.name} has ${elements} elements, not whole blocks of ${block.elements}`,
    );
  return (elements / block.elements) * block.bytes;
}

/** The tensor infos (name, dimensions, type, data offset), each offset aligned; the data itself comes after. */
function writeTensorInfos(sink: ByteSink, tensors: readonly GgufTensor[], alignment: number): void {
  let offset = 0;
  for (const tensor of tensors) {
    const expected = tensorByteSize(tensor);
    if (tensor.data.length !== expected)
      throw new Error(
        `gguf-writer: tensor ${tensor.name} has ${tensor.data.length} bytes, its shape needs ${expected}`,
      );
    sink.str(tensor.name, `name of ${tensor.name}`);
    sink.field32(tensor.dims.length, `dimension count of ${tensor.name}`, "dims");
    tensor.dims.forEach((d, i) => sink.field64(d, `dimension ${i} of ${tensor.name}`, "dim"));
    sink.field32(tensor.type, `type of ${tensor.name}`, "type");
    sink.field64(offset, `data offset of ${tensor.name}`, "offset");
    offset += Math.ceil(expected / alignment) * alignment;
  }
}

function encodeInto(sink: ByteSink, file: GgufFile): void {
  const alignment = file.alignment ?? 32;
  sink.bytes(GGUF_MAGIC);
  sink.field32(file.version ?? 3, "version", "version");
  sink.field64(file.tensorCount ?? file.tensors.length, "tensor count", "count");
  sink.field64(file.metadataCount ?? file.metadata.length, "metadata entry count", "count");
  for (const [key, value] of file.metadata) {
    sink.str(key, `key ${key}`);
    sink.field32(GGUF_TYPE[value.kind], `value type of ${key}`, "type");
    if (value.kind === "arr") writeArray(sink, value, key);
    else writeScalar(sink, value.kind, value.value, key);
  }
  writeTensorInfos(sink, file.tensors, alignment);
  sink.pad(alignment);
  for (const tensor of file.tensors) {
    sink.bytes(tensor.data);
    sink.pad(alignment);
  }
}

/** Encode a GGUF file into buffers (header, metadata, tensor infos, aligned tensor data). */
export function encodeGguf(file: GgufFile): Buffer[] {
  const sink = new ByteSink(!file.bigEndian);
  encodeInto(sink, file);
  return sink.buffers();
}

/**
 * The bytes of a (small) GGUF file and where each of its u32/u64 fields lies, in file order: for tests that set one
 * field to a hostile value or cut the file at a field's boundary.
 */
export function ggufLayout(file: GgufFile): { bytes: Buffer; fields: GgufField[] } {
  const sink = new ByteSink(!file.bigEndian, true);
  encodeInto(sink, file);
  return { bytes: Buffer.concat(sink.buffers()), fields: sink.fields! };
}

/** The bytes of a GGUF file, as one buffer (for small files: tests that write or serve them). */
export function ggufBytes(file: GgufFile): Buffer {
  return Buffer.concat(encodeGguf(file));
}

/** Write a GGUF file atomically (a temporary name, then rename), so a crash never leaves a half file under `path`. */
export function writeGgufFile(path: string, file: GgufFile): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, "w");
  try {
    for (const buffer of encodeGguf(file)) writeSync(fd, buffer);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

const F32_SCRATCH = new Float32Array(1);
const U32_SCRATCH = new Uint32Array(F32_SCRATCH.buffer);

/** Round a float32 to IEEE half precision bits (round to nearest even), deterministic on every platform. */
export function float32ToFloat16Bits(value: number): number {
  F32_SCRATCH[0] = value;
  const bits = U32_SCRATCH[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  let e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    if (rest > midpoint || (rest === midpoint && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/** Encode numbers as little-endian float32 bytes. */
export function encodeF32(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i], true);
  return out;
}

/** Encode numbers as little-endian float16 bytes. */
export function encodeF16(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length * 2);
  for (let i = 0; i < values.length; i++) {
    const half = float32ToFloat16Bits(values[i]);
    out[2 * i] = half & 0xff;
    out[2 * i + 1] = half >>> 8;
  }
  return out;
}
