/** Whether `value` is an object that is not null and not an array (a JSON object, once parsed). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
