import { describe, expect, it } from "vitest";
import { createLimiter, promisePool } from "../src/promise-pool.js";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("createLimiter", () => {
  it("runs at most `concurrency` tasks at once, starting them in the order they asked", async () => {
    const limit = createLimiter(2);
    let active = 0;
    let maxActive = 0;
    const started: number[] = [];
    const results = await Promise.all(
      [30, 5, 20, 1, 10].map((ms, i) =>
        limit(async () => {
          started.push(i);
          maxActive = Math.max(maxActive, ++active);
          await tick(ms);
          active--;
          return i * 10;
        }),
      ),
    );
    expect(maxActive).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(results).toEqual([0, 10, 20, 30, 40]);
  });

  it("frees the slot of a task that throws", async () => {
    const limit = createLimiter(1);
    await expect(limit(() => Promise.reject(new Error("no")))).rejects.toThrow("no");
    await expect(limit(() => Promise.resolve("next"))).resolves.toBe("next");
  });

  it("keeps the order over a queue that empties and fills again, and over 200,000 waiting tasks", async () => {
    const limit = createLimiter(1);
    const started: number[] = [];
    const wave = (from: number, count: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => limit(async () => void started.push(from + i))));
    await wave(0, 3);
    await wave(3, 3); // the queue was empty in between
    await wave(6, 200_000);
    expect(started.length).toBe(200_006);
    expect(started).toEqual(Array.from({ length: 200_006 }, (_, i) => i));
  });

  it("treats a limit below 1, or NaN, as 1", async () => {
    for (const concurrency of [0, -3, Number.NaN]) {
      const limit = createLimiter(concurrency);
      let active = 0;
      let maxActive = 0;
      const task = async () => {
        maxActive = Math.max(maxActive, ++active);
        await tick(1);
        active--;
      };
      await Promise.all([limit(task), limit(task), limit(task)]);
      expect(maxActive).toBe(1);
    }
  });
});

describe("promisePool", () => {
  it("keeps the items' order whatever order they finish in", async () => {
    const results = await promisePool([20, 1, 10], 3, async (ms, i) => (await tick(ms), `${i}:${ms}`));
    expect(results).toEqual(["0:20", "1:1", "2:10"]);
  });

  it("starts no new item once the signal aborts; started items finish", async () => {
    const controller = new AbortController();
    const ran: number[] = [];
    const results = await promisePool(
      [0, 1, 2, 3, 4, 5],
      2,
      async (item) => {
        ran.push(item);
        if (item === 1) controller.abort();
        await tick(1);
        return item;
      },
      controller.signal,
    );
    expect(ran).toEqual([0, 1]);
    expect(results).toEqual([0, 1, undefined, undefined, undefined, undefined]);
  });
});
