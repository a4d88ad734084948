import { describe, expect, it } from "vitest";
import { convertUnits, convertUnitsSkill } from "../../../src/skills/builtin/index.js";

const ctx = { signal: new AbortController().signal, state: { query: "q", iterations: 0 } };
const result = (value: number, from: string, to: string) => convertUnits(value, from, to).result;

describe("convert_units against legal definitions", () => {
  it.each([
    // length: international yard (1959), 1 in = 25.4 mm exactly
    [1, "mi", "km", 1.609344],
    [1, "km", "mi", 1 / 1.609344],
    [1, "in", "cm", 2.54],
    [1, "ft", "m", 0.3048],
    [1, "yd", "ft", 3],
    [1, "mi", "ft", 5280],
    [1, "nmi", "m", 1852],
    [1500, "mm", "m", 1.5],
    // mass: international pound = 0.45359237 kg exactly
    [1, "lb", "kg", 0.45359237],
    [1, "kg", "lb", 1 / 0.45359237],
    [16, "oz", "lb", 1],
    [1, "oz", "g", 28.349523125],
    [1, "st", "lb", 14],
    [1, "t", "kg", 1000],
    [1, "ton", "lb", 2000],
    [1, "long ton", "kg", 1016.0469088],
    [250, "mg", "g", 0.25],
    // volume: US gallon = 231 in³ = 3.785411784 L; imperial gallon = 4.54609 L
    [1, "gal", "L", 3.785411784],
    [1, "gal", "qt", 4],
    [1, "qt", "pt", 2],
    [1, "cup", "fl oz", 8],
    [1, "cup", "mL", 236.5882365],
    [1, "fl oz", "mL", 29.5735295625],
    [1, "tbsp", "tsp", 3],
    [1, "imp gal", "L", 4.54609],
    [1, "uk pint", "mL", 568.26125],
    [1, "m3", "L", 1000],
    [1, "ft3", "L", 28.316846592],
    [1, "in3", "mL", 16.387064],
    [1, "L", "mL", 1000],
    // temperature
    [0, "C", "F", 32],
    [100, "C", "F", 212],
    [-40, "C", "F", -40],
    [98.6, "F", "C", 37],
    [0, "K", "C", -273.15],
    [0, "C", "K", 273.15],
    [-459.67, "F", "K", 0],
    [300, "K", "F", 80.33],
  ])("%d %s in %s = %d", (value, from, to, expected) => {
    expect(result(value, from, to)).toBeCloseTo(expected, 9);
  });

  it("shows results without float noise", () => {
    expect(result(1, "mi", "km")).toBe(1.609344);
    expect(result(0, "C", "F")).toBe(32);
    expect(result(1, "gal", "L")).toBe(3.785411784);
    expect(result(1, "lb", "kg")).toBe(0.45359237);
    expect(result(98.6, "F", "C")).toBe(37);
  });

  it("returns the canonical symbols with the result", () => {
    expect(convertUnits(5, "miles", "kilometres")).toEqual({ value: 5, from: "mi", to: "km", result: 8.04672 });
    expect(convertUnitsSkill.run({ value: 212, from: "°F", to: "celsius" }, ctx)).toEqual({
      value: 212,
      from: "°F",
      to: "°C",
      result: 100,
    });
  });
});

describe("convert_units aliases", () => {
  it.each([
    ["°C", "celsius"],
    ["C", "degrees celsius"],
    ["c", "Degrees Celsius"],
    ["F", "fahrenheit"],
    ["°F", "degree fahrenheit"],
    ["K", "kelvin"],
    ["km", "kilometers"],
    ["km", "Kilometre"],
    ["mi", "miles"],
    ["in", "inches"],
    ["ft", "feet"],
    ["lb", "lbs"],
    ["lb", "pounds"],
    ["oz", "ounces"],
    ["L", "litres"],
    ["L", "l"],
    ["mL", "ml"],
    ["mL", "milliliters"],
    ["gal", "gallons"],
    ["gal", "US gallon"],
    ["cup", "cups"],
    ["fl oz", "fluid ounces"],
    ["fl oz", "floz"],
    ["tbsp", "tablespoons"],
    ["kg", "kilo"],
  ])("%s is also written %j", (symbol, alias) => {
    expect(convertUnits(1, alias, symbol).result).toBe(1);
  });

  it("does not read short symbols as plurals", () => {
    expect(() => convertUnits(1, "ms", "m")).toThrow(/Unknown unit "ms"/);
  });
});

describe("convert_units errors", () => {
  it("refuses conversions across kinds of quantity", () => {
    expect(() => convertUnits(1, "kg", "km")).toThrow(
      "Cannot convert kg (mass) to km (length): both units must measure the same kind of quantity.",
    );
    expect(() => convertUnits(1, "C", "m")).toThrow(/temperature.*length/);
    expect(() => convertUnits(1, "L", "kg")).toThrow(/volume.*mass/);
  });

  it("hints at fluid ounces when ounces meet a volume", () => {
    expect(() => convertUnits(8, "oz", "mL")).toThrow(/For liquids use "fl oz"/);
  });

  it("names an unknown unit and lists the known ones", () => {
    expect(() => convertUnits(1, "furlong", "m")).toThrow(/Unknown unit "furlong". Known units: length: mm, cm, m, km/);
    expect(() => convertUnits(1, "m", "parsec")).toThrow(/Unknown unit "parsec"/);
    expect(() => convertUnits(1, "__proto__", "m")).toThrow(/Unknown unit "__proto__"/);
    expect(() => convertUnits(1, "constructor", "m")).toThrow(/Unknown unit "constructor"/);
  });

  it("refuses temperatures below absolute zero", () => {
    expect(() => convertUnits(-300, "C", "F")).toThrow(/below absolute zero/);
    expect(() => convertUnits(-1, "K", "C")).toThrow(/below absolute zero/);
    expect(() => convertUnits(-500, "F", "K")).toThrow(/below absolute zero/);
  });

  it("refuses non-finite values", () => {
    expect(() => convertUnits(Number.NaN, "m", "km")).toThrow(/finite number/);
    expect(() => convertUnits(Number.POSITIVE_INFINITY, "m", "km")).toThrow(/finite number/);
  });

  it("schema requires a numeric value and two unit strings", () => {
    const schema = convertUnitsSkill.parameters;
    expect(schema.safeParse({ value: 5, from: "mi", to: "km" })).toMatchObject({ success: true });
    expect(schema.safeParse({ value: "5", from: "mi", to: "km" })).toMatchObject({ success: false });
    expect(schema.safeParse({ value: 5, from: "mi" })).toMatchObject({ success: false });
  });
});
