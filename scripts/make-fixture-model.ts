/**
 * Write the fixture model, `models/fixtures/tiny-gemma3.gguf` (git-ignored): a real `gemma3` GGUF with the real Gemma 3
 * vocabulary and random weights from a fixed seed, so CI runs real llama.cpp without downloading anything.
 *
 *   npm run make-fixture               # writes models/fixtures/tiny-gemma3.gguf
 *   npm run make-fixture -- --out x.gguf
 *
 * The file is identical on every run.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fixtureGgufFile } from "./lib/fixture-model.js";
import { writeGgufFile } from "./lib/gguf-writer.js";

/** Where the fixture lives (git-ignored; tests build it on first use through test/helpers/fixture-model.ts). */
export const FIXTURE_MODEL_PATH = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "models",
  "fixtures",
  "tiny-gemma3.gguf",
);

/** Build the fixture model at `path` (default {@link FIXTURE_MODEL_PATH}); returns the path. */
export function makeFixtureModel(path: string = FIXTURE_MODEL_PATH): string {
  mkdirSync(dirname(path), { recursive: true });
  writeGgufFile(path, fixtureGgufFile());
  return path;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outIndex = process.argv.indexOf("--out");
  const out = outIndex > 0 ? resolve(process.argv[outIndex + 1] ?? "") : FIXTURE_MODEL_PATH;
  const started = Date.now();
  makeFixtureModel(out);
  console.log(`wrote ${out} in ${Date.now() - started} ms`);
}
