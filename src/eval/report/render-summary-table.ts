import { textTable } from "../../text-table.js";
import type { EvalReport } from "./eval-report.js";
import { aggregateRows } from "./render-markdown.js";
import { renderWorkflowComparisonText } from "./render-workflow-comparison.js";

/** The terminal summary: one row per model × budget, the loop against the workflows, and a BFCL run's dataset notes. */
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
  const comparison = renderWorkflowComparisonText(report);
  if (comparison) lines.push(comparison.trimEnd());
  if (report.interrupted) lines.push("", "Interrupted: partial results.");
  return `${lines.join("\n")}\n`;
}
