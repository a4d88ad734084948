import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AllowDirError,
  BUILTIN_SKILL_NAMES,
  builtinSkills,
  FILE_SKILL_NAMES,
} from "../../../src/skills/builtin/index.js";
import { executeCall } from "../../../src/skills/run-skill.js";
import { Registry } from "../../../src/skills/registry.js";

const ctx = { signal: new AbortController().signal, state: { query: "q", iterations: 0 } };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "gemma-agent-builtin-"));
  await writeFile(path.join(dir, "a.txt"), "alpha");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("builtinSkills", () => {
  it("has no file access unless a directory is allowed", () => {
    expect(builtinSkills().map((skill) => skill.name)).toEqual(["calculator", "datetime", "convert_units"]);
  });

  it("adds list_files and read_file with allowDir, in BUILTIN_SKILL_NAMES order", async () => {
    const skills = builtinSkills({ allowDir: dir });
    expect(skills.map((skill) => skill.name)).toEqual([...BUILTIN_SKILL_NAMES]);
    expect(BUILTIN_SKILL_NAMES).toEqual(expect.arrayContaining([...FILE_SKILL_NAMES]));
    const registry = new Registry(skills);
    expect(await registry.get("read_file")!.run({ path: "a.txt" }, ctx)).toMatchObject({ content: "alpha" });
  });

  it("passes the injected clock to datetime", () => {
    const registry = new Registry(builtinSkills({ now: () => new Date("2030-01-02T03:04:05Z") }));
    expect(registry.get("datetime")!.run({ action: "now" }, ctx)).toMatchObject({ iso: "2030-01-02T03:04:05+00:00" });
  });

  it("throws AllowDirError for a directory that does not exist", () => {
    expect(() => builtinSkills({ allowDir: path.join(dir, "missing") })).toThrow(AllowDirError);
  });

  it("every skill has a short description with an example and a JSON schema with described properties", () => {
    const registry = new Registry(builtinSkills({ allowDir: dir }));
    for (const skill of registry.list()) {
      expect(skill.description.length).toBeLessThanOrEqual(220);
      expect(skill.description).toMatch(/Example/);
      const schema = registry.jsonSchema(skill.name) as {
        type: string;
        properties: Record<string, { description?: string }>;
      };
      expect(schema.type).toBe("object");
      for (const [key, property] of Object.entries(schema.properties)) {
        expect(property.description, `${skill.name}.${key}`).toMatch(/\S/);
      }
    }
  });

  it("a scoped registry keeps file skills out", () => {
    const scoped = new Registry(builtinSkills({ allowDir: dir })).scope(["calculator"]);
    expect(scoped.names()).toEqual(["calculator"]);
    expect(scoped.get("read_file")).toBeUndefined();
  });

  it("through the dispatcher, failures become outcomes the model reads", async () => {
    const registry = new Registry(builtinSkills({ allowDir: dir }));
    const env = { registry, state: { query: "q", iterations: 0 } };
    const call = (skillName: string, args: Record<string, unknown>) => executeCall({ skillName, arguments: args }, env);
    expect(await call("calculator", { expression: "0.1 + 0.2" })).toMatchObject({ ok: true, text: "0.3" });
    expect(await call("calculator", { expression: "1/0" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Division by zero/),
    });
    expect(await call("read_file", { path: "../etc/passwd" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/outside the allowed directory/),
    });
    expect(await call("convert_units", { value: 1, from: "kg", to: "km" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Cannot convert/),
    });
  });
});
