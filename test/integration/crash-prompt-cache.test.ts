/**
 * Crash consistency of the prompt cache (issue 42 item 3): `ask` on the fixture model (real llama.cpp) SIGKILLed at
 * seeded random points, mostly while it saves its system prompt's state, 4 kills; after each, the next `ask` on the
 * same folder must answer as an uninterrupted run, the cache still on, with the whole state restored or the prompt
 * prefilled, never a half-written state loaded (test/reliability/crash/prompt-cache-writer.ts; the other writers are
 * in test/reliability/crash-consistency.test.ts; `scripts/crash-kills.ts` runs hundreds).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runKills, tallyLine, WRITERS } from "../reliability/crash/index.js";

const dir = mkdtempSync(join(tmpdir(), "ga-crash-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("crash consistency of the prompt cache (issue 42 item 3)", () => {
  it("4 seeded SIGKILLs, mostly inside a save: the next run uses a whole entry or prefills", async () => {
    const tally = await runKills(WRITERS["prompt-cache"], { kills: 4, seed: 42, work: dir });
    console.log(`crash consistency: ${tallyLine(tally)}`);
    expect(tally.kills).toBeGreaterThanOrEqual(4);
    expect({ partialAccepted: tally.partialAccepted, failures: tally.failures }).toEqual({
      partialAccepted: 0,
      failures: [],
    });
  }, 180_000);
});
