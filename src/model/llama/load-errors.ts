import { InsufficientMemoryError } from "node-llama-cpp";
import { ModelLoadError } from "../errors.js";

const OUT_OF_MEMORY =
  /out of memory|failed to allocate|cannot allocate|insufficient memory|unable to allocate|ErrorOutOfDeviceMemory|cudaMalloc failed|not enough (v)?ram|bad_alloc|mmap failed/i;
const UNKNOWN_ARCHITECTURE = /unknown (model )?architecture|unsupported (model )?architecture/i;
/** What llama.cpp and node-llama-cpp say when a file's contents are wrong; a bare "Failed to load model" included. */
const DAMAGED =
  /failed to load model|invalid magic|tensor .* data is not within the file bounds|missing tensor|wrong shape|unexpectedly reached end of file|failed to read|corrupt|out of bounds|offset|invalid gguf|gguf_init/i;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The most relevant llama.cpp log line for the failure, when one says more than the thrown error. */
function explainingLine(logs: readonly string[], pattern: RegExp): string | undefined {
  for (let i = logs.length - 1; i >= 0; i--) if (pattern.test(logs[i])) return logs[i];
  return undefined;
}

/**
 * Turn whatever node-llama-cpp threw while loading a model or creating its context into a {@link ModelLoadError}:
 * memory errors → `out_of_memory`; an unknown architecture → `unsupported_architecture`; a damaged file (a TypeError
 * from the GGUF parser, "Failed to load model", missing tensors) → `corrupt`. `logs` are llama.cpp's recent log lines,
 * which often say what the thrown error does not. Errors that are not about the model (a missing native binary, a
 * caller bug) are returned unchanged.
 */
export function toModelLoadError(error: unknown, path: string, logs: readonly string[] = []): unknown {
  if (error instanceof ModelLoadError) return error;
  const message = messageOf(error);
  const logLine = (pattern: RegExp) => explainingLine(logs, pattern);

  if (
    error instanceof InsufficientMemoryError ||
    OUT_OF_MEMORY.test(message) ||
    (DAMAGED.test(message) && logLine(OUT_OF_MEMORY))
  ) {
    const detail =
      OUT_OF_MEMORY.test(message) || error instanceof InsufficientMemoryError ? message : logLine(OUT_OF_MEMORY)!;
    return new ModelLoadError(
      "out_of_memory",
      `Not enough memory to load ${path} (${detail}). Close other programs, pick a smaller quantization or model (gemma-agent models), or lower --context-size.`,
      path,
      { cause: error },
    );
  }
  const architectureLine = UNKNOWN_ARCHITECTURE.test(message) ? message : logLine(UNKNOWN_ARCHITECTURE);
  if (architectureLine) {
    return new ModelLoadError(
      "unsupported_architecture",
      `${path} uses an architecture this build of llama.cpp cannot run (${architectureLine}): use a supported model (Gemma 3, 3n or 4: see gemma-agent models) or update gemma-agent.`,
      path,
      { cause: error },
    );
  }
  if (error instanceof TypeError || error instanceof RangeError || DAMAGED.test(message)) {
    const detail = logLine(/error loading model/i) ?? logLine(/gguf|tensor/i) ?? message;
    return new ModelLoadError(
      "corrupt",
      `${path} is damaged or incomplete (${detail}): delete it and download it again (gemma-agent pull <model>), or pick another file.`,
      path,
      { cause: error },
    );
  }
  return error;
}
