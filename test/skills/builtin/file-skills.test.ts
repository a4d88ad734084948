import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AllowDirError,
  createFileSkills,
  FileAccessError,
  type FileContent,
  type FileListing,
} from "../../../src/skills/builtin/index.js";
import type { Skill } from "../../../src/skills/skill.js";

const ctx = { signal: new AbortController().signal, state: { query: "q", iterations: 0 } };
const SECRET = "top secret: outside the allowed directory";

let base: string;
let allowed: string;
let listFiles: Skill;
let readFile: Skill;

/**
 * base/
 *   secret.txt                       outside
 *   allowed/
 *     hello.txt  sub/note.md  big.txt (3000 bytes)  image.bin (has NUL)  latin1.txt (not UTF-8)
 *     link-inside -> sub/note.md     link-outside -> ../secret.txt     dir-outside -> ..
 *     abs-outside -> /…/secret.txt   sub-link -> sub
 */
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "gemma-agent-files-"));
  allowed = path.join(base, "allowed");
  await mkdir(path.join(allowed, "sub"), { recursive: true });
  await writeFile(path.join(base, "secret.txt"), SECRET);
  await writeFile(path.join(allowed, "hello.txt"), "hello, world\n");
  await writeFile(path.join(allowed, "sub", "note.md"), "# note\nsecond line\n");
  await writeFile(path.join(allowed, "big.txt"), "0123456789".repeat(300));
  await writeFile(path.join(allowed, "image.bin"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
  await writeFile(path.join(allowed, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café" in Latin-1
  await symlink(path.join("sub", "note.md"), path.join(allowed, "link-inside"));
  await symlink(path.join("..", "secret.txt"), path.join(allowed, "link-outside"));
  await symlink("..", path.join(allowed, "dir-outside"));
  await symlink(path.join(base, "secret.txt"), path.join(allowed, "abs-outside"));
  await symlink("sub", path.join(allowed, "sub-link"));
  ({ listFiles, readFile } = createFileSkills({ allowDir: allowed, maxBytes: 1024, maxEntries: 50 }));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const read = (args: { path: string; maxBytes?: number }) => readFile.run(args, ctx) as Promise<FileContent>;
const list = (args: { path?: string } = {}) => listFiles.run(args, ctx) as Promise<FileListing>;

async function refusal(promise: Promise<unknown>): Promise<FileAccessError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FileAccessError);
  expect((error as Error).message).not.toContain(SECRET);
  return error as FileAccessError;
}

describe("read_file", () => {
  it("reads a text file inside the directory", async () => {
    expect(await read({ path: "hello.txt" })).toEqual({
      path: "hello.txt",
      size: 13,
      truncated: false,
      content: "hello, world\n",
    });
    expect(await read({ path: "sub/note.md" })).toMatchObject({
      path: "sub/note.md",
      content: "# note\nsecond line\n",
    });
  });

  it("accepts .. that stays inside, and an absolute path inside", async () => {
    expect(await read({ path: "sub/../hello.txt" })).toMatchObject({ path: "hello.txt", content: "hello, world\n" });
    expect(await read({ path: path.join(allowed, "sub", "note.md") })).toMatchObject({ path: "sub/note.md" });
  });

  it("refuses .. that leaves the directory", async () => {
    const error = await refusal(read({ path: "../secret.txt" }));
    expect(error.code).toBe("outside_dir");
    expect(error.message).toMatch(/goes outside the allowed directory through "\.\."/);
    expect((await refusal(read({ path: "sub/../../secret.txt" }))).code).toBe("outside_dir");
    expect((await refusal(read({ path: "../allowed/../secret.txt" }))).code).toBe("outside_dir");
  });

  it("refuses an absolute path outside the directory", async () => {
    const error = await refusal(read({ path: path.join(base, "secret.txt") }));
    expect(error.code).toBe("outside_dir");
    expect(error.message).toMatch(/absolute path outside the allowed directory/);
    expect((await refusal(read({ path: "/etc/passwd" }))).code).toBe("outside_dir");
  });

  it("refuses symbolic links that resolve outside (relative, absolute, through a directory link)", async () => {
    for (const requested of ["link-outside", "abs-outside", "dir-outside/secret.txt"]) {
      const error = await refusal(read({ path: requested }));
      expect(error.code).toBe("symlink_escape");
      expect(error.message).toMatch(/symbolic link .* outside the allowed directory/);
    }
  });

  it("follows symbolic links that stay inside", async () => {
    expect(await read({ path: "link-inside" })).toMatchObject({
      path: "sub/note.md",
      content: "# note\nsecond line\n",
    });
    expect(await read({ path: "sub-link/note.md" })).toMatchObject({ path: "sub/note.md" });
  });

  it("caps the size and says so", async () => {
    const big = await read({ path: "big.txt" });
    expect(big.truncated).toBe(true);
    expect(big.size).toBe(3000);
    expect(big.content).toBe("0123456789".repeat(300).slice(0, 1024));
    expect(big.note).toBe("Truncated: showing the first 1024 bytes of 3000.");
    // The note comes before the content, so a later cut of the rendered JSON keeps it.
    expect(Object.keys(big)).toEqual(["path", "size", "truncated", "note", "content"]);
  });

  it("lets the model ask for fewer bytes, never more than the cap", async () => {
    expect(await read({ path: "big.txt", maxBytes: 15 })).toMatchObject({
      content: "012345678901234",
      truncated: true,
    });
    expect((await read({ path: "big.txt", maxBytes: 1_000_000 })).content).toHaveLength(1024);
    expect(await read({ path: "hello.txt", maxBytes: 13 })).toMatchObject({
      truncated: false,
      content: "hello, world\n",
    });
  });

  it("never cuts a UTF-8 character in half", async () => {
    await writeFile(path.join(allowed, "accents.txt"), "é".repeat(10)); // 2 bytes each
    const cut = await read({ path: "accents.txt", maxBytes: 5 });
    expect(cut).toMatchObject({ content: "éé", truncated: true, size: 20 });
    expect(cut.note).toMatch(/first 4 bytes of 20/);
  });

  it("refuses a directory, pointing to list_files", async () => {
    const error = await refusal(read({ path: "sub" }));
    expect(error.code).toBe("is_directory");
    expect(error.message).toMatch(/is a directory; use list_files/);
    expect((await refusal(read({ path: "." }))).code).toBe("is_directory");
  });

  it("reports a missing file", async () => {
    const error = await refusal(read({ path: "nope.txt" }));
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/No such file or directory: "nope.txt"/);
    expect((await refusal(read({ path: "hello.txt/inner" }))).code).toBe("not_found");
  });

  it("refuses binary and non-UTF-8 files", async () => {
    const error = await refusal(read({ path: "image.bin" }));
    expect(error.code).toBe("binary");
    expect(error.message).toMatch(/binary file \(7 bytes\)/);
    expect((await refusal(read({ path: "latin1.txt" }))).code).toBe("binary");
  });

  it.skipIf(process.platform === "win32")("refuses a named pipe without blocking on it", async () => {
    execFileSync("mkfifo", [path.join(allowed, "pipe")]);
    try {
      const error = await refusal(read({ path: "pipe" }));
      expect(error.code).toBe("not_a_file");
      const listing = await list();
      expect(listing.entries.find((entry) => entry.name === "pipe")).toEqual({ name: "pipe", type: "other" });
    } finally {
      await rm(path.join(allowed, "pipe"));
    }
  });

  it("refuses an empty path and a NUL byte", async () => {
    expect((await refusal(read({ path: "   " }))).code).toBe("bad_path");
    expect((await refusal(read({ path: "hello.txt\0.png" }))).code).toBe("bad_path");
  });

  it("stops when the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("run aborted"));
    await expect(readFile.run({ path: "hello.txt" }, { ...ctx, signal: controller.signal })).rejects.toThrow(
      "run aborted",
    );
  });
});

describe("list_files", () => {
  it("lists names sorted, with type and size", async () => {
    const listing = await list();
    expect(listing.path).toBe(".");
    expect(listing.note).toBeUndefined();
    const byName = Object.fromEntries(listing.entries.map((entry) => [entry.name, entry]));
    expect(byName["hello.txt"]).toEqual({ name: "hello.txt", type: "file", size: 13 });
    expect(byName["big.txt"]).toEqual({ name: "big.txt", type: "file", size: 3000 });
    expect(byName["sub"]).toEqual({ name: "sub", type: "dir" });
    expect(byName["link-outside"]).toEqual({ name: "link-outside", type: "symlink" });
    const names = listing.entries.map((entry) => entry.name);
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain("secret.txt");
  });

  it("lists a subfolder, and a link to a folder inside", async () => {
    expect(await list({ path: "sub" })).toEqual({
      path: "sub",
      entries: [{ name: "note.md", type: "file", size: 19 }],
    });
    expect(await list({ path: "sub-link" })).toMatchObject({ path: "sub" });
  });

  it("refuses folders outside, by .., absolute path or symbolic link", async () => {
    expect((await refusal(list({ path: ".." }))).code).toBe("outside_dir");
    expect((await refusal(list({ path: base }))).code).toBe("outside_dir");
    expect((await refusal(list({ path: "dir-outside" }))).code).toBe("symlink_escape");
  });

  it("refuses a file, pointing to read_file", async () => {
    const error = await refusal(list({ path: "hello.txt" }));
    expect(error.code).toBe("not_a_directory");
    expect(error.message).toMatch(/use read_file/);
  });

  it("bounds the number of entries and says so", async () => {
    const many = path.join(base, "many");
    await mkdir(many);
    for (let i = 0; i < 30; i++) await writeFile(path.join(many, `f${String(i).padStart(2, "0")}.txt`), "x");
    const { listFiles: small } = createFileSkills({ allowDir: many, maxEntries: 5 });
    const listing = (await small.run({}, ctx)) as FileListing;
    expect(listing.entries.map((entry) => entry.name)).toEqual(["f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"]);
    expect(listing.note).toBe("Showing the first 5 of 30 entries, by name.");
  });
});

describe("createFileSkills", () => {
  it("refuses a missing allowDir or a file as allowDir, at creation", () => {
    let error: unknown;
    try {
      createFileSkills({ allowDir: path.join(base, "does-not-exist") });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AllowDirError);
    expect((error as AllowDirError).code).toBe("not_found");
    expect(() => createFileSkills({ allowDir: path.join(base, "secret.txt") })).toThrow(/is not a directory/);
  });

  it("works when allowDir itself is reached through a symbolic link", async () => {
    const alias = path.join(base, "alias");
    await symlink(allowed, alias);
    const skills = createFileSkills({ allowDir: alias });
    expect(await skills.readFile.run({ path: "hello.txt" }, ctx)).toMatchObject({ content: "hello, world\n" });
    expect(await skills.readFile.run({ path: path.join(alias, "hello.txt") }, ctx)).toMatchObject({
      path: "hello.txt",
    });
    await expect(skills.readFile.run({ path: "../secret.txt" }, ctx)).rejects.toThrow(FileAccessError);
  });

  it("defaults to a 3,000-byte cap, so a read of ordinary text fits whole under the dispatcher's 4,000-character result cap", async () => {
    await writeFile(path.join(allowed, "huge.txt"), 'a line of ordinary prose, with "quotes".\n'.repeat(2_000));
    const skills = createFileSkills({ allowDir: allowed });
    const content = (await skills.readFile.run({ path: "huge.txt" }, ctx)) as FileContent;
    expect(content.content).toHaveLength(3_000);
    expect(content.truncated).toBe(true);
    const { renderResult } = await import("../../../src/skills/render-result.js");
    const { capResult } = await import("../../../src/agent/build-messages.js");
    expect(capResult(renderResult(content), 4_000)).toMatchObject({ truncated: false });
  });

  it("a listing of 300 files stays whole under the dispatcher's 4,000-character result cap, its note counting what is shown", async () => {
    const crowd = path.join(base, "crowd");
    await mkdir(crowd);
    for (let i = 0; i < 300; i++)
      await writeFile(path.join(crowd, `report-${String(i).padStart(3, "0")}.txt`), "x".repeat(i));
    const skills = createFileSkills({ allowDir: crowd });
    const listing = (await skills.listFiles.run({}, ctx)) as FileListing;
    const { renderResult } = await import("../../../src/skills/render-result.js");
    const { capResult } = await import("../../../src/agent/build-messages.js");
    expect(capResult(renderResult(listing), 4_000)).toMatchObject({ truncated: false });
    expect(listing.entries.length).toBeGreaterThan(20);
    expect(listing.note).toBe(`Showing the first ${listing.entries.length} of 300 entries, by name.`);
  });

  it("read_file requires a path in its schema", () => {
    expect(readFile.parameters.safeParse({})).toMatchObject({ success: false });
    expect(readFile.parameters.safeParse({ path: "" })).toMatchObject({ success: false });
    expect(readFile.parameters.safeParse({ path: "a.txt", maxBytes: 0 })).toMatchObject({ success: false });
    expect(listFiles.parameters.safeParse({})).toMatchObject({ success: true });
  });
});
