import { readFile } from "node:fs/promises";
import { parseSoul, SoulError, type Soul } from "../prompt/soul.js";

/**
 * Read and parse a SOUL.md file (see {@link parseSoul}). A file that is not there, or cannot be read, is a
 * `SoulError` (`not_found`, `unreadable`) naming it, as are the format's own errors (with their line).
 */
export async function loadSoul(path: string): Promise<Soul> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code === "ENOENT" ? "not_found" : "unreadable";
    throw new SoulError(code, `${path}: ${code === "not_found" ? "no such file" : (error as Error).message}`, path);
  }
  return parseSoul(text, { source: path });
}
