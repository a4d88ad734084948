import { CodedError } from "../coded-error.js";

/** Why a model could not be loaded. Stable: the CLI and tests switch on it. */
export type ModelLoadErrorCode = "not_found" | "not_gguf" | "corrupt" | "out_of_memory" | "unsupported_architecture";

/** A model file could not be loaded; `message` says what to do about it. */
export class ModelLoadError extends CodedError<ModelLoadErrorCode> {
  override readonly name = "ModelLoadError";
  constructor(
    code: ModelLoadErrorCode,
    message: string,
    /** The file concerned, when there is one. */
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** Why a download failed. */
export type DownloadErrorCode =
  "http_error" | "network" | "size_mismatch" | "hash_mismatch" | "aborted" | "bad_source" | "disk" | "in_progress";

/** A download (`gemma-agent pull`) failed; any partial data is kept under a `.part` name to resume from. */
export class DownloadError extends CodedError<DownloadErrorCode> {
  override readonly name = "DownloadError";
}
