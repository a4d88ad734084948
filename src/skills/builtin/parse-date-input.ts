import { instantOfWallTime, wallTimeAt, wallTimeAsUtc, type WallTime } from "./zoned-time.js";

/** A date the model wrote, read in a time zone. */
export interface DateInput {
  epochMs: number;
  /** The input had no time of day (`2025-03-30`, `today`): it means that day's midnight in the zone. */
  dateOnly: boolean;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function fail(text: string): never {
  throw new Error(
    `Cannot read the date ${JSON.stringify(text)}: use ISO 8601 such as "2025-03-30", "2025-03-30T14:05" or "2025-03-30T14:05:00+02:00"`,
  );
}

function parseOffsetMinutes(text: string): number {
  if (text.toUpperCase() === "Z") return 0;
  const digits = text.slice(1).replace(":", "");
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0");
  return text[0] === "-" ? -minutes : minutes;
}

/**
 * Reads `now`, `today` or an ISO 8601 date / date-time. A date-time without an offset (and a date alone) is wall
 * time in `timeZone`; one with `Z` or `±hh:mm` is that exact instant. Out-of-range fields (month 13, Feb 30, 25:00)
 * are refused rather than rolled over. Throws an Error showing accepted forms.
 */
export function parseDateInput(text: string, timeZone: string, nowMs: number): DateInput {
  const trimmed = text.trim();
  const keyword = trimmed.toLowerCase();
  if (keyword === "now") return { epochMs: nowMs, dateOnly: false };
  if (keyword === "today") {
    const { year, month, day } = wallTimeAt(nowMs, timeZone);
    return {
      epochMs: instantOfWallTime({ year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone),
      dateOnly: true,
    };
  }
  const match = ISO.exec(trimmed);
  if (!match) fail(text);
  const [, y, mo, d, h, mi, s, frac, offset] = match;
  const wall: WallTime = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
    millisecond: frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0,
  };
  if (wall.month < 1 || wall.month > 12 || wall.day < 1 || wall.hour > 23 || wall.minute > 59 || wall.second > 59)
    fail(text);
  const asUtc = wallTimeAsUtc(wall);
  if (new Date(asUtc).getUTCDate() !== wall.day) fail(text); // 2025-02-30 would roll over to March
  const epochMs = offset ? asUtc - parseOffsetMinutes(offset) * 60_000 : instantOfWallTime(wall, timeZone);
  return { epochMs, dateOnly: h === undefined };
}
