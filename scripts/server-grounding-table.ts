/**
 * The tables of grounding over a model server (docs/results/server-grounding.md) from DIR/runs.json (default
 * docs/results/server-grounding): per model and row, the command that ran it and each run's verdict and time. Per
 * model: BFCL `simple_python`'s odd half over llama-server with grounding off and grounded (questions right, points,
 * seconds per question), the JSON Schema path against our GBNF on the same questions (verdicts that differ), and the
 * other categories' samples off and grounded.
 *
 *   npx tsx scripts/server-grounding-table.ts [DIR] > table.md
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2] ?? "docs/results/server-grounding";

/** One run as runs.json keeps it (an eval report's run, less what the tables do not read). */
interface Run {
  taskId: string;
  success: boolean;
  wallMs: number;
}
const reports = JSON.parse(readFileSync(join(dir, "runs.json"), "utf8")) as Record<
  string,
  Record<string, { command: string; runs: Run[] }>
>;
const right = (runs: Run[]) => runs.filter((r) => r.success).length;
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const seconds = (runs: Run[]) => (median(runs.map((r) => r.wallMs)) / 1000).toFixed(2);

for (const model of Object.keys(reports).filter((name) => reports[name]["simple-odd-off"])) {
  const at = (row: string): Run[] | undefined => reports[model][row]?.runs;
  const off = at("simple-odd-off");
  const grounded = at("simple-odd-grounded");
  console.log(`### ${model}\n`);
  console.log("| `simple_python`, odd half | right | success | median s / question |");
  console.log("| --- | --- | --- | --- |");
  for (const [name, runs] of [
    ["server, grounding off", off],
    ["server, grounded (default)", grounded],
  ] as const)
    if (runs)
      console.log(`| ${name} | ${right(runs)}/${runs.length} | ${pct(right(runs), runs.length)} | ${seconds(runs)} |`);
  if (off && grounded) {
    const byId = new Map(off.map((r) => [r.taskId, r.success]));
    const won = grounded.filter((r) => r.success && !byId.get(r.taskId)).length;
    const lost = grounded.filter((r) => !r.success && byId.get(r.taskId)).length;
    console.log(`\nGrounded against off: ${won} questions won, ${lost} lost.\n`);
  }
  const json = at("simple-odd50-json-schema");
  if (json && grounded) {
    const gbnf = new Map(grounded.map((r) => [r.taskId, r.success]));
    const differ = json.filter((r) => gbnf.get(r.taskId) !== r.success).map((r) => r.taskId);
    const same = json.filter((r) => gbnf.has(r.taskId));
    const viaGbnf = same.filter((r) => gbnf.get(r.taskId)).length;
    console.log(
      `JSON Schema path against our GBNF, grounded, on ${same.length} of those questions (every 4th): ${right(json)} and ${viaGbnf} right; verdicts differ on ${differ.length}${differ.length ? ` (${differ.join(", ")})` : ""}.\n`,
    );
  }
  const categories = ["multiple", "parallel", "parallel_multiple", "irrelevance"];
  const rows = categories.map((c) => [c, at(`${c}-off`), at(`${c}-soft`)] as const).filter(([, a, b]) => a && b);
  if (rows.length) {
    console.log("| category (20 odd-position questions) | off | grounded | median s / question, off → grounded |");
    console.log("| --- | --- | --- | --- |");
    for (const [c, a, b] of rows)
      console.log(
        `| \`${c}\` | ${right(a!)}/${a!.length} | ${right(b!)}/${b!.length} | ${seconds(a!)} → ${seconds(b!)} |`,
      );
    console.log("");
  }
}
