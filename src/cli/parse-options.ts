import { InvalidArgumentError } from "commander";

/** commander argument parser for an integer >= min; a bad value is a usage error naming the value. */
export function parseIntegerOption(min: number): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
    const n = Number(value);
    if (n < min) throw new InvalidArgumentError(`expected a whole number >= ${min}, got ${value}`);
    return n;
  };
}

/** commander argument parser for a number in [min, max]. */
export function parseNumberOption(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got ${value}`);
    return n;
  };
}

/** commander argument parser for a comma-separated list (`a,b,c`), empty items dropped. */
export function parseListOption(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
