/** Options of {@link textTable}. */
export interface TextTableOptions {
  /**
   * Right-align a column whose every cell is a number (digits, `.`, `%`, `/`, parentheses, dashes): the eval summary.
   * Default false: every column left-aligned (the `models` listing).
   */
  numbersRight?: boolean;
}

/**
 * Rows as plain-text columns, each padded to its widest cell, two spaces apart, a rule of dashes under the header,
 * trailing spaces trimmed; a short row leaves its missing cells blank. No newline at the end.
 */
export function textTable(
  header: readonly string[],
  rows: readonly (readonly (string | undefined)[])[],
  options: TextTableOptions = {},
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const right = header.map(
    (_, i) => options.numbersRight === true && rows.length > 0 && rows.every((r) => /^[\d.%()/ –-]*$/.test(r[i] ?? "")),
  );
  const line = (cells: readonly (string | undefined)[]) =>
    cells
      .map((c, i) => (right[i] ? (c ?? "").padStart(widths[i]) : (c ?? "").padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
