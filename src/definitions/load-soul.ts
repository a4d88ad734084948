import { MAX_DEFINITION_FILE_BYTES } from "../defaults.js";
import { parseSoul, SoulError, type Soul } from "../prompt/soul.js";
import { readRegularText, RegularFileError } from "../regular-file.js";

/**
 * Read and parse a SOUL.md file (see {@link parseSoul}): a regular file of at most MAX_DEFINITION_FILE_BYTES (a FIFO
 * or device is refused without waiting on it). A file that is not there, or cannot be read, is a `SoulError`
 * (`not_found`, `unreadable`) naming it, as are the format's own errors (with their line).
 */
export async function loadSoul(path: string): Promise<Soul> {
  let text: string;
  try {
    text = readRegularText(path, MAX_DEFINITION_FILE_BYTES, "a SOUL.md");
  } catch (error) {
    const code = error instanceof RegularFileError && error.code === "not_found" ? "not_found" : "unreadable";
    throw new SoulError(code, code === "not_found" ? `${path}: no such file` : (error as Error).message, path);
  }
  return parseSoul(text, { source: path });
}
