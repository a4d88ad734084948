import { CodedError } from "../../coded-error.js";

/** Why `createFileSkills` could not use the allowed directory (a setup problem: the CLI exits 2 on it). */
export type AllowDirErrorCode = "not_found" | "not_a_directory" | "unsupported_platform";

/** `allowDir` does not exist or is not a directory; thrown when the file skills are created, before any run. */
export class AllowDirError extends CodedError<AllowDirErrorCode> {
  override readonly name = "AllowDirError";
  constructor(
    code: AllowDirErrorCode,
    message: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** Why `list_files` / `read_file` refused or failed a path. Stable: tests and the CLI switch on it. */
export type FileAccessErrorCode =
  | "outside_dir" // `..` or an absolute path that leaves the allowed directory
  | "symlink_escape" // the path resolves, through a symbolic link, to somewhere outside it
  | "not_found"
  | "is_directory" // read_file on a directory
  | "not_a_directory" // list_files on a file
  | "not_a_file" // a device, socket or FIFO
  | "binary" // read_file on a file that is not UTF-8 text
  | "bad_path"; // empty, or holding a NUL byte

/** A refused or failed file access. The message is written for the model (a tool-error it reads and acts on). */
export class FileAccessError extends CodedError<FileAccessErrorCode> {
  override readonly name = "FileAccessError";
}
