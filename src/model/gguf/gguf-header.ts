import { CodedError } from "../../coded-error.js";
import { constants } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import {
  GGUF_MAX_HEADER_BYTES,
  GGUF_MAX_METADATA_ENTRIES,
  GGUF_MAX_STRING_BYTES,
  GGUF_READ_CHUNK_BYTES,
} from "../defaults.js";
import { quantizationName } from "./gguf-file-type.js";
import { GGML_MAX_DIMS, GGML_MAX_NAME_BYTES, GGUF_DEFAULT_ALIGNMENT, ggmlTypeTraits } from "./ggml-types.js";

/** The four bytes every GGUF file starts with. */
export const GGUF_MAGIC = Buffer.from("GGUF", "latin1");

/** True when `bytes` starts with the GGUF magic. */
export function isGgufMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && GGUF_MAGIC.equals(bytes.subarray(0, 4));
}

/** True when the file at `path` starts with the GGUF magic. */
export async function startsWithGguf(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && isGgufMagic(head);
  } finally {
    await handle.close();
  }
}

/** Why a GGUF header could not be read. */
export type GgufHeaderErrorCode = "not_a_file" | "not_gguf" | "truncated" | "unsupported_version" | "corrupt";

/** A file is not a readable GGUF; `message` says what is wrong and where. */
export class GgufHeaderError extends CodedError<GgufHeaderErrorCode> {
  override readonly name = "GgufHeaderError";
}

/** A metadata value: scalars as JS values (64-bit integers beyond 2^53 as decimal strings), arrays summarized. */
export type GgufMetadataValue = string | number | boolean | { array: GgufValueTypeName; length: number };

/** What the header of a GGUF file says about the model. */
export interface GgufHeader {
  /** GGUF format version (2 or 3). */
  version: number;
  littleEndian: boolean;
  tensorCount: number;
  /** `general.architecture`, e.g. `gemma3`. */
  architecture?: string;
  /** `general.name`. */
  name?: string;
  /** `general.file_type` (llama.cpp `llama_ftype`). */
  fileType?: number;
  /** {@link GgufHeader.fileType} as a name (`Q4_K_M`), `unknown` when absent or unknown. */
  quantization: string;
  /** `<architecture>.context_length`: the context the model was trained for. */
  contextLength?: number;
  /** Every metadata key; arrays (vocabulary, scores, merges) appear as `{ array, length }`, never their items. */
  metadata: Record<string, GgufMetadataValue>;
  /** Bytes of the file the header (magic through metadata, tensor infos excluded) occupies. */
  metadataBytes: number;
  /** `general.alignment`, or GGUF's default 32. */
  alignment: number;
  /** Byte offset where the tensor data starts (after the tensor infos, aligned). */
  tensorDataOffset: number;
  /** Bytes of tensor data the tensor infos describe: the end of the last tensor (unpadded), from tensorDataOffset. */
  tensorDataBytes: number;
}

const VALUE_TYPES = [
  "u8",
  "i8",
  "u16",
  "i16",
  "u32",
  "i32",
  "f32",
  "bool",
  "string",
  "array",
  "u64",
  "i64",
  "f64",
] as const;
/** Names of the GGUF metadata value types, by their type number. */
export type GgufValueTypeName = (typeof VALUE_TYPES)[number];
const FIXED_SIZES: Partial<Record<GgufValueTypeName, number>> = {
  u8: 1,
  i8: 1,
  bool: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  i32: 4,
  f32: 4,
  u64: 8,
  i64: 8,
  f64: 8,
};
const MAX_ARRAY_DEPTH = 4;

/** Smallest tensor info: an empty name's length, one dimension, its type and its offset. */
const MIN_TENSOR_INFO_BYTES = 8 + 4 + 8 + 4 + 8;

/**
 * Reads and validates the header, metadata and tensor infos of a GGUF file without loading the model, so that
 * nothing else (node-llama-cpp's reader, llama.cpp) ever opens a file this has not checked. Bounded (at most
 * `GGUF_MAX_HEADER_BYTES` walked; every string, count and array length checked against what the rest of the file can
 * hold before anything is allocated) and safe on any input: value and tensor types must be known, tensor dimensions
 * and names sane, tensor data laid out as llama.cpp expects and inside the file. Only a regular file is opened (a
 * FIFO or device would block or never end), and what was opened is checked again. A file that fails rejects with
 * {@link GgufHeaderError} naming the field and its byte offset; file-system errors (ENOENT, EACCES) reject as they are.
 */
export async function readGgufHeader(path: string): Promise<GgufHeader> {
  const notAFile = () =>
    new GgufHeaderError(
      "not_a_file",
      `${path} is not a regular file (a directory, FIFO, socket or device): pass a .gguf file`,
    );
  if (!(await stat(path)).isFile()) throw notAFile();
  // O_NONBLOCK: should the path become a FIFO after the stat, the open returns instead of waiting for a writer.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notAFile();
    return await new HeaderReader(handle, info.size).read();
  } finally {
    await handle.close();
  }
}

/** Walks a GGUF header through a small window of the file. */
class HeaderReader {
  private window = Buffer.alloc(0);
  private windowStart = 0;
  private pos = 0;
  private littleEndian = true;
  private readonly limit: number;

  constructor(
    private readonly handle: FileHandle,
    private readonly fileSize: number,
  ) {
    this.limit = Math.min(fileSize, GGUF_MAX_HEADER_BYTES);
  }

  async read(): Promise<GgufHeader> {
    if (this.fileSize < 4) throw new GgufHeaderError("not_gguf", `not a GGUF file: only ${this.fileSize} bytes`);
    await this.need(4, "magic");
    if (!isGgufMagic(this.bytes(4)))
      throw new GgufHeaderError("not_gguf", "not a GGUF file: the first bytes are not 'GGUF'");
    this.pos += 4;
    const version = await this.readVersion();
    const tensorCount = await this.count("tensor count", 1 << 24);
    const entries = await this.count("metadata entry count", GGUF_MAX_METADATA_ENTRIES);
    const metadata: Record<string, GgufMetadataValue> = Object.create(null);
    for (let index = 0; index < entries; index++) {
      const key = await this.string("metadata key", 65_535);
      metadata[key] = await this.value(await this.valueType(key), key, 0);
    }
    const metadataBytes = this.pos;
    const alignment = this.alignment(metadata["general.alignment"]);
    const tensors = await this.tensorInfos(tensorCount, alignment);
    const architecture =
      typeof metadata["general.architecture"] === "string" ? metadata["general.architecture"] : undefined;
    const fileType = numberOf(metadata["general.file_type"]);
    return {
      version,
      littleEndian: this.littleEndian,
      tensorCount,
      architecture,
      name: typeof metadata["general.name"] === "string" ? metadata["general.name"] : undefined,
      fileType,
      quantization: quantizationName(fileType),
      contextLength: architecture === undefined ? undefined : numberOf(metadata[`${architecture}.context_length`]),
      metadata,
      metadataBytes,
      alignment,
      ...tensors,
    };
  }

  private alignment(value: GgufMetadataValue | undefined): number {
    if (value === undefined) return GGUF_DEFAULT_ALIGNMENT;
    if (
      typeof value !== "number" ||
      !Number.isInteger(value) ||
      value < 1 ||
      value > 2 ** 30 ||
      (value & (value - 1)) !== 0
    ) {
      throw this.corrupt(`general.alignment is ${JSON.stringify(value)}, not a power of two`);
    }
    return value;
  }

  /**
   * Walks the tensor infos (name, dimensions, type, offset) and checks them as llama.cpp's loader will: unique names
   * of at most 63 bytes, 1 to 4 dimensions whose element count is exact in the type's blocks, a type llama.cpp reads,
   * and each tensor's data right after the previous one's (aligned) and inside the file.
   */
  private async tensorInfos(
    count: number,
    alignment: number,
  ): Promise<{ tensorDataOffset: number; tensorDataBytes: number }> {
    if (count * MIN_TENSOR_INFO_BYTES > this.fileSize - this.pos) {
      throw this.corrupt(
        `tensor count is ${count}: ${count} tensor infos need at least ${count * MIN_TENSOR_INFO_BYTES} bytes, the file has ${this.fileSize - this.pos} left`,
      );
    }
    const names = new Set<string>();
    let expectedOffset = 0;
    let dataEnd = 0;
    let last = "";
    for (let index = 0; index < count; index++) {
      const infoStart = this.pos;
      const { name, bytes, offset, typeName } = await this.tensorInfo(index, names);
      if (offset !== expectedOffset)
        throw this.corrupt(
          `tensor ${name} data offset is ${offset ?? "above 2^53"}, expected ${expectedOffset} (right after the previous tensor)`,
        );
      dataEnd = offset + bytes;
      expectedOffset = Math.ceil(dataEnd / alignment) * alignment;
      if (!Number.isSafeInteger(expectedOffset) || dataEnd > this.fileSize) {
        throw new GgufHeaderError(
          "truncated",
          `tensor ${name} (${bytes} bytes of ${typeName}) does not fit in the ${this.fileSize}-byte file (its tensor info at byte ${infoStart}): a truncated download?`,
        );
      }
      last = name;
    }
    return this.tensorData(count, alignment, dataEnd, last);
  }

  /** One tensor info: a new name, its shape and ggml type (its data size in bytes), and its data offset. */
  private async tensorInfo(
    index: number,
    names: Set<string>,
  ): Promise<{ name: string; bytes: number; offset: number | undefined; typeName: string }> {
    const name = await this.string(`name of tensor ${index}`, GGML_MAX_NAME_BYTES);
    if (name === "" || names.has(name))
      throw this.corrupt(name === "" ? `tensor ${index} has no name` : `tensor name "${name}" appears twice`);
    names.add(name);
    const { elements, rowLength } = await this.tensorShape(name);
    const type = await this.u32(`type of tensor ${name}`);
    const traits = ggmlTypeTraits(type);
    if (!traits) throw this.corrupt(`tensor ${name} has type ${type}, not a ggml type llama.cpp reads`);
    if (rowLength % traits.blockSize !== 0)
      throw this.corrupt(
        `tensor ${name} rows of ${rowLength} are not whole ${traits.name} blocks of ${traits.blockSize}`,
      );
    const bytes = (elements / traits.blockSize) * traits.typeSize;
    const offset = await this.u64(`data offset of tensor ${name}`);
    return { name, bytes, offset, typeName: traits.name };
  }

  /** A tensor's dimensions (1 to 4): its element count (exact below 2^53) and its row length (the first extent). */
  private async tensorShape(name: string): Promise<{ elements: number; rowLength: number }> {
    const dims = await this.u32(`dimension count of tensor ${name}`);
    if (dims < 1 || dims > GGML_MAX_DIMS)
      throw this.corrupt(`tensor ${name} has ${dims} dimensions (1 to ${GGML_MAX_DIMS})`);
    const extents: number[] = [];
    let elements = 1;
    for (let d = 0; d < dims; d++) {
      const extent = await this.u64(`dimension ${d} of tensor ${name}`);
      if (extent === undefined || !Number.isSafeInteger(elements * extent))
        throw this.corrupt(`tensor ${name} has more than 2^53 elements`);
      elements *= extent;
      extents.push(extent);
    }
    return { elements, rowLength: extents[0] };
  }

  /** Where the tensor data starts (aligned after the infos); it must hold `dataEnd` bytes inside the file. */
  private tensorData(
    count: number,
    alignment: number,
    dataEnd: number,
    last: string,
  ): { tensorDataOffset: number; tensorDataBytes: number } {
    const tensorDataOffset = Math.ceil(this.pos / alignment) * alignment;
    if (count > 0 && tensorDataOffset + dataEnd > this.fileSize) {
      throw new GgufHeaderError(
        "truncated",
        `GGUF file truncated: its tensor data (through tensor ${last}) runs to byte ${tensorDataOffset + dataEnd} of a ${this.fileSize}-byte file: a truncated download?`,
      );
    }
    return { tensorDataOffset, tensorDataBytes: dataEnd };
  }

  /** A u32 at the current position (`what`: the field, for a truncation). */
  private async u32(what: string): Promise<number> {
    await this.need(4, what);
    const view = this.bytes(4);
    this.pos += 4;
    return this.littleEndian ? view.readUInt32LE(0) : view.readUInt32BE(0);
  }

  /** A u64 at the current position as a number, or undefined above 2^53 (no file-size bound: see {@link HeaderReader.count}). */
  private async u64(what: string): Promise<number | undefined> {
    await this.need(8, what);
    const value = safeInteger(this.littleEndian ? this.bytes(8).readBigUInt64LE(0) : this.bytes(8).readBigUInt64BE(0));
    this.pos += 8;
    return typeof value === "number" ? value : undefined;
  }

  private async readVersion(): Promise<number> {
    await this.need(4, "version");
    const view = this.bytes(4);
    const little = view.readUInt32LE(0);
    const big = view.readUInt32BE(0);
    this.pos += 4;
    if (little === 2 || little === 3) return little;
    if (big === 2 || big === 3) {
      this.littleEndian = false;
      return big;
    }
    if (little === 1)
      throw new GgufHeaderError(
        "unsupported_version",
        "GGUF version 1 (the version at byte 4) is obsolete; convert the model again",
      );
    throw new GgufHeaderError("unsupported_version", `unsupported GGUF version ${little} (the version at byte 4)`);
  }

  private async value(type: GgufValueTypeName, key: string, depth: number): Promise<GgufMetadataValue> {
    if (type === "string") return this.string(`value of ${key}`, GGUF_MAX_STRING_BYTES);
    if (type === "array") return this.array(key, depth);
    const size = FIXED_SIZES[type]!;
    await this.need(size, `value of ${key}`);
    const view = this.bytes(size);
    this.pos += size;
    const le = this.littleEndian;
    switch (type) {
      case "u8":
        return view.readUInt8(0);
      case "i8":
        return view.readInt8(0);
      case "bool":
        return view.readUInt8(0) !== 0;
      case "u16":
        return le ? view.readUInt16LE(0) : view.readUInt16BE(0);
      case "i16":
        return le ? view.readInt16LE(0) : view.readInt16BE(0);
      case "u32":
        return le ? view.readUInt32LE(0) : view.readUInt32BE(0);
      case "i32":
        return le ? view.readInt32LE(0) : view.readInt32BE(0);
      case "f32":
        return le ? view.readFloatLE(0) : view.readFloatBE(0);
      case "f64":
        return le ? view.readDoubleLE(0) : view.readDoubleBE(0);
      case "u64":
        return safeInteger(le ? view.readBigUInt64LE(0) : view.readBigUInt64BE(0));
      case "i64":
        return safeInteger(le ? view.readBigInt64LE(0) : view.readBigInt64BE(0));
    }
  }

  /** Skips an array's items (checking every length against the file), returning only its type and length. */
  private async array(key: string, depth: number): Promise<GgufMetadataValue> {
    if (depth >= MAX_ARRAY_DEPTH) throw this.corrupt(`arrays nested deeper than ${MAX_ARRAY_DEPTH} in ${key}`);
    const itemType = await this.valueType(key);
    const length = await this.count(`length of ${key}`, Number.MAX_SAFE_INTEGER);
    const fixed = FIXED_SIZES[itemType];
    if (fixed !== undefined) {
      this.skip(fixed * length, `items of ${key}`);
    } else if (itemType === "string") {
      if (length * 8 > this.limit - this.pos) this.beyondLimit(this.pos + length * 8, `items of ${key}`);
      for (let index = 0; index < length; index++) {
        if (!this.inWindow(8)) await this.need(8, `string length in ${key}`);
        this.skip(this.countNow(`string length in ${key}`, Number.MAX_SAFE_INTEGER), `a string in ${key}`);
      }
    } else {
      if (length * 12 > this.limit - this.pos) this.beyondLimit(this.pos + length * 12, `items of ${key}`);
      for (let index = 0; index < length; index++) await this.array(key, depth + 1);
    }
    return { array: itemType, length };
  }

  private async valueType(key: string): Promise<GgufValueTypeName> {
    await this.need(4, `value type of ${key}`);
    const view = this.bytes(4);
    const type = this.littleEndian ? view.readUInt32LE(0) : view.readUInt32BE(0);
    this.pos += 4;
    const name = VALUE_TYPES[type];
    if (name === undefined) throw this.corrupt(`unknown value type ${type} for key ${JSON.stringify(key)}`);
    return name;
  }

  private async string(what: string, maxBytes: number): Promise<string> {
    const length = await this.count(what, maxBytes);
    await this.need(length, what);
    const text = this.bytes(length).toString("utf8");
    this.pos += length;
    return text;
  }

  /** A u64 count, rejected when above `max` or when that many bytes could not possibly follow in the file. */
  private async count(what: string, max: number): Promise<number> {
    await this.need(8, what);
    return this.countNow(what, max);
  }

  /** {@link HeaderReader.count} once its 8 bytes are in the window. */
  private countNow(what: string, max: number): number {
    const offset = this.pos - this.windowStart;
    const low = this.littleEndian ? this.window.readUInt32LE(offset) : this.window.readUInt32BE(offset + 4);
    const high = this.littleEndian ? this.window.readUInt32LE(offset + 4) : this.window.readUInt32BE(offset);
    // Plain numbers, not BigInt: this runs once per vocabulary entry. Any high word above 2^21 exceeds 2^53.
    const value = high * 2 ** 32 + low;
    if (high >= 2 ** 21 || value > max || value > this.fileSize) {
      throw this.corrupt(`${what} is ${high >= 2 ** 21 ? "above 2^53" : value}, more than the file can hold`);
    }
    this.pos += 8;
    return value;
  }

  private skip(bytes: number, key: string): void {
    if (this.pos + bytes > this.limit) this.beyondLimit(this.pos + bytes, key);
    this.pos += bytes;
  }

  private inWindow(bytes: number): boolean {
    return (
      this.pos >= this.windowStart &&
      this.pos + bytes <= this.windowStart + this.window.length &&
      this.pos + bytes <= this.limit
    );
  }

  /** Makes `[pos, pos + bytes)` readable from the window (`what`: the field it holds, named when it is cut short). */
  private async need(bytes: number, what: string): Promise<void> {
    const end = this.pos + bytes;
    if (end > this.limit) this.beyondLimit(end, what);
    if (this.inWindow(bytes)) return;
    const length = Math.min(Math.max(bytes, GGUF_READ_CHUNK_BYTES), this.fileSize - this.pos);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.handle.read(buffer, 0, length, this.pos);
    if (bytesRead < bytes)
      throw new GgufHeaderError("truncated", `GGUF header truncated at byte ${this.pos + bytesRead}, in ${what}`);
    this.window = buffer.subarray(0, bytesRead);
    this.windowStart = this.pos;
  }

  private bytes(length: number): Buffer {
    const offset = this.pos - this.windowStart;
    return this.window.subarray(offset, offset + length);
  }

  private beyondLimit(end: number, what: string): never {
    if (end > this.fileSize) {
      throw new GgufHeaderError(
        "truncated",
        `GGUF header truncated: ${what} runs to byte ${end} of a ${this.fileSize}-byte file`,
      );
    }
    throw this.corrupt(`GGUF metadata larger than ${GGUF_MAX_HEADER_BYTES} bytes (at ${what})`);
  }

  private corrupt(message: string): GgufHeaderError {
    return new GgufHeaderError("corrupt", `corrupt GGUF header at byte ${this.pos}: ${message}`);
  }
}

function numberOf(value: GgufMetadataValue | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function safeInteger(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}
