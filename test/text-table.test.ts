import { describe, expect, it } from "vitest";
import { textTable } from "../src/text-table.js";

describe("textTable", () => {
  it("pads columns to the widest cell, rules the header, trims trailing spaces", () => {
    expect(textTable(["a", "bb"], [["xyz", "1"], ["q"]])).toBe("a    bb\n---  --\nxyz  1\nq");
  });

  it("with numbersRight, right-aligns the columns whose cells are all numbers", () => {
    expect(
      textTable(
        ["model", "rate"],
        [
          ["m", "50%"],
          ["long", "100%"],
        ],
        { numbersRight: true },
      ),
    ).toBe("model  rate\n-----  ----\nm       50%\nlong   100%");
  });
});
