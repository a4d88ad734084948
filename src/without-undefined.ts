/** `T` with its optional-or-undefined properties left out when undefined. */
export type WithoutUndefined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/**
 * A copy of `fields` without the properties whose value is undefined, keys in the order given. Optional fields of an
 * event or a result stay absent rather than `undefined`: JSON output, `in` checks and `toEqual` tell them apart.
 */
export function withoutUndefined<T extends object>(fields: T): WithoutUndefined<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as WithoutUndefined<T>;
}
