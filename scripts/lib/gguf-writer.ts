/**
 * A small GGUF (v3) writer: enough to produce real model files for tests and benchmarks (the fixture model), and
 * deliberately broken ones for the load-error tests. Spec: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 *
 * Output is a pure function of the input: no timestamps, no map-order dependence, so two builds hash the same.
 */
import { closeSync, openSync, renameSync, writeSync } from "node:fs";
import { GGUF_MAGIC } from "../../src/model/gguf-header.js";

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

/** One typed metadata value. Build them with {@link gguf}. */
export type GgufValue =
  | { kind: ScalarKind; value: number | bigint | boolean | string }
  | { kind: "arr"; itemKind: ScalarKind; items: ArrayLike<number | bigint | boolean | string> };

/** Typed metadata value constructors: `gguf.u32(2)`, `gguf.str("gemma3")`, `gguf.arr("f32", scores)`. */
export const gguf = {
  u32: (value: number): GgufValue => ({ kind: "u32", value }),
  i32: (value: number): GgufValue => ({ kind: "i32", value }),
  u64: (value: number | bigint): GgufValue => ({ kind: "u64", value }),
  f32: (value: number): GgufValue => ({ kind: "f32", value }),
  bool: (value: boolean): GgufValue => ({ kind: "bool", value }),
  str: (value: string): GgufValue => ({ kind: "str", value }),
  arr: (itemKind: ScalarKind, items: ArrayLike<number | bigint | boolean | string>): GgufValue => ({
    kind: "arr",
    itemKind,
    items,
  }),
};

/** ggml tensor types this writer can store (the numbers are ggml's). */
export const GGML_TYPE = { F32: 0, F16: 1, I8: 24 } as const;

/** Bytes per element of each storable tensor type. */
const ELEMENT_BYTES: Record<GgufTensor["type"], number> = { [GGML_TYPE.F32]: 4, [GGML_TYPE.F16]: 2, [GGML_TYPE.I8]: 1 };

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

/** Collects bytes in large chunks so a 262,144-entry vocabulary does not become 262,144 buffers. */
class ByteSink {
  readonly #chunks: Buffer[] = [];
  readonly #littleEndian: boolean;
  #current = Buffer.allocUnsafe(1 << 20);
  #used = 0;
  #total = 0;

  constructor(littleEndian = true) {
    this.#littleEndian = littleEndian;
  }

  get length(): number {
    return this.#total;
  }

  #reserve(n: number): void {
    if (this.#used + n <= this.#current.length) return;
    this.#chunks.push(this.#current.subarray(0, this.#used));
    this.#current = Buffer.allocUnsafe(Math.max(1 << 20, n));
    this.#used = 0;
  }

  /** Write one number of `size` bytes in the file's byte order. */
  #number(size: number, write: (view: DataView, littleEndian: boolean) => void): void {
    this.#reserve(size);
    write(new DataView(this.#current.buffer, this.#current.byteOffset + this.#used, size), this.#littleEndian);
    this.#used += size;
    this.#total += size;
  }

  u8(v: number): void {
    this.#number(1, (view) => view.setUint8(0, v));
  }
  i8(v: number): void {
    this.#number(1, (view) => view.setInt8(0, v));
  }
  u16(v: number): void {
    this.#number(2, (view, le) => view.setUint16(0, v, le));
  }
  i16(v: number): void {
    this.#number(2, (view, le) => view.setInt16(0, v, le));
  }
  u32(v: number): void {
    this.#number(4, (view, le) => view.setUint32(0, v >>> 0, le));
  }
  i32(v: number): void {
    this.#number(4, (view, le) => view.setInt32(0, v, le));
  }
  f32(v: number): void {
    this.#number(4, (view, le) => view.setFloat32(0, v, le));
  }
  f64(v: number): void {
    this.#number(8, (view, le) => view.setFloat64(0, v, le));
  }
  u64(v: number | bigint): void {
    this.#number(8, (view, le) => view.setBigUint64(0, BigInt(v), le));
  }
  i64(v: number | bigint): void {
    this.#number(8, (view, le) => view.setBigInt64(0, BigInt(v), le));
  }

  bytes(data: Uint8Array): void {
    this.#reserve(data.length);
    this.#current.set(data, this.#used);
    this.#used += data.length;
    this.#total += data.length;
  }

  str(s: string): void {
    const encoded = Buffer.from(s, "utf8");
    this.u64(encoded.length);
    this.bytes(encoded);
  }

  pad(alignment: number): void {
    const rest = this.#total % alignment;
    if (rest !== 0) this.bytes(new Uint8Array(alignment - rest));
  }

  buffers(): Buffer[] {
    return [...this.#chunks, this.#current.subarray(0, this.#used)];
  }
}

function writeScalar(sink: ByteSink, kind: ScalarKind, value: number | bigint | boolean | string): void {
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
      return sink.u32(Number(value));
    case "i32":
      return sink.i32(Number(value));
    case "f32":
      return sink.f32(Number(value));
    case "f64":
      return sink.f64(Number(value));
    case "u64":
      return sink.u64(value as number | bigint);
    case "i64":
      return sink.i64(value as number | bigint);
    case "bool":
      return sink.u8(value ? 1 : 0);
    case "str":
      return sink.str(String(value));
  }
}

function tensorByteSize(tensor: GgufTensor): number {
  const elements = tensor.dims.reduce((a, b) => a * b, 1);
  return elements * ELEMENT_BYTES[tensor.type];
}

/** Encode a GGUF file into buffers (header, metadata, tensor infos, aligned tensor data). */
export function encodeGguf(file: GgufFile): Buffer[] {
  const alignment = file.alignment ?? 32;
  const sink = new ByteSink(!file.bigEndian);
  sink.bytes(GGUF_MAGIC);
  sink.u32(file.version ?? 3);
  sink.u64(file.tensorCount ?? file.tensors.length);
  sink.u64(file.metadataCount ?? file.metadata.length);
  for (const [key, value] of file.metadata) {
    sink.str(key);
    sink.u32(GGUF_TYPE[value.kind]);
    if (value.kind === "arr") {
      sink.u32(GGUF_TYPE[value.itemKind]);
      sink.u64(value.items.length);
      for (let i = 0; i < value.items.length; i++) writeScalar(sink, value.itemKind, value.items[i]);
    } else writeScalar(sink, value.kind, value.value);
  }
  let offset = 0;
  for (const tensor of file.tensors) {
    const expected = tensorByteSize(tensor);
    if (tensor.data.length !== expected)
      throw new Error(
        `gguf-writer: tensor ${tensor.name} has ${tensor.data.length} bytes, its shape needs ${expected}`,
      );
    sink.str(tensor.name);
    sink.u32(tensor.dims.length);
    for (const d of tensor.dims) sink.u64(d);
    sink.u32(tensor.type);
    sink.u64(offset);
    offset += Math.ceil(expected / alignment) * alignment;
  }
  sink.pad(alignment);
  for (const tensor of file.tensors) {
    sink.bytes(tensor.data);
    sink.pad(alignment);
  }
  return sink.buffers();
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
