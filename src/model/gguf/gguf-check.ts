import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import { GgufInsights, readGgufFileInfo, type GgufFileInfo, type Llama } from "node-llama-cpp";
import { ModelLoadError } from "../errors.js";
import { GgufHeaderError, isGgufMagic, readGgufHeader, type GgufHeader } from "./gguf-header.js";

/** What {@link checkGgufFile} learnt about a file that passed. */
export interface GgufCheckResult {
  path: string;
  sizeBytes: number;
  version: number;
  /** `general.architecture`. */
  architecture: string;
  /** The parsed header (vocabulary arrays left out), for the loader. */
  fileInfo: GgufFileInfo;
}

/** Metadata arrays skipped when reading a header: they are megabytes and the check needs none of them. */
const SKIPPED_KEYS = [
  "tokenizer.ggml.tokens",
  "tokenizer.ggml.scores",
  "tokenizer.ggml.token_type",
  "tokenizer.ggml.merges",
];

const REDOWNLOAD = "delete it and download it again (gemma-agent pull <model>), or pick another file";

function corrupt(path: string, detail: string, cause?: unknown): ModelLoadError {
  return new ModelLoadError(
    "corrupt",
    `${path} is damaged or incomplete (${detail}): ${REDOWNLOAD}.`,
    path,
    cause === undefined ? undefined : { cause },
  );
}

/** A hint for a file that is not GGUF: what it looks like instead. */
function describeNotGguf(head: Buffer): string {
  const text = head.toString("latin1").trimStart().toLowerCase();
  if (text.startsWith("<!doctype") || text.startsWith("<html"))
    return "it is an HTML page (a failed or redirected download?)";
  if (text.startsWith("version https://git-lfs")) return "it is a Git LFS pointer, not the model itself";
  if (text.startsWith("{")) return "it looks like JSON (a config or tokenizer file?)";
  if (head.length >= 2 && head[0] === 0x50 && head[1] === 0x4b)
    return "it is a ZIP archive (a PyTorch or safetensors checkpoint? convert it to GGUF first)";
  return "it does not start with the GGUF magic bytes";
}

/** The first bytes of a file, opened without blocking (a FIFO put in its place after the stat cannot hang us). */
async function readHead(path: string, size: number): Promise<Buffer> {
  const head = Buffer.alloc(Math.min(size, 64));
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw new ModelLoadError(
      "not_found",
      `Cannot open ${path} (${error.code ?? error.message}): check its permissions.`,
      path,
      { cause: error },
    );
  });
  try {
    await file.read(head, 0, head.length, 0);
  } finally {
    await file.close();
  }
  return head;
}

/** The size of the model file at `path`: it must exist and be a regular file (`not_found`, `not_gguf`). */
async function modelFileSize(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      throw new ModelLoadError(
        "not_found",
        `${path} is a directory, not a model file: pass the path of a .gguf file (or a catalog alias).`,
        path,
      );
    }
    if (!info.isFile())
      throw new ModelLoadError(
        "not_gguf",
        `${path} is not a regular file (a FIFO, socket or device): pass the path of a .gguf file.`,
        path,
      );
    return info.size;
  } catch (error) {
    if (error instanceof ModelLoadError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ModelLoadError(
        "not_found",
        `No model file at ${path}: check the path, or download a model with: gemma-agent pull <alias> (see gemma-agent models).`,
        path,
        { cause: error },
      );
    }
    throw new ModelLoadError(
      "not_found",
      `Cannot read ${path} (${code ?? String(error)}): check the path and its permissions.`,
      path,
      { cause: error },
    );
  }
}

/** The file must start with the GGUF magic (`not_gguf`, saying what it looks like instead). */
async function requireGgufMagic(path: string, size: number): Promise<void> {
  const head = await readHead(path, size);
  if (!isGgufMagic(head)) {
    throw new ModelLoadError(
      "not_gguf",
      `${path} is not a GGUF model file: ${describeNotGguf(head)}. gemma-agent runs GGUF files (e.g. gemma-agent pull gemma-4-e2b).`,
      path,
    );
  }
}

/** The header through the project's bounded reader, with tensors and an architecture (`corrupt` otherwise). */
async function readCheckedHeader(path: string): Promise<GgufHeader & { architecture: string }> {
  let header: GgufHeader;
  try {
    header = await readGgufHeader(path);
  } catch (error) {
    if (!(error instanceof GgufHeaderError))
      throw new ModelLoadError(
        "not_found",
        `Cannot read ${path} (${(error as Error)?.message ?? String(error)}).`,
        path,
        { cause: error },
      );
    if (error.code === "not_a_file") throw new ModelLoadError("not_gguf", error.message, path, { cause: error });
    throw corrupt(path, error.message, error);
  }
  // the tensor count is the u64 at byte 8 (after the magic and the version); the metadata starts at byte 24
  if (header.tensorCount === 0) throw corrupt(path, "the tensor count at byte 8 is 0: the file holds no tensors");
  if (!header.architecture)
    throw corrupt(path, `the metadata (bytes 24 to ${header.metadataBytes}) has no string general.architecture`);
  return header as GgufHeader & { architecture: string };
}

/** node-llama-cpp's parse of the header (vocabulary arrays skipped), once the bounded reader has passed it. */
async function readFileInfo(path: string): Promise<GgufFileInfo> {
  try {
    return await readGgufFileInfo(path, {
      sourceType: "filesystem",
      readTensorInfo: true,
      ignoreKeys: SKIPPED_KEYS,
      logWarnings: false,
    });
  } catch (error) {
    throw corrupt(path, `its header cannot be read: ${(error as Error)?.message ?? String(error)}`, error);
  }
}

/**
 * Check a model file before llama.cpp sees it, so that every problem becomes a {@link ModelLoadError} with advice
 * instead of an opaque native error or a crash: it exists and is a regular file (`not_found`; a FIFO or device is
 * `not_gguf`), starts with the GGUF magic (`not_gguf`), and passes the project's own bounded header reader
 * ({@link readGgufHeader}: every length, count, type, dimension and tensor extent, `corrupt` naming the field and its
 * byte offset) before node-llama-cpp's reader, which trusts the header's lengths, opens it.
 * {@link checkGgufRunnable} goes on with what needs llama.cpp.
 */
export async function checkGgufFile(path: string): Promise<GgufCheckResult> {
  const size = await modelFileSize(path);
  await requireGgufMagic(path, size);
  const header = await readCheckedHeader(path);
  const fileInfo = await readFileInfo(path);
  return { path, sizeBytes: size, version: header.version, architecture: header.architecture, fileInfo };
}

/**
 * The checks of a parsed GGUF that need the llama.cpp runtime: its architecture is one this build can run
 * (`unsupported_architecture`), and the file holds all the tensor data its header announces (`corrupt`: a truncated
 * download would otherwise reach llama.cpp as "Failed to load model").
 */
export async function checkGgufRunnable(checked: GgufCheckResult, llama: Llama): Promise<void> {
  const { path, architecture, fileInfo, sizeBytes: size } = checked;
  const tensors = fileInfo.tensorInfo ?? [];
  const insights = await GgufInsights.from(fileInfo, llama);
  if (!insights.isSupportedByLlamaCpp) {
    throw new ModelLoadError(
      "unsupported_architecture",
      `${path} is a "${architecture}" model, an architecture this build of llama.cpp cannot run: use a supported model (Gemma 3, 3n or 4: see gemma-agent models) or update gemma-agent.`,
      path,
    );
  }
  // The tensor data must fit in the file: the first tensor's offset plus the size of all tensors is a lower bound.
  const dataStart = tensors.reduce((min, t) => Math.min(min, Number(t.fileOffset)), Number.POSITIVE_INFINITY);
  const needed = dataStart + insights.modelSize;
  if (Number.isFinite(needed) && needed > size) {
    throw corrupt(path, `the tensor data needs at least ${needed} bytes, the file has ${size}: a truncated download?`);
  }
}
