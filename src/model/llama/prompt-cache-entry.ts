import { processAlive } from "../../lock-file.js";
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import { openRegularFile, readRegularFile, readRegularText } from "../../regular-file.js";

/** What the cache writes beside a state file: the state's size and hash, signed with the folder's key. */
export interface EntryRecord {
  kind: typeof RECORD_KIND;
  version: 2;
  tokens: number;
  bytes: number;
  sha256: string;
  lastUsed: number;
  /** HMAC-SHA256 with the cache's key over the entry's name, tokens, bytes and sha256: only this cache writes it. */
  mac: string;
}

const RECORD_KIND = "gemma-agent-prompt-cache";
/** An entry's files: a 40-hex-digit key and `.state` or `.json`; nothing else in the folder is the cache's. */
export const ENTRY_NAME = /^([0-9a-f]{40})\.(state|json)$/;
/** The key that signs records: made by the cache, readable by its user only. */
export const KEY_FILE = "gemma-agent-prompt-cache.key";
/** The cache's own folder for files being written (mode 0700, this user's): what a killed write leaves lies there. */
const TEMP_DIR = "gemma-agent-prompt-cache.tmp";
/** A file being written: an entry's name (or the key's), the writing process's id, a random tag. */
const TEMP_NAME = /^(?:[0-9a-f]{40}\.(?:state|json)|gemma-agent-prompt-cache\.key)\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * The cache's folder for files being written, made now (0700) or checked (a folder of this user's that no one else
 * can write in: what lies there is the cache's own), with the leftovers of writes whose process died removed (only
 * files named as its temporary files). Throws when the folder is not the cache's.
 */
export function tempFolder(dir: string): string {
  const path = join(dir, TEMP_DIR);
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const info = lstatSync(path);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o077) !== 0)
    throw new Error(`${path} is not this user's private folder`);
  for (const name of readdirSync(path)) {
    const match = TEMP_NAME.exec(name);
    if (match && Number(match[1]) !== process.pid && !processAlive(Number(match[1])))
      rmSync(join(path, name), { force: true });
  }
  return path;
}

/** A new temporary name in the cache's temp folder for the entry file `name` (`<key>.state`). */
export function tempName(folder: string, name: string): string {
  return join(folder, `${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}
/** A record is a line of JSON: anything larger is not one of ours. */
const MAX_RECORD_BYTES = 4_096;
/** llama.cpp's sequence state files begin with 'ggsq' (LLAMA_STATE_SEQ_MAGIC), a version and the token count. */
const STATE_MAGIC = 0x67677371;

/** The two files of an entry. */
export interface EntryPaths {
  key: string;
  state: string;
  record: string;
}

/** The paths of entry `key` in `dir`. */
export function entryPaths(dir: string, key: string): EntryPaths {
  return { key, state: join(dir, `${key}.state`), record: join(dir, `${key}.json`) };
}

/** The key file's bytes, or undefined when there is none; a key file that is not this user's private file throws. */
function readKeyFile(path: string): Buffer | undefined {
  let info;
  try {
    info = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const uid = process.getuid?.();
  if (!info.isFile() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o077) !== 0)
    throw new Error(
      `${path} is not this user's private key file (owner ${info.uid}, mode ${(info.mode & 0o777).toString(8)})`,
    );
  return readRegularFile(path, 64, "the prompt cache's key");
}

/** Link errors of a file system without hard links. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/**
 * Give the whole file `temp` the name `path` when there is none there (EEXIST otherwise). On a file system without
 * hard links, a rename when the name is free (two processes at once may then both rename: the last one's key is the
 * folder's, and what the other signed is deleted on use and saved again).
 */
function linkInOrRename(temp: string, path: string): void {
  try {
    linkSync(temp, path);
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
    if (existsSync(path)) throw Object.assign(new Error(`${path} exists`), { code: "EEXIST" });
    renameSync(temp, path);
  }
}

/**
 * The folder's signing key: read when it is there (a regular file of 32 bytes, owned by this user and readable by no
 * one else; otherwise the cache is not trusted and throws), else made now: written whole and flushed in the cache's
 * temporary folder (mode 0600), then linked in under its name, so that no process, killed or not, ever leaves the
 * name holding a part of a key (an empty key file turned the cache off for good). When two processes make one at
 * once, the one linked first is the key. An empty key file (left by a process killed between making and writing it,
 * before keys were linked in whole) is replaced.
 */
export function cacheKey(dir: string): Buffer {
  const path = join(dir, KEY_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = readKeyFile(path);
    if (existing?.length === 32) return existing;
    if (existing && existing.length > 0) throw new Error(`${path} does not hold a key`);
    const key = randomBytes(32);
    const temp = tempName(tempFolder(dir), KEY_FILE);
    const fd = openRegularFile(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      if (writeSync(fd, key) !== key.length) throw new Error(`${temp}: short write`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      if (existing) renameSync(temp, path);
      else linkInOrRename(temp, path);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // another process linked its key first: read that one
    } finally {
      rmSync(temp, { force: true });
    }
  }
  throw new Error(`${path} does not hold a key`);
}

function mac(key: Buffer, name: string, record: Pick<EntryRecord, "tokens" | "bytes" | "sha256">): string {
  return createHmac("sha256", key)
    .update(`${name}\u0000${record.tokens}\u0000${record.bytes}\u0000${record.sha256}`)
    .digest("hex");
}

/** A record for a state this cache just wrote, signed. */
export function signedRecord(
  key: Buffer,
  name: string,
  fields: Pick<EntryRecord, "tokens" | "bytes" | "sha256">,
): EntryRecord {
  return { kind: RECORD_KIND, version: 2, ...fields, lastUsed: Date.now(), mac: mac(key, name, fields) };
}

/**
 * The record at `path` when it is one of this cache's (a small regular file, not a link, holding a record of this
 * cache's kind), else undefined: a foreign file or a FIFO is never read further nor deleted. `trusted` says whether
 * its signature checks with the folder's key: only a trusted record's state is ever handed to llama.cpp; an untrusted
 * one (damaged, or forged) is deleted with its entry.
 */
export function ownRecord(
  path: string,
  name: string,
  key: Buffer,
): { record: EntryRecord; trusted: boolean } | undefined {
  let value: Partial<EntryRecord>;
  try {
    if (!lstatSync(path).isFile()) return undefined;
    value = JSON.parse(readRegularText(path, MAX_RECORD_BYTES, "a prompt cache record")) as Partial<EntryRecord>;
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || value.kind !== RECORD_KIND) return undefined;
  const record = value as EntryRecord;
  const wellFormed =
    record.version === 2 &&
    typeof record.mac === "string" &&
    typeof record.sha256 === "string" &&
    [record.tokens, record.bytes, record.lastUsed].every((n) => Number.isSafeInteger(n) && n >= 0);
  if (!wellFormed) return { record: { ...record, lastUsed: 0, bytes: 0 }, trusted: false };
  const expected = Buffer.from(mac(key, name, record), "hex");
  const given = Buffer.from(record.mac, "hex");
  return { record, trusted: given.length === expected.length && timingSafeEqual(given, expected) };
}

/**
 * Copy the state at `from` to `to` (a new file in a private folder) and check it on the way, so that llama.cpp reads
 * exactly the bytes checked (no swap between the check and the load): a regular file of the record's size whose
 * sha256 is the record's, and whose header is a sequence state of exactly `tokens` (the token ids llama.cpp will
 * trust are ours). Throws, naming what differs.
 */
export function copyCheckedState(from: string, to: string, record: EntryRecord, tokens: readonly Token[]): void {
  const source = openRegularFile(from, constants.O_RDONLY);
  let target: number | undefined;
  try {
    if (fstatSync(source).size !== record.bytes) throw new Error("the state's size is not the record's");
    target = openRegularFile(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    const hash = createHash("sha256");
    const chunk = Buffer.alloc(1 << 20);
    let done = 0;
    let header = Buffer.alloc(0);
    const headerBytes = 12 + 4 * tokens.length;
    while (done < record.bytes) {
      const read = readSync(source, chunk, 0, Math.min(chunk.length, record.bytes - done), done);
      if (read === 0) throw new Error("the state ended early");
      const bytes = chunk.subarray(0, read);
      hash.update(bytes);
      if (header.length < headerBytes) header = Buffer.concat([header, bytes.subarray(0, headerBytes - header.length)]);
      for (let at = 0; at < read;) at += writeSync(target, bytes, at, read - at);
      done += read;
    }
    if (hash.digest("hex") !== record.sha256) throw new Error("the state's sha256 is not the record's");
    checkHeader(header, tokens);
  } finally {
    closeSync(source);
    if (target !== undefined) closeSync(target);
  }
}

function checkHeader(header: Buffer, tokens: readonly Token[]): void {
  if (header.length < 12 + 4 * tokens.length || header.readUInt32LE(0) !== STATE_MAGIC)
    throw new Error("not a llama.cpp sequence state");
  if (header.readUInt32LE(8) !== tokens.length) throw new Error("the state holds another number of tokens");
  for (let i = 0; i < tokens.length; i++)
    if (header.readInt32LE(12 + 4 * i) !== tokens[i]) throw new Error("the state holds other tokens");
}

/** sha256 of a regular file (read through one descriptor, never blocking on a FIFO). */
export function fileSha256(path: string): { sha256: string; bytes: number } {
  const fd = openRegularFile(path, constants.O_RDONLY);
  try {
    const hash = createHash("sha256");
    const chunk = Buffer.alloc(1 << 20);
    let bytes = 0;
    for (let read; (read = readSync(fd, chunk, 0, chunk.length, bytes)) > 0; bytes += read)
      hash.update(chunk.subarray(0, read));
    return { sha256: hash.digest("hex"), bytes };
  } finally {
    closeSync(fd);
  }
}
