import { open, stat } from "node:fs/promises";
import { GgufInsights, readGgufFileInfo, type GgufFileInfo, type Llama } from "node-llama-cpp";
import { ModelLoadError } from "./errors.js";

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
const SKIPPED_KEYS = ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"];

/** Smallest possible GGUF: magic, version, tensor count, metadata count. */
const HEADER_BYTES = 24;
/** Bounds that no real model file exceeds; past them the counts are garbage (a damaged file). */
const MAX_TENSORS = 1_000_000;
const MAX_METADATA_ENTRIES = 1_000_000;

const REDOWNLOAD = "delete it and download it again (gemma-agent pull <model>), or pick another file";

function corrupt(path: string, detail: string, cause?: unknown): ModelLoadError {
  return new ModelLoadError("corrupt", `${path} is damaged or incomplete (${detail}): ${REDOWNLOAD}.`, path, cause === undefined ? undefined : { cause });
}

/** A hint for a file that is not GGUF: what it looks like instead. */
function describeNotGguf(head: Buffer): string {
  const text = head.toString("latin1").trimStart().toLowerCase();
  if (text.startsWith("<!doctype") || text.startsWith("<html")) return "it is an HTML page (a failed or redirected download?)";
  if (text.startsWith("version https://git-lfs")) return "it is a Git LFS pointer, not the model itself";
  if (text.startsWith("{")) return "it looks like JSON (a config or tokenizer file?)";
  if (head.length >= 2 && head[0] === 0x50 && head[1] === 0x4b) return "it is a ZIP archive (a PyTorch or safetensors checkpoint? convert it to GGUF first)";
  return "it does not start with the GGUF magic bytes";
}

/**
 * Check a model file before llama.cpp sees it, so that every problem becomes a {@link ModelLoadError} with advice
 * instead of an opaque native error: it exists and is a file (`not_found`), starts with the GGUF magic (`not_gguf`),
 * and has a sane header that parses (`corrupt`). {@link checkGgufRunnable} goes on with what needs llama.cpp.
 */
export async function checkGgufFile(path: string): Promise<GgufCheckResult> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      throw new ModelLoadError("not_found", `${path} is a directory, not a model file: pass the path of a .gguf file (or a catalog alias).`, path);
    }
    size = info.size;
  } catch (error) {
    if (error instanceof ModelLoadError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ModelLoadError("not_found", `No model file at ${path}: check the path, or download a model with: gemma-agent pull <alias> (see gemma-agent models).`, path, { cause: error });
    }
    throw new ModelLoadError("not_found", `Cannot read ${path} (${code ?? String(error)}): check the path and its permissions.`, path, { cause: error });
  }

  const head = Buffer.alloc(Math.min(size, 64));
  const file = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
    throw new ModelLoadError("not_found", `Cannot open ${path} (${error.code ?? error.message}): check its permissions.`, path, { cause: error });
  });
  try {
    await file.read(head, 0, head.length, 0);
  } finally {
    await file.close();
  }
  if (head.length < 4 || head.toString("latin1", 0, 4) !== "GGUF") {
    throw new ModelLoadError("not_gguf", `${path} is not a GGUF model file: ${describeNotGguf(head)}. gemma-agent runs GGUF files (e.g. gemma-agent pull gemma-4-e2b).`, path);
  }
  if (size < HEADER_BYTES) throw corrupt(path, `only ${size} bytes, the header alone needs ${HEADER_BYTES}`);
  const version = head.readUInt32LE(4);
  if (version < 1 || version > 3) {
    throw corrupt(path, `GGUF version ${version}; this llama.cpp reads versions 1-3 (a newer file needs a newer gemma-agent)`);
  }
  const tensorCount = head.readBigUInt64LE(8);
  const metadataCount = head.readBigUInt64LE(16);
  if (tensorCount > BigInt(MAX_TENSORS) || metadataCount > BigInt(MAX_METADATA_ENTRIES) || metadataCount * 12n > BigInt(size)) {
    throw corrupt(path, `the header declares ${tensorCount} tensors and ${metadataCount} metadata entries`);
  }

  let fileInfo: GgufFileInfo;
  try {
    fileInfo = await readGgufFileInfo(path, { sourceType: "filesystem", readTensorInfo: true, ignoreKeys: SKIPPED_KEYS, logWarnings: false });
  } catch (error) {
    throw corrupt(path, `its header cannot be read: ${(error as Error)?.message ?? String(error)}`, error);
  }
  const architecture = fileInfo.metadata?.general?.architecture as string | undefined;
  if (typeof architecture !== "string" || architecture === "") throw corrupt(path, "the header names no general.architecture");
  const tensors = fileInfo.tensorInfo ?? [];
  if (tensors.length === 0) throw corrupt(path, "the file holds no tensors");
  // node-llama-cpp's reader reads zeros past the end of a file: a cut-off header shows as nameless tensors or data
  // that would start past the end.
  if (tensors.some((t) => t.name === "" || t.dimensions.length === 0)) throw corrupt(path, "its header is cut off or garbled");
  const dataStart = tensors.reduce((min, t) => Math.min(min, Number(t.fileOffset)), Number.POSITIVE_INFINITY);
  if (!(dataStart <= size)) throw corrupt(path, `its header ends at byte ${dataStart}, past the end of the ${size}-byte file: a truncated download?`);

  return { path, sizeBytes: size, version, architecture, fileInfo };
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
