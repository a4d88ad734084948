/**
 * The soak's verdict on open file descriptors: a descriptor open for a moment when a sample falls is not a leak, one
 * kept open turn after turn is (a CI run failed on "open fds grew from 21 to 22" where one fd was open at the last
 * sample only).
 */
import { describe, expect, it } from "vitest";
import type { SoakSample } from "../../scripts/lib/soak-sample.js";
import { soakVerdict } from "../../scripts/lib/soak-verdict.js";

/**
 * Ten samples, five turns apart; `fds(i)` gives sample i's fds now, fewest and most in its interval, `rss(i)` its
 * interval's peak resident memory (KiB).
 */
function samples(
  fds: (i: number) => [now: number, low: number, peak: number],
  rss: (i: number) => number = () => 100_000,
): SoakSample[] {
  return Array.from({ length: 10 }, (_, i) => {
    const [now, lowFds, peakFds] = fds(i);
    const peakRssKb = rss(i);
    return {
      done: (i + 1) * 5,
      seconds: i,
      procs: { chat: { pid: 1, rssKb: peakRssKb, peakRssKb, fds: now, lowFds, peakFds, threads: 7 } },
      heapMb: {},
      cache: { bytes: 0, files: 0 },
    };
  });
}

describe("soakVerdict on resident memory", () => {
  const steady = (): [number, number, number] => [21, 21, 21];

  it("measures growth from the warm-up's highest interval peak, not a sample that fell after a collection", () => {
    // the CI run's shape: 83 and 86.6 MB, then 72.1 MB at the warm-up's end, 85 MB at the end
    const peaks = [83_300, 86_400, 72_100, 72_900, 73_300, 74_200, 75_600, 76_000, 78_200, 85_000];
    const verdict = soakVerdict(
      samples(steady, (i) => peaks[i] * 1.024),
      50,
      { maxRssGrowthPct: 15 },
    );
    expect(verdict.failures).toEqual([]);
    expect(verdict.roles.chat.rssGrowthPct).toBeLessThan(0);
  });

  it("fails a process that grows run after run", () => {
    const verdict = soakVerdict(
      samples(steady, (i) => 80_000 + i * 8_000),
      50,
      { maxRssGrowthPct: 15 },
    );
    expect(verdict.failures).toHaveLength(1);
    expect(verdict.failures[0]).toMatch(/^chat: RSS grew \d/);
  });
});

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
