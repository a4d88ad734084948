import { textTable } from "../../text-table.js";
import type { EvalReport } from "./eval-report.js";
import { aggregateRows } from "./render-markdown.js";

/** The terminal summary: one row per model × budget, and the dataset notes of a BFCL run. */
export function renderSummaryTable(report: EvalReport): string {
  const { header, rows } = aggregateRows(report.aggregates);
  const lines = [textTable(header, rows, { numbersRight: true })];
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
