import type { JsonSchema } from "../../json-schema.js";
import { integerRangeGbnf } from "./gbnf-integer-range.js";
import { MAX_FRACTION_DIGITS } from "./gbnf-json-primitives.js";
import type { GbnfRules } from "./gbnf-rules.js";
import { finiteNumber, JsonSchemaGrammarError, own } from "./json-schema-keywords.js";

/** The bounds of a numeric schema: as written (`loNumber`, `hiNumber`) and as inclusive integers (`null` = open). */
interface NumericBounds {
  lo: bigint | null;
  hi: bigint | null;
  loNumber?: number;
  hiNumber?: number;
  loExclusive: boolean;
  hiExclusive: boolean;
}

/** Integer bounds of a schema as BigInts (`null` = open), from minimum/maximum and their exclusive forms. */
function integerBounds(schema: JsonSchema): NumericBounds {
  let loNumber = finiteNumber(own(schema, "minimum"));
  let hiNumber = finiteNumber(own(schema, "maximum"));
  let loExclusive = false;
  let hiExclusive = false;
  const exMin = own(schema, "exclusiveMinimum");
  const exMax = own(schema, "exclusiveMaximum");
  if (exMin === true) loExclusive = loNumber !== undefined;
  else if (finiteNumber(exMin) !== undefined && (loNumber === undefined || (exMin as number) >= loNumber))
    [loNumber, loExclusive] = [exMin as number, true];
  if (exMax === true) hiExclusive = hiNumber !== undefined;
  else if (finiteNumber(exMax) !== undefined && (hiNumber === undefined || (exMax as number) <= hiNumber))
    [hiNumber, hiExclusive] = [exMax as number, true];
  const lo = loNumber === undefined ? null : BigInt(loExclusive ? Math.floor(loNumber) + 1 : Math.ceil(loNumber));
  const hi = hiNumber === undefined ? null : BigInt(hiExclusive ? Math.ceil(hiNumber) - 1 : Math.floor(hiNumber));
  return { lo, hi, loNumber, hiNumber, loExclusive, hiExclusive };
}

/** An integer schema: exact `minimum` / `maximum` (and exclusive) bounds, or the capped unbounded integer. */
export function compileInteger(rules: GbnfRules, schema: JsonSchema, hint: string): string {
  const { lo, hi } = integerBounds(schema);
  if (lo === null && hi === null) return rules.primitive("integer");
  const body = integerRangeGbnf(lo, hi);
  if (body === null)
    throw new JsonSchemaGrammarError("unsatisfiable", `jsonSchemaToGbnf: no integer satisfies the bounds at "${hint}"`);
  return rules.rule(hint, body);
}

/**
 * Numbers with bounds: the integers in range, plus decimals `i.ddd` whose whole unit interval lies in range (a
 * subset of the valid numbers that a grammar can state exactly; no exponent).
 */
export function compileNumber(rules: GbnfRules, schema: JsonSchema, hint: string): string {
  const { lo, hi, loNumber, hiNumber } = integerBounds(schema);
  if (loNumber === undefined && hiNumber === undefined) return rules.primitive("number");
  const fraction = `"." [0-9]{1,${MAX_FRACTION_DIGITS}}`;
  const alternatives: string[] = [];
  const integers = integerRangeGbnf(lo, hi);
  if (integers !== null) alternatives.push(`(${integers})`);
  // i.ddd with i >= 0 lies in [i, i+1): needs i to satisfy the lower bound and i+1 <= maximum.
  const positiveFrom = lo === null || lo < 0n ? 0n : lo;
  const positiveTo = hiNumber === undefined ? null : BigInt(Math.floor(hiNumber)) - 1n;
  if (positiveTo === null || positiveFrom <= positiveTo) {
    const whole = integerRangeGbnf(positiveFrom, positiveTo);
    if (whole !== null) alternatives.push(`(${whole}) ${fraction}`);
  }
  // -i.ddd with i >= 0 lies in (-(i+1), -i]: needs -(i+1) >= minimum and -i to satisfy the upper bound.
  const negativeFrom = hi === null || hi >= 0n ? 0n : -hi;
  const negativeTo = loNumber === undefined ? null : BigInt(-Math.ceil(loNumber)) - 1n;
  if (negativeTo === null || negativeFrom <= negativeTo) {
    const whole = integerRangeGbnf(negativeFrom, negativeTo);
    if (whole !== null) alternatives.push(`"-" (${whole}) ${fraction}`);
  }
  if (alternatives.length === 0)
    throw new JsonSchemaGrammarError("unsatisfiable", `jsonSchemaToGbnf: no number satisfies the bounds at "${hint}"`);
  return rules.rule(hint, alternatives.join(" | "));
}
