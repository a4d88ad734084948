import type { EvalReport } from "./eval-report.js";
import { aggregateRows } from "./render-markdown.js";

/** Rows as aligned plain-text columns (numbers right-aligned). */
export function alignColumns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[\d.%()/ –-]*$/.test(r[i] ?? "")));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** The terminal summary: one row per model × budget, and the dataset notes of a BFCL run. */
export function renderSummaryTable(report: EvalReport): string {
  const { header, rows } = aggregateRows(report.aggregates);
  const lines = [alignColumns(header, rows)];
  if (report.bfcl) {
    const b = report.bfcl;
    lines.push(
      "",
      `BFCL ${b.category}: ${b.scored} of ${b.questions} questions scored; ${b.inconsistencies.length} dataset inconsistencies (${b.inconsistencies.map((q) => q.id).join(", ") || "none"}); ${b.unconvertible.length} not convertible.`,
    );
  }
  if (report.interrupted) lines.push("", "Interrupted: partial results.");
  return `${lines.join("\n")}\n`;
}
