import { existsSync, readdirSync } from "node:fs";

/**
 * The names in `dir`, sorted; none when it does not exist. `expect(entriesOf(dir)).not.toContain(name)` says what the
 * folder held when it fails, where `expect(existsSync(path)).toBe(false)` says only "true".
 */
export function entriesOf(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}
