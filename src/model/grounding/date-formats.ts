/**
 * Dates a question writes, in the form an argument's description asks for: "in the format mm-dd-yyyy", "in
 * yyyy-mm-dd format", "YYYY/MM/DD". The question says "March 17, 1915" or "June01 2023"; the skill wants "1915-03-17".
 * Grounding copies the question's spans, so a date in another form is no span to copy: its formatted text is offered
 * beside them (see QuestionReading.derivedValues).
 */

/** A calendar date: year, month 1-12, day 1-31. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** A format the description spells with its separators: `yyyy-mm-dd`, `mm/dd/yyyy`, `dd.mm.yyyy`. */
const FORMAT = /\b(yyyy([-/.])mm\2dd|mm([-/.])dd\3yyyy|dd([-/.])mm\4yyyy)\b/i;

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
const DAY = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;
/** "March 17, 1915", "June01 2023", "Mar. 17th 1915". */
const MONTH_DAY_YEAR = new RegExp(String.raw`\b${MONTH}\s*${DAY},?\s+(\d{4})\b`, "gi");
/** "17 March 1915", "17th of March, 1915". */
const DAY_MONTH_YEAR = new RegExp(String.raw`\b${DAY}\s+(?:of\s+)?${MONTH},?\s+(\d{4})\b`, "gi");
/** "2022/08/16", "2022-08-16", "2022.08.16". */
const YEAR_FIRST = /\b(\d{4})([-/.])(\d{1,2})\2(\d{1,2})\b/g;

/** The format an argument's description asks its date in, lower case (`yyyy-mm-dd`); none where it names none. */
export function dateFormatOf(description: unknown): string | undefined {
  if (typeof description !== "string") return undefined;
  return FORMAT.exec(description)?.[1].toLowerCase();
}

function valid(year: number, month: number, day: number): CalendarDate | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? { year, month, day } : undefined;
}

const monthOf = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;

/**
 * The whole dates `text` writes, in order: a month's name with day and year either way round, or year first with
 * digits. A date without its year, and one that is no calendar day, is none.
 */
export function datesIn(text: string): CalendarDate[] {
  const found: [number, CalendarDate][] = [];
  const add = (at: number, date: CalendarDate | undefined) => date && found.push([at, date]);
  for (const m of text.matchAll(MONTH_DAY_YEAR)) add(m.index, valid(Number(m[3]), monthOf(m[1]), Number(m[2])));
  for (const m of text.matchAll(DAY_MONTH_YEAR)) add(m.index, valid(Number(m[3]), monthOf(m[2]), Number(m[1])));
  for (const m of text.matchAll(YEAR_FIRST)) add(m.index, valid(Number(m[1]), Number(m[3]), Number(m[4])));
  return found.sort((a, b) => a[0] - b[0]).map(([, date]) => date);
}

/** `date` written in `format` (see dateFormatOf): `1915-03-17` for `yyyy-mm-dd`. */
export function formatDate(date: CalendarDate, format: string): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return format.replace("yyyy", String(date.year)).replace("mm", two(date.month)).replace("dd", two(date.day));
}
