import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFileSkills, type FileContent, type FileListing } from "../../src/skills/builtin/index.js";

const SECRET = "secret: outside the allowed directory";
const base = mkdtempSync(join(tmpdir(), "ga-race-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Another process that swaps `allowed/d` between a real folder and a symbolic link to `outside`, as fast as it can. */
const SWAPPER = `
const { renameSync } = require("node:fs");
const [d, real, link] = process.argv.slice(1);
const step = (from, to) => { try { renameSync(from, to); } catch {} };
process.stdin.on("data", () => process.exit(0));
for (;;) { step(d, real); step(link, d); step(d, link); step(real, d); }
`;

describe("a symbolic link swapped in during a read (issue 18 §2)", () => {
  it("5,000 reads and 5,000 listings while another process swaps a folder for a link outside: none reads or lists outside", async () => {
    const allowed = join(base, "allowed");
    const outside = join(base, "outside");
    mkdirSync(join(allowed, "d"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(allowed, "d", "f.txt"), "inside");
    writeFileSync(join(outside, "f.txt"), SECRET);
    writeFileSync(join(outside, "secret-entry"), SECRET);
    mkdirSync(join(allowed, "d-real"));
    symlinkSync(outside, join(allowed, "d-link"));
    const { listFiles, readFile } = createFileSkills({ allowDir: allowed });
    const ctx = { signal: new AbortController().signal, state: { query: "q", iterations: 0 } };

    const swapper = spawn(
      process.execPath,
      ["-e", SWAPPER, join(allowed, "d"), join(allowed, "d-real"), join(allowed, "d-link")],
      { stdio: ["pipe", "ignore", "inherit"] },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const counts = { reads: 0, readInside: 0, readOutside: 0, lists: 0, listedOutside: 0, refused: 0 };
    try {
      for (let attempt = 0; attempt < 5_000; attempt++) {
        counts.reads++;
        try {
          const content = (await readFile.run({ path: "d/f.txt" }, ctx)) as FileContent;
          if (content.content.includes(SECRET)) counts.readOutside++;
          else counts.readInside++;
        } catch {
          counts.refused++;
        }
        counts.lists++;
        try {
          const listing = (await listFiles.run({ path: "d" }, ctx)) as FileListing;
          if (listing.entries.some((entry) => entry.name === "secret-entry")) counts.listedOutside++;
        } catch {
          counts.refused++;
        }
      }
    } finally {
      swapper.stdin.end("stop");
      swapper.kill();
    }
    console.log(`symlink race: ${JSON.stringify(counts)}`);
    expect(counts.readOutside).toBe(0);
    expect(counts.listedOutside).toBe(0);
    // the race really ran: some attempts met the link (refused) and some the folder (read inside)
    expect(counts.refused).toBeGreaterThan(0);
    expect(counts.readInside).toBeGreaterThan(0);
  }, 120_000);
});
