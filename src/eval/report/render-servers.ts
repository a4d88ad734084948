import { textTable } from "../../text-table.js";
import type { EvalReport } from "./eval-report.js";

const HEADER = [
  "model",
  "server",
  "dialect",
  "concurrency",
  "runs",
  "calls",
  "retries",
  "moved away",
  "runs/min",
  "note",
];

/** One row per model server: its share of the runs, throughput, retries, runs moved away, and why it was taken out. */
function serverRows(report: EvalReport): string[][] {
  return (report.servers ?? []).map((s) => [
    s.model,
    s.server,
    s.dialect,
    String(s.concurrency),
    String(s.runs),
    String(s.calls),
    String(s.retries),
    String(s.movedAway),
    s.runsPerMinute.toFixed(2),
    s.down ?? "",
  ]);
}

/** report.md's "Servers" section (none for an eval without model servers). */
export function serversSection(report: EvalReport): string[] {
  const rows = serverRows(report);
  if (rows.length === 0 && !report.resumedRuns) return [];
  const out: string[] = [];
  if (rows.length > 0) {
    const escape = (cell: string) => cell.replace(/\|/g, "\\|");
    out.push(
      "## Servers",
      "",
      `| ${HEADER.join(" | ")} |`,
      `| ${HEADER.map(() => "---").join(" | ")} |`,
      ...rows.map((row) => `| ${row.map(escape).join(" | ")} |`),
      "",
    );
  }
  if (report.resumedRuns)
    out.push(`${report.resumedRuns} run(s) were taken from the interrupted sweep's results file (--resume).`, "");
  return out;
}

/** The same, as plain text under the eval's summary table. */
export function renderServersText(report: EvalReport): string {
  const rows = serverRows(report);
  const parts: string[] = [];
  if (rows.length > 0) parts.push(`\nServers:\n${textTable(HEADER, rows)}`);
  if (report.resumedRuns) parts.push(`\n${report.resumedRuns} run(s) taken from the earlier sweep (--resume).\n`);
  return parts.join("");
}
