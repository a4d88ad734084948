import { z } from "zod";
import { defineSkill } from "../skill.js";
import { tidyNumber } from "./tidy-number.js";
import { findUnit, unitSymbolsByCategory, type UnitDefinition } from "./unit-table.js";

/** What `convert_units` returns: `value` `from` equals `result` `to`, units shown by their symbols. */
export interface ConversionResult {
  value: number;
  from: string;
  to: string;
  result: number;
}

function knownUnits(): string {
  return Object.entries(unitSymbolsByCategory())
    .map(([category, symbols]) => `${category}: ${symbols.join(", ")}`)
    .join("; ");
}

function unitOrThrow(text: string): UnitDefinition {
  const unit = findUnit(text);
  if (!unit) throw new Error(`Unknown unit ${JSON.stringify(text)}. Known units: ${knownUnits()}`);
  return unit;
}

/**
 * Converts `value` between two units of the same kind. Linear units go through the base unit (m, kg, L) with exact
 * legal factors; temperatures through °C. Results are tidied (1 mi → 1.609344 km, not 1.6093440000000001).
 * Throws an Error for an unknown unit (listing the known ones), units of different kinds, or a temperature below
 * absolute zero.
 */
export function convertUnits(value: number, fromText: string, toText: string): ConversionResult {
  if (!Number.isFinite(value)) throw new Error(`The value must be a finite number, got ${value}`);
  const from = unitOrThrow(fromText);
  const to = unitOrThrow(toText);
  if (from.category !== to.category) {
    const hint = from.symbol === "oz" && to.category === "volume" ? ' For liquids use "fl oz" (fluid ounce).' : "";
    throw new Error(
      `Cannot convert ${from.symbol} (${from.category}) to ${to.symbol} (${to.category}): both units must measure the same kind of quantity.${hint}`,
    );
  }
  const base = from.toBase(value);
  if (from.category === "temperature" && base < -273.15 - 1e-9) {
    throw new Error(`${value} ${from.symbol} is below absolute zero (-273.15 °C, 0 K, -459.67 °F)`);
  }
  return { value, from: from.symbol, to: to.symbol, result: tidyNumber(to.fromBase(base)) };
}

/** `convert_units`: length, mass, temperature and volume, metric and US/imperial. */
export const convertUnitsSkill = defineSkill({
  name: "convert_units",
  description:
    "Convert a value between units of length, mass, temperature or volume (metric, US, imperial). " +
    'Example: {"value":5,"from":"mi","to":"km"}',
  parameters: z.object({
    value: z.number().describe("The number to convert, e.g. 72"),
    from: z.string().describe('Unit of the value, e.g. "km", "lb", "F", "gal", "cup"'),
    to: z.string().describe('Unit wanted, e.g. "mi", "kg", "C", "l", "ml"'),
  }),
  run({ value, from, to }): ConversionResult {
    return convertUnits(value, from, to);
  },
});
