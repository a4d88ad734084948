import { z } from "zod";
import { defineSkill } from "../skill.js";
import { DATETIME_DEFAULT_TIME_ZONE, DATETIME_DEFAULT_UNIT } from "./defaults.js";
import { parseDateInput, type DateInput } from "./parse-date-input.js";
import { tidyNumber } from "./tidy-number.js";
import {
  formatOffset,
  formatWallDate,
  formatZonedIso,
  offsetMinutesAt,
  resolveTimeZone,
  wallTimeAt,
  wallTimeAsUtc,
} from "./zoned-time.js";

/** Units `datetime` reports a difference in. */
export const DATETIME_UNITS = ["seconds", "minutes", "hours", "days", "weeks", "months", "years"] as const;
export type DatetimeUnit = (typeof DATETIME_UNITS)[number];

const UNIT_MS: Record<Exclude<DatetimeUnit, "months" | "years">, number> = {
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
};

/** Options of `createDatetimeSkill`. */
export interface DatetimeSkillOptions {
  /** The clock; default `() => new Date()`. Tests and replays inject a fixed one. */
  now?: () => Date;
}

/** What `datetime` returns for `action: "now"`. */
export interface DatetimeNow {
  timeZone: string;
  /** Local time with its offset, e.g. `2025-03-30T14:05:09+02:00`. */
  iso: string;
  date: string;
  time: string;
  weekday: string;
  utcOffset: string;
}

/** What `datetime` returns for `action: "difference"`: `value` is `to - from` (negative when `to` is earlier). */
export interface DatetimeDifference {
  from: string;
  to: string;
  timeZone: string;
  unit: DatetimeUnit;
  value: number;
}

/** Completed calendar months from `from` to `to` as the zone's clocks read them (Jan 31 → Feb 28 is 0 months). */
function calendarMonths(from: number, to: number, timeZone: string): number {
  if (to < from) return -calendarMonths(to, from, timeZone);
  const a = wallTimeAt(from, timeZone);
  const b = wallTimeAt(to, timeZone);
  let months = (b.year - a.year) * 12 + (b.month - a.month);
  // Compare the rest of the clock reading (day and time) within a month: not yet reached means one month less.
  const restOf = (w: typeof a) => wallTimeAsUtc({ ...w, year: 2000, month: 1 });
  if (restOf(b) < restOf(a)) months -= 1;
  return months;
}

function difference(from: DateInput, to: DateInput, unit: DatetimeUnit, timeZone: string): number {
  if (unit === "months") return calendarMonths(from.epochMs, to.epochMs, timeZone);
  if (unit === "years") return Math.trunc(calendarMonths(from.epochMs, to.epochMs, timeZone) / 12);
  if (from.dateOnly && to.dateOnly && (unit === "days" || unit === "weeks")) {
    // Two calendar dates: count days on the calendar, so a daylight-saving change in between does not make 0.96 days.
    const days = Math.round(
      (wallTimeAsUtc(wallTimeAt(to.epochMs, timeZone)) - wallTimeAsUtc(wallTimeAt(from.epochMs, timeZone))) /
        UNIT_MS.days,
    );
    return tidyNumber(unit === "days" ? days : Math.round((days / 7) * 10_000) / 10_000);
  }
  return tidyNumber(Math.round(((to.epochMs - from.epochMs) / UNIT_MS[unit]) * 10_000) / 10_000);
}

/**
 * Makes the `datetime` skill: `now` gives the current local date and time in an IANA zone (default UTC);
 * `difference` gives `to - from` in a unit (default days). Dates are ISO 8601, `now` or `today`; a missing `from`
 * or `to` means now. Fixed units (seconds to weeks) measure elapsed time, except that two plain dates in days or
 * weeks count calendar days; months and years count completed calendar units. An unknown zone or an unreadable
 * date throws an Error that shows valid forms.
 */
export function createDatetimeSkill(options: DatetimeSkillOptions = {}) {
  const clock = options.now ?? (() => new Date());
  const nowMs = () => {
    const now = clock();
    const ms = now instanceof Date ? now.getTime() : Number.NaN;
    if (!Number.isFinite(ms)) throw new TypeError("datetime: the injected clock returned an invalid Date");
    return ms;
  };

  return defineSkill({
    name: "datetime",
    description:
      'Current date and time in a time zone, or the time between two dates. Examples: {"action":"now","timeZone":"Asia/Tokyo"}, ' +
      '{"action":"difference","from":"2025-01-01","to":"2025-12-25","unit":"days"}',
    parameters: z.object({
      action: z.enum(["now", "difference"]).describe('"now" for the current time, "difference" for to minus from'),
      timeZone: z.string().optional().describe('IANA time zone, e.g. "Europe/Paris"; default "UTC"'),
      from: z.string().optional().describe('Start date, ISO 8601 like "2025-03-30" or "2025-03-30T14:05"; default now'),
      to: z.string().optional().describe("End date, same format; default now"),
      unit: z.enum(DATETIME_UNITS).optional().describe('Unit of the difference; default "days"'),
    }),
    run(args): DatetimeNow | DatetimeDifference {
      const timeZone = resolveTimeZone(args.timeZone?.trim() || DATETIME_DEFAULT_TIME_ZONE);
      const now = nowMs();
      if (args.action === "now") {
        const iso = formatZonedIso(now, timeZone);
        const wall = wallTimeAt(now, timeZone);
        return {
          timeZone,
          iso,
          date: formatWallDate(wall),
          time: iso.slice(11, 19),
          weekday: wall.weekday,
          utcOffset: formatOffset(offsetMinutesAt(now, timeZone)),
        };
      }
      if (args.from === undefined && args.to === undefined) {
        throw new Error(
          'difference needs "from" and/or "to" (ISO dates such as "2025-03-30"); a missing one means now',
        );
      }
      const from = parseDateInput(args.from ?? "now", timeZone, now);
      const to = parseDateInput(args.to ?? "now", timeZone, now);
      const unit = args.unit ?? DATETIME_DEFAULT_UNIT;
      return {
        from: formatZonedIso(from.epochMs, timeZone),
        to: formatZonedIso(to.epochMs, timeZone),
        timeZone,
        unit,
        value: difference(from, to, unit, timeZone),
      };
    },
  });
}

/** The `datetime` skill on the system clock. */
export const datetimeSkill = createDatetimeSkill();
