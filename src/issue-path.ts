/** `tasks[3].expected.matches` from a zod issue path (`(root)` for the value itself). */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  return out || "(root)";
}
