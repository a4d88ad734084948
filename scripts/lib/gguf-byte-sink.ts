/**
 * The byte sink the GGUF writer (gguf-writer.ts) encodes into: numbers in the file's byte order, strings, padding,
 * and, when asked, where each u32/u64 field went.
 */

/** What an integer field of the file is: a count, a length, a type, a dimension (count), an offset or a value. */
export type GgufFieldRole = "version" | "count" | "length" | "type" | "dims" | "dim" | "offset" | "value";

/**
 * One u32 or u64 field of an encoded file and where it lies, named after what it holds: "tensor count",
 * "length of key general.name", "value type of K", "item type of K", "length of K" (a string's bytes, an array's
 * items), "K" (a u32/u64 value), "K[i]" for an array's items, "dimension 0 of T", "data offset of T".
 */
export interface GgufField {
  name: string;
  offset: number;
  width: 4 | 8;
  role: GgufFieldRole;
}

/** Collects bytes in large chunks so a 262,144-entry vocabulary does not become 262,144 buffers. */
export class ByteSink {
  readonly #chunks: Buffer[] = [];
  readonly #littleEndian: boolean;
  /** Where each integer field went, when asked for (gguf-writer.ts's ggufLayout). */
  readonly fields: GgufField[] | undefined;
  #current = Buffer.allocUnsafe(1 << 20);
  #used = 0;
  #total = 0;

  constructor(littleEndian = true, recordFields = false) {
    this.#littleEndian = littleEndian;
    this.fields = recordFields ? [] : undefined;
  }

  /** A u32 field named `name` (recorded when fields are). */
  field32(v: number, name: string, role: GgufFieldRole): void {
    this.fields?.push({ name, offset: this.#total, width: 4, role });
    this.u32(v);
  }

  /** A u64 field named `name` (recorded when fields are). */
  field64(v: number | bigint, name: string, role: GgufFieldRole): void {
    this.fields?.push({ name, offset: this.#total, width: 8, role });
    this.u64(v);
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

  /** A string: its u64 byte length (the field "length of `name`"), then its UTF-8 bytes. */
  str(s: string, name: string): void {
    const encoded = Buffer.from(s, "utf8");
    this.field64(encoded.length, `length of ${name}`, "length");
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
