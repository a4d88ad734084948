import { existsSync, realpathSync, statSync } from "node:fs";
import { open, readlink, realpath, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AllowDirError, FileAccessError } from "./file-access-error.js";

/** The allowed directory, as given (made absolute) and with every symbolic link resolved. */
export interface AllowedRoot {
  given: string;
  real: string;
}

/** A requested path that stays inside the root: its real location and how to show it (relative, `/`-separated). */
export interface ConfinedPath {
  real: string;
  display: string;
}

/**
 * Resolves `allowDir` once, synchronously, so a missing or wrong directory is a setup error (`AllowDirError`,
 * code `not_found` or `not_a_directory`) raised before any run, not a tool error in the middle of one.
 */
export function resolveAllowedRoot(allowDir: string): AllowedRoot {
  const given = path.resolve(allowDir);
  if (!existsSync(OPEN_FILES_DIR)) {
    throw new AllowDirError(
      "unsupported_platform",
      `The file skills need ${OPEN_FILES_DIR} (Linux) to check that what they open is inside ${given}; on this platform a symbolic link swapped in during a read could escape it, so they are off`,
      given,
    );
  }
  let real: string;
  try {
    real = realpathSync(given);
  } catch (cause) {
    throw new AllowDirError("not_found", `The allowed directory ${given} does not exist`, given, { cause });
  }
  if (!statSync(real).isDirectory()) {
    throw new AllowDirError("not_a_directory", `The allowed directory ${given} is not a directory`, given);
  }
  return { given, real };
}

/** True when `target` is `root` or below it (a name such as `..notes` inside root counts as inside). */
function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * Resolves a path the model wrote, relative to the root (an absolute path is accepted only inside it). Refuses,
 * with a `FileAccessError` naming the reason: a path that leaves the root through `..` (`outside_dir`), an absolute
 * path outside it (`outside_dir`), and one whose real location, after following symbolic links with
 * `fs.realpath`, is outside the root's real location (`symlink_escape`). A path that does not exist is `not_found`.
 * Callers must open `real`, the checked location, not the path as written.
 */
export async function resolveConfinedPath(root: AllowedRoot, requested: string): Promise<ConfinedPath> {
  if (requested.includes("\0")) throw new FileAccessError("bad_path", "The path contains a NUL character");
  const target = path.resolve(root.given, requested);
  if (!isInside(root.given, target) && !isInside(root.real, target)) {
    throw new FileAccessError(
      "outside_dir",
      path.isAbsolute(requested)
        ? `Refused: ${JSON.stringify(requested)} is an absolute path outside the allowed directory; use a path relative to it, such as "notes.txt"`
        : `Refused: ${JSON.stringify(requested)} goes outside the allowed directory through ".."; use a path inside it`,
    );
  }
  let real: string;
  try {
    real = await realpath(target);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new FileAccessError(
        "not_found",
        `No such file or directory: ${JSON.stringify(requested)}; call list_files to see what exists`,
        { cause },
      );
    }
    throw new FileAccessError("not_found", `Cannot access ${JSON.stringify(requested)} (${code ?? "error"})`, {
      cause,
    });
  }
  if (!isInside(root.real, real)) throw escape(requested);
  const display = path.relative(root.real, real).split(path.sep).join("/") || ".";
  return { real, display };
}

/** Where Linux shows each open descriptor as a link to the file it holds, whatever happened to its path since. */
const OPEN_FILES_DIR = "/proc/self/fd";

/**
 * Opens a checked path and then checks what was opened: the descriptor's own path (from /proc/self/fd) must be inside
 * the root. The check and the use are the same object, so a directory swapped for a symbolic link between
 * {@link resolveConfinedPath} and the open cannot lead outside (issue 18 measured 10% of such races won before).
 * `fdPath` names the opened file through its descriptor, for reading a directory or its entries without a second
 * walk of the path. The caller closes `handle`.
 */
export async function openConfined(
  root: AllowedRoot,
  requested: string,
  real: string,
  flags: number,
): Promise<{ handle: FileHandle; fdPath: string }> {
  let handle: FileHandle;
  try {
    handle = await open(real, flags);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw escape(requested);
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new FileAccessError(
        "not_found",
        `No such file or directory: ${JSON.stringify(requested)}; call list_files to see what exists`,
        { cause },
      );
    throw new FileAccessError("not_found", `Cannot open ${JSON.stringify(requested)} (${code ?? "error"})`, { cause });
  }
  const fdPath = `${OPEN_FILES_DIR}/${handle.fd}`;
  try {
    if (!isInside(root.real, await readlink(fdPath))) throw escape(requested);
    return { handle, fdPath };
  } catch (error) {
    await handle.close();
    throw error instanceof FileAccessError
      ? error
      : new FileAccessError("not_found", `Cannot check ${JSON.stringify(requested)}: ${(error as Error).message}`, {
          cause: error,
        });
  }
}

function escape(requested: string): FileAccessError {
  return new FileAccessError(
    "symlink_escape",
    `Refused: ${JSON.stringify(requested)} is a symbolic link (or goes through one) that points outside the allowed directory`,
  );
}
