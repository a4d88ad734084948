import { describe, expect, it } from "vitest";
import { createDatetimeSkill, datetimeSkill } from "../../../src/skills/builtin/index.js";

const ctx = { signal: new AbortController().signal, state: { query: "q", iterations: 0 } };

/** Sunday 2025-03-30 12:00 UTC: the morning Europe switched to summer time (01:00 UTC), three weeks after the US. */
const FIXED = "2025-03-30T12:00:00.000Z";
const skill = createDatetimeSkill({ now: () => new Date(FIXED) });
type Args = Parameters<typeof skill.run>[0];
const run = (args: Args) => skill.run(args, ctx) as unknown as Record<string, unknown>;

describe("datetime now", () => {
  it("defaults to UTC", () => {
    expect(run({ action: "now" })).toEqual({
      timeZone: "UTC",
      iso: "2025-03-30T12:00:00+00:00",
      date: "2025-03-30",
      time: "12:00:00",
      weekday: "Sunday",
      utcOffset: "+00:00",
    });
  });

  it("gives the wall time in Europe/Paris, on summer time since that morning", () => {
    expect(run({ action: "now", timeZone: "Europe/Paris" })).toEqual({
      timeZone: "Europe/Paris",
      iso: "2025-03-30T14:00:00+02:00",
      date: "2025-03-30",
      time: "14:00:00",
      weekday: "Sunday",
      utcOffset: "+02:00",
    });
  });

  it("gives the wall time in America/New_York (EDT) and Asia/Kathmandu (+05:45)", () => {
    expect(run({ action: "now", timeZone: "America/New_York" })).toMatchObject({
      iso: "2025-03-30T08:00:00-04:00",
      weekday: "Sunday",
    });
    expect(run({ action: "now", timeZone: "Asia/Kathmandu" })).toMatchObject({
      iso: "2025-03-30T17:45:00+05:45",
      utcOffset: "+05:45",
    });
  });

  it("crosses the date line: late Wednesday in UTC is Thursday morning in Tokyo", () => {
    const late = createDatetimeSkill({ now: () => new Date("2025-01-15T23:30:00Z") });
    expect(late.run({ action: "now", timeZone: "Asia/Tokyo" }, ctx)).toMatchObject({
      iso: "2025-01-16T08:30:00+09:00",
      date: "2025-01-16",
      weekday: "Thursday",
    });
    expect(late.run({ action: "now" }, ctx)).toMatchObject({ date: "2025-01-15", weekday: "Wednesday" });
  });

  it("accepts a zone name in any case and returns the canonical spelling", () => {
    expect(run({ action: "now", timeZone: "europe/paris" })).toMatchObject({ timeZone: "Europe/Paris" });
  });

  it("refuses an unknown zone with a message that shows valid names", () => {
    for (const timeZone of ["Mars/Olympus_Mons", "Paris", "Europe/Pariss", "UTC+25"]) {
      expect(() => run({ action: "now", timeZone })).toThrow(
        /Unknown time zone .*IANA name such as "UTC", "Europe\/Paris"/,
      );
    }
  });

  it("reads the injected clock on every call", () => {
    let now = new Date("2025-06-01T00:00:00Z");
    const moving = createDatetimeSkill({ now: () => now });
    expect(moving.run({ action: "now" }, ctx)).toMatchObject({ date: "2025-06-01" });
    now = new Date("2025-06-02T00:00:00Z");
    expect(moving.run({ action: "now" }, ctx)).toMatchObject({ date: "2025-06-02" });
  });

  it("the default skill uses the system clock", () => {
    const before = Date.now();
    const { iso } = datetimeSkill.run({ action: "now" }, ctx) as { iso: string };
    const shown = Date.parse(iso);
    expect(shown).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(shown).toBeLessThanOrEqual(Date.now());
  });

  it("rejects a clock that returns an invalid Date", () => {
    const broken = createDatetimeSkill({ now: () => new Date(Number.NaN) });
    expect(() => broken.run({ action: "now" }, ctx)).toThrow(/invalid Date/);
  });
});

describe("datetime difference", () => {
  it("counts calendar days between two dates (default unit)", () => {
    // Jan 1 is day 1 of 2025 and Dec 25 is day 359.
    expect(run({ action: "difference", from: "2025-01-01", to: "2025-12-25" })).toEqual({
      from: "2025-01-01T00:00:00+00:00",
      to: "2025-12-25T00:00:00+00:00",
      timeZone: "UTC",
      unit: "days",
      value: 358,
    });
    expect(run({ action: "difference", from: "2024-02-28", to: "2024-03-01" })).toMatchObject({ value: 2 }); // leap year
    expect(run({ action: "difference", from: "2025-12-25", to: "2025-01-01" })).toMatchObject({ value: -358 });
  });

  it("counts whole calendar days across a daylight-saving change, and real hours", () => {
    const paris = { action: "difference", from: "2025-03-29", to: "2025-03-31", timeZone: "Europe/Paris" } as const;
    expect(run(paris)).toMatchObject({ value: 2, from: "2025-03-29T00:00:00+01:00", to: "2025-03-31T00:00:00+02:00" });
    expect(run({ ...paris, unit: "hours" })).toMatchObject({ value: 47 }); // one hour was skipped
    const newYork = {
      action: "difference",
      from: "2025-11-01",
      to: "2025-11-03",
      timeZone: "America/New_York",
    } as const;
    expect(run({ ...newYork, unit: "hours" })).toMatchObject({ value: 49 }); // one hour happened twice
  });

  it("measures elapsed time between date-times with offsets", () => {
    // 14:30 at +02:00 is 12:30 UTC: 4.5 hours after 08:00 UTC.
    expect(
      run({ action: "difference", from: "2025-03-30T08:00:00Z", to: "2025-03-30T14:30:00+02:00", unit: "hours" }),
    ).toMatchObject({ value: 4.5 });
    expect(
      run({ action: "difference", from: "2025-03-30T08:00:00Z", to: "2025-03-30T08:01:30Z", unit: "seconds" }),
    ).toMatchObject({ value: 90 });
    expect(
      run({ action: "difference", from: "2025-03-30T08:00", to: "2025-03-30T08:20", unit: "minutes" }),
    ).toMatchObject({ value: 20 });
  });

  it("reads date-times without an offset in the given zone; a time in the spring-forward gap lands after it", () => {
    // 01:30 CET (00:30 UTC) to 03:30 CEST (01:30 UTC): one real hour.
    expect(
      run({
        action: "difference",
        from: "2025-03-30T01:30",
        to: "2025-03-30T03:30",
        timeZone: "Europe/Paris",
        unit: "minutes",
      }),
    ).toMatchObject({ value: 60 });
    // 02:30 does not exist that night in Paris: read as 03:30 CEST.
    expect(
      run({
        action: "difference",
        from: "2025-03-30T02:30",
        to: "2025-03-30T04:00",
        timeZone: "Europe/Paris",
        unit: "minutes",
      }),
    ).toMatchObject({
      from: "2025-03-30T03:30:00+02:00",
      value: 30,
    });
  });

  it("uses now for a missing from or to, and accepts now and today", () => {
    expect(run({ action: "difference", from: "2025-03-29T12:00:00Z" })).toMatchObject({
      value: 1,
      to: "2025-03-30T12:00:00+00:00",
    });
    expect(run({ action: "difference", to: "2025-04-01T00:00:00Z", unit: "hours" })).toMatchObject({ value: 36 });
    expect(run({ action: "difference", from: "now", to: "2025-03-30T18:00:00Z", unit: "hours" })).toMatchObject({
      value: 6,
    });
    // At the fixed clock it is 21:00 in Tokyo, still March 30 there.
    expect(run({ action: "difference", from: "today", to: "2025-04-02", timeZone: "Asia/Tokyo" })).toMatchObject({
      value: 3,
    });
  });

  it("gives fractional days and weeks, rounded to 4 decimals", () => {
    expect(run({ action: "difference", from: "2025-03-28T00:00:00Z", unit: "days" })).toMatchObject({ value: 2.5 });
    expect(run({ action: "difference", from: "2025-01-01", to: "2025-12-25", unit: "weeks" })).toMatchObject({
      value: 51.1429,
    }); // 358/7
  });

  it("counts completed calendar months and years", () => {
    expect(run({ action: "difference", from: "1990-05-01", unit: "years" })).toMatchObject({ value: 34 });
    expect(run({ action: "difference", from: "1990-03-30", unit: "years" })).toMatchObject({ value: 35 }); // birthday today
    expect(run({ action: "difference", from: "1990-03-31", unit: "years" })).toMatchObject({ value: 34 }); // tomorrow
    expect(run({ action: "difference", from: "2025-01-15", to: "2025-03-15", unit: "months" })).toMatchObject({
      value: 2,
    });
    expect(run({ action: "difference", from: "2025-01-31", to: "2025-02-28", unit: "months" })).toMatchObject({
      value: 0,
    });
    expect(run({ action: "difference", from: "2025-03-15", to: "2025-01-15", unit: "months" })).toMatchObject({
      value: -2,
    });
  });

  it("refuses unreadable or impossible dates with the accepted forms", () => {
    for (const from of ["30/03/2025", "2025-02-30", "2025-13-01", "2025-03-30T25:00", "yesterday", "March 30"]) {
      expect(() => run({ action: "difference", from, to: "2025-04-01" })).toThrow(
        /Cannot read the date .*ISO 8601 such as "2025-03-30"/,
      );
    }
  });

  it("needs from or to", () => {
    expect(() => run({ action: "difference" })).toThrow(/needs "from" and\/or "to"/);
  });

  it("refuses an unknown zone for differences too", () => {
    expect(() => run({ action: "difference", from: "2025-01-01", timeZone: "Nowhere/City" })).toThrow(
      /Unknown time zone "Nowhere\/City"/,
    );
  });
});

describe("datetime schema", () => {
  it("accepts documented arguments and rejects others", () => {
    const schema = skill.parameters;
    expect(schema.safeParse({ action: "now" })).toMatchObject({ success: true });
    expect(schema.safeParse({ action: "difference", from: "2025-01-01", unit: "weeks" })).toMatchObject({
      success: true,
    });
    expect(schema.safeParse({ action: "tomorrow" })).toMatchObject({ success: false });
    expect(schema.safeParse({ action: "difference", unit: "fortnights" })).toMatchObject({ success: false });
  });
});
