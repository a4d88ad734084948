/** `text` on one line (each run of whitespace one space, trimmed), cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
