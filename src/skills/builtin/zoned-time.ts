/** A wall-clock reading in some time zone. Months are 1-12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
      era: "short",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The canonical IANA name of `timeZone` (Intl accepts names case-insensitively and resolves links), or throws an
 * Error that tells the model what a valid name looks like.
 */
export function resolveTimeZone(timeZone: string): string {
  try {
    return formatterFor(timeZone).resolvedOptions().timeZone;
  } catch {
    throw new Error(
      `Unknown time zone ${JSON.stringify(timeZone)}: use an IANA name such as "UTC", "Europe/Paris", "America/New_York" or "Asia/Tokyo"`,
    );
  }
}

/** The wall-clock time and weekday at `epochMs` in `timeZone` (a name `resolveTimeZone` accepted). */
export function wallTimeAt(epochMs: number, timeZone: string): WallTime & { weekday: string } {
  const parts: Record<string, string> = Object.create(null);
  for (const part of formatterFor(timeZone).formatToParts(new Date(epochMs))) parts[part.type] = part.value;
  const year = Number(parts.year);
  return {
    year: parts.era === "BC" ? 1 - year : year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    millisecond: ((epochMs % 1000) + 1000) % 1000,
    weekday: parts.weekday ?? "",
  };
}

/** Milliseconds since the epoch of a wall time read as if it were UTC. */
export function wallTimeAsUtc(wall: WallTime): number {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  date.setUTCHours(wall.hour, wall.minute, wall.second, wall.millisecond);
  return date.getTime();
}

/** The zone's offset from UTC at `epochMs`, in minutes (east positive: Paris in summer is +120). */
export function offsetMinutesAt(epochMs: number, timeZone: string): number {
  return Math.round((wallTimeAsUtc(wallTimeAt(epochMs, timeZone)) - epochMs) / 60_000);
}

/**
 * The instant at which the zone's clocks show `wall`. A time that happens twice (clocks set back) gives the earlier
 * instant; a time that never happens (clocks set forward) is read with the offset before the change, so it lands
 * after the gap (02:30 on a spring-forward night becomes 03:30), as Temporal's "compatible" mode does.
 */
export function instantOfWallTime(wall: WallTime, timeZone: string): number {
  const asUtc = wallTimeAsUtc(wall);
  const day = 86_400_000;
  // Offsets well before and after `wall`: real zones change their offset at most once within two days.
  const before = asUtc - offsetMinutesAt(asUtc - day, timeZone) * 60_000;
  const after = asUtc - offsetMinutesAt(asUtc + day, timeZone) * 60_000;
  const reads = (t: number) => wallTimeAsUtc(wallTimeAt(t, timeZone)) === asUtc;
  const valid = [before, after].filter(reads);
  return valid.length > 0 ? Math.min(...valid) : before;
}

/** `+02:00`, `-05:00`, `+05:45`. */
export function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The instant as ISO 8601 in the zone's local time with its offset, e.g. `2025-03-30T14:05:09+02:00` (ms only when non-zero). */
export function formatZonedIso(epochMs: number, timeZone: string): string {
  const wall = wallTimeAt(epochMs, timeZone);
  const ms = wall.millisecond ? `.${pad(wall.millisecond, 3)}` : "";
  return `${formatWallDate(wall)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${ms}${formatOffset(offsetMinutesAt(epochMs, timeZone))}`;
}

/** `YYYY-MM-DD` of a wall time. */
export function formatWallDate(wall: WallTime): string {
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
}
