import { constants } from "node:fs";
import { lstat, opendir, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineSkill, type Skill } from "../skill.js";
import { LIST_FILES_MAX_CHARS, LIST_FILES_MAX_ENTRIES, READ_FILE_MAX_BYTES } from "./defaults.js";
import { openConfined, resolveAllowedRoot, resolveConfinedPath, type AllowedRoot } from "./confined-path.js";
import { FileAccessError } from "./file-access-error.js";

/** Options of `createFileSkills`. */
export interface FileSkillsOptions {
  /** The only directory the skills may read, with everything below it. Must exist (else `AllowDirError`). */
  allowDir: string;
  /** Most bytes one `read_file` returns; default `READ_FILE_MAX_BYTES` (3,000). The model may ask for fewer. */
  maxBytes?: number;
  /** Most entries one `list_files` shows; default `LIST_FILES_MAX_ENTRIES` (200). */
  maxEntries?: number;
}

/** One entry of a `list_files` result; `size` in bytes, for regular files only. */
export interface FileEntry {
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  size?: number;
}

/** What `list_files` returns; `note` says when entries were left out. */
export interface FileListing {
  path: string;
  entries: FileEntry[];
  note?: string;
}

/** What `read_file` returns; `note` says when the content was cut at the size cap. */
export interface FileContent {
  path: string;
  size: number;
  truncated: boolean;
  note?: string;
  content: string;
}

/** Entries read from a directory before sorting; beyond this the listing says "more than". */
const LIST_SCAN_LIMIT = 10_000;
/** No symbolic link is followed at open (the checked path has none), and a FIFO cannot block the read. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
/** A directory, not followed if its last component became a link. */
const DIRECTORY_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Length of `bytes` without a UTF-8 sequence cut off at the end (a truncated read may split a character). */
function completeUtf8Length(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

async function readCapped(
  root: AllowedRoot,
  requested: string,
  cap: number,
  signal: AbortSignal,
): Promise<FileContent> {
  const { real, display } = await resolveConfinedPath(root, requested);
  const info = await lstat(real);
  if (info.isDirectory()) {
    throw new FileAccessError(
      "is_directory",
      `${JSON.stringify(requested)} is a directory; use list_files to see what it holds`,
    );
  }
  if (!info.isFile())
    throw new FileAccessError(
      "not_a_file",
      `${JSON.stringify(requested)} is not a regular file (a device, socket or pipe)`,
    );

  signal.throwIfAborted();
  const { handle } = await openConfined(root, requested, real, OPEN_FLAGS);
  let size: number;
  let length = 0;
  const buffer = Buffer.alloc(cap + 1); // one byte more than shown tells whether there is more
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw new FileAccessError("not_a_file", `${JSON.stringify(requested)} is not a regular file`);
    size = opened.size;
    while (length < buffer.length) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
  } finally {
    await handle.close();
  }

  const truncated = length > cap;
  let bytes = buffer.subarray(0, Math.min(length, cap));
  if (bytes.includes(0)) throw binary(requested, size);
  if (truncated) bytes = bytes.subarray(0, completeUtf8Length(bytes));
  let content: string;
  try {
    content = utf8.decode(bytes);
  } catch {
    throw binary(requested, size);
  }
  const total = Math.max(size, length);
  // `note` comes before `content` so it survives when the dispatcher cuts a long result at its own cap.
  if (!truncated) return { path: display, size: total, truncated, content };
  const note = `Truncated: showing the first ${bytes.length} bytes of ${total}${size < length ? "+" : ""}.`;
  return { path: display, size: total, truncated, note, content };
}

function binary(requested: string, size: number): FileAccessError {
  return new FileAccessError(
    "binary",
    `${JSON.stringify(requested)} is a binary file (${size} bytes); read_file shows UTF-8 text files only`,
  );
}

async function listCapped(
  root: AllowedRoot,
  requested: string,
  maxEntries: number,
  signal: AbortSignal,
): Promise<FileListing> {
  const { real, display } = await resolveConfinedPath(root, requested);
  if (!(await stat(real)).isDirectory()) {
    throw new FileAccessError(
      "not_a_directory",
      `${JSON.stringify(requested)} is a file, not a directory; use read_file to read it`,
    );
  }
  // The directory is opened, checked, and listed through its descriptor: what is listed is what was checked.
  const { handle, fdPath } = await openConfined(root, requested, real, DIRECTORY_FLAGS);
  try {
    return await listOpened(fdPath, display, maxEntries, signal);
  } finally {
    await handle.close();
  }
}

/** The listing of a directory opened and checked by {@link openConfined}, read through its descriptor path. */
async function listOpened(dir: string, display: string, maxEntries: number, signal: AbortSignal): Promise<FileListing> {
  const found: { name: string; type: FileEntry["type"] }[] = [];
  let more = false;
  for await (const entry of await opendir(dir)) {
    signal.throwIfAborted();
    if (found.length === LIST_SCAN_LIMIT) {
      more = true;
      break; // leaving the loop closes the directory
    }
    const type = entry.isFile() ? "file" : entry.isDirectory() ? "dir" : entry.isSymbolicLink() ? "symlink" : "other";
    found.push({ name: entry.name, type });
  }
  found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const entries: FileEntry[] = [];
  let chars = 0;
  for (const { name, type } of found.slice(0, maxEntries)) {
    signal.throwIfAborted();
    const size =
      type === "file"
        ? await lstat(path.join(dir, name)).then(
            (s) => s.size,
            () => undefined,
          )
        : undefined;
    const entry: FileEntry = size === undefined ? { name, type } : { name, type, size };
    chars += JSON.stringify(entry).length + 1;
    if (chars > LIST_FILES_MAX_CHARS) break;
    entries.push(entry);
  }
  const listing: FileListing = { path: display, entries };
  if (found.length > entries.length || more) {
    listing.note = `Showing the first ${entries.length} of ${more ? "more than " : ""}${found.length} entries, by name.`;
  }
  return listing;
}

/**
 * Makes the read-only file skills, confined to `allowDir`: `list_files` (names, types and sizes, at most
 * `maxEntries`) and `read_file` (UTF-8 text, at most `maxBytes`; binary files refused). Paths that leave the
 * directory through `..`, absolute paths outside it and symbolic links that resolve outside it are refused with a
 * `FileAccessError` whose message names the reason. Throws `AllowDirError` now when `allowDir` is missing or not a
 * directory.
 */
export function createFileSkills(options: FileSkillsOptions): { listFiles: Skill; readFile: Skill } {
  const root = resolveAllowedRoot(options.allowDir);
  const cap = options.maxBytes ?? READ_FILE_MAX_BYTES;
  const maxEntries = options.maxEntries ?? LIST_FILES_MAX_ENTRIES;
  if (!(Number.isInteger(cap) && cap > 0)) throw new TypeError("createFileSkills: maxBytes must be a positive integer");
  if (!(Number.isInteger(maxEntries) && maxEntries > 0))
    throw new TypeError("createFileSkills: maxEntries must be a positive integer");

  const listFiles = defineSkill({
    name: "list_files",
    description:
      'List the files and folders in a folder of the allowed directory, with type and size. Example: {"path":"docs"}',
    parameters: z.object({
      path: z
        .string()
        .optional()
        .describe('Folder relative to the allowed directory, e.g. "docs"; default "." (the top)'),
    }),
    async run(args, ctx): Promise<FileListing> {
      return listCapped(root, args.path?.trim() || ".", maxEntries, ctx.signal);
    },
  });

  const readFile = defineSkill({
    name: "read_file",
    description: `Read a text file in the allowed directory (first ${cap} bytes at most). Example: {"path":"notes/todo.txt"}`,
    parameters: z.object({
      path: z.string().min(1).describe('File path relative to the allowed directory, e.g. "notes/todo.txt"'),
      maxBytes: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(`Read at most this many bytes; default and maximum ${cap}`),
    }),
    async run(args, ctx): Promise<FileContent> {
      if (!args.path.trim())
        throw new FileAccessError("bad_path", 'The path is empty; give a file path such as "notes.txt"');
      return readCapped(root, args.path, Math.min(args.maxBytes ?? cap, cap), ctx.signal);
    },
  });

  return { listFiles, readFile };
}
