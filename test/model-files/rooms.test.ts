/**
 * src/model/ keeps three ideas in three rooms: llama/ loads and runs a GGUF, decoding/ constrains and samples its
 * tokens, grounding/ steers the values (and the decision) on text alone. What each room may reach, followed through
 * every relative import: grounding/ reaches no node-llama-cpp and neither other room; decoding/ does not reach llama/.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every module a room's files reach through relative imports (the files themselves included), and the packages they name. */
function reach(room: string): { files: Set<string>; packages: Map<string, string> } {
  const start = readdirSync(join(SRC, room))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(SRC, room, name));
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const queue = [...start];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      if (spec.startsWith(".")) queue.push(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
      else if (!spec.startsWith("node:")) packages.set(spec, relative(SRC, file));
    }
  }
  return { files, packages };
}

const inRoom = (files: Set<string>, room: string) =>
  [...files].map((file) => relative(SRC, file)).filter((file) => file.startsWith(`${room}/`));

describe("the rooms of src/model/", () => {
  it("grounding/ reaches no node-llama-cpp, llama/ or decoding/", () => {
    const { files, packages } = reach("model/grounding");
    expect(files.size).toBeGreaterThan(8);
    expect([...packages.keys()].filter((name) => name.startsWith("node-llama-cpp"))).toEqual([]);
    expect(inRoom(files, "model/llama")).toEqual([]);
    expect(inRoom(files, "model/decoding")).toEqual([]);
  });

  it("decoding/ does not reach llama/ (llama/ runs decoding, not the other way)", () => {
    const { files } = reach("model/decoding");
    expect(files.size).toBeGreaterThan(8);
    expect(inRoom(files, "model/llama")).toEqual([]);
  });

  it("the walk sees an import where there is one: llama/ reaches both other rooms and node-llama-cpp", () => {
    const { files, packages } = reach("model/llama");
    expect(inRoom(files, "model/grounding").length).toBeGreaterThan(0);
    expect(inRoom(files, "model/decoding").length).toBeGreaterThan(0);
    expect(packages.has("node-llama-cpp")).toBe(true);
  });
});
