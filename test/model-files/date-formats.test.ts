import { describe, expect, it } from "vitest";
import { dateFormatOf, datesIn, formatDate } from "../../src/model/grounding/date-formats.js";

describe("date formats", () => {
  it("reads the format a description spells, in any case and with its separators", () => {
    expect(dateFormatOf("The date for the UV index, in the format mm-dd-yyyy.")).toBe("mm-dd-yyyy");
    expect(dateFormatOf("The date when the contribution was made in yyyy-mm-dd format.")).toBe("yyyy-mm-dd");
    expect(dateFormatOf("Start date (YYYY/MM/DD)")).toBe("yyyy/mm/dd");
    expect(dateFormatOf("in the format dd.mm.yyyy")).toBe("dd.mm.yyyy");
    // a mixed separator, or no format: none
    expect(dateFormatOf("in the format yyyy-mm/dd")).toBeUndefined();
    expect(dateFormatOf("The date of the event.")).toBeUndefined();
    expect(dateFormatOf(undefined)).toBeUndefined();
  });

  it("reads whole dates in order: a month's name either side of the day, or year first in digits", () => {
    expect(datesIn("What was Albert Einstein's contribution on March 17, 1915?")).toEqual([
      { year: 1915, month: 3, day: 17 },
    ]);
    expect(datesIn("for tomorrow, June01 2023")).toEqual([{ year: 2023, month: 6, day: 1 }]);
    expect(datesIn("from 2022/08/16 to the 3rd of Feb. 2023")).toEqual([
      { year: 2022, month: 8, day: 16 },
      { year: 2023, month: 2, day: 3 },
    ]);
    // no year, or no calendar day: none
    expect(datesIn("on March 17")).toEqual([]);
    expect(datesIn("on February 30, 2023 and 2023-13-01")).toEqual([]);
  });

  it("writes a date in a format, two digits for month and day", () => {
    expect(formatDate({ year: 1915, month: 3, day: 17 }, "yyyy-mm-dd")).toBe("1915-03-17");
    expect(formatDate({ year: 2023, month: 6, day: 1 }, "mm-dd-yyyy")).toBe("06-01-2023");
    expect(formatDate({ year: 2023, month: 6, day: 1 }, "dd.mm.yyyy")).toBe("01.06.2023");
  });
});
