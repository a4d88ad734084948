/**
 * The soak's verdict on open file descriptors: a descriptor open for a moment when a sample falls is not a leak, one
 * kept open turn after turn is (a CI run failed on "open fds grew from 21 to 22" where one fd was open at the last
 * sample only).
 */
import { describe, expect, it } from "vitest";
import type { SoakSample } from "../../scripts/lib/soak-sample.js";
import { soakVerdict } from "../../scripts/lib/soak-verdict.js";

/** Ten samples, five turns apart; `fds(i)` gives sample i's fds now, fewest and most in its interval. */
function samples(fds: (i: number) => [now: number, low: number, peak: number]): SoakSample[] {
  return Array.from({ length: 10 }, (_, i) => {
    const [now, lowFds, peakFds] = fds(i);
    return {
      done: (i + 1) * 5,
      seconds: i,
      procs: { chat: { pid: 1, rssKb: 100_000, peakRssKb: 100_000, fds: now, lowFds, peakFds, threads: 7 } },
      heapMb: {},
      cache: { bytes: 0, files: 0 },
    };
  });
}

describe("soakVerdict on fds", () => {
  it("a descriptor open only as the last sample falls is no failure", () => {
    const verdict = soakVerdict(
      samples((i) => (i === 9 ? [22, 21, 22] : [21, 21, 21])),
      50,
    );
    expect(verdict.failures).toEqual([]);
    expect(verdict.roles.chat).toMatchObject({ fdsWarm: 21, fdsEnd: 22, fdsWarmMost: 21, fdsEndLeast: 21 });
  });

  it("a descriptor kept open every turn fails, naming the counts", () => {
    const verdict = soakVerdict(
      samples((i) => [21 + i * 5, 21 + i * 5 - 4, 21 + i * 5]),
      50,
    );
    expect(verdict.failures).toEqual([
      "chat: open fds grew after the warm-up: at least 62 open in the last interval, at most 31 in the warm-up's last",
    ]);
  });

  it("one descriptor left open for good after the warm-up fails", () => {
    const verdict = soakVerdict(
      samples((i) => (i >= 6 ? [22, 22, 22] : [21, 21, 21])),
      50,
    );
    expect(verdict.failures).toHaveLength(1);
  });
});
