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

// The rows of one later build (`<row>@<build>`): in process off → soft and server off → grounded on the same odd half,
// the same machine, one after another; the other categories' samples over the server at that build.
const builds = new Set(
  Object.values(reports).flatMap((rows) => Object.keys(rows).flatMap((row) => row.split("@").slice(1))),
);
for (const build of builds) {
  console.log(`### At build ${build}: in process and over the server, one build\n`);
  console.log(
    "| model | in process: off → soft | server: off → grounded | share of the gain kept | median s / question: in process soft, server grounded |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  const points = (runs: Run[]) => (100 * right(runs)) / runs.length;
  for (const model of Object.keys(reports)) {
    const at = (row: string): Run[] | undefined => reports[model][`${row}@${build}`]?.runs;
    const [inOff, inSoft, serverOff, serverOn] = ["inproc-off", "inproc-soft", "server-off", "server-grounded"].map(at);
    if (!inOff || !inSoft || !serverOff || !serverOn) continue;
    const gain = (a: Run[], b: Run[]) => points(b) - points(a);
    const share = (100 * gain(serverOff, serverOn)) / gain(inOff, inSoft);
    const cell = (a: Run[], b: Run[]) =>
      `${pct(right(a), a.length)} → ${pct(right(b), b.length)} (${gain(a, b) >= 0 ? "+" : ""}${gain(a, b).toFixed(1)})`;
    console.log(
      `| ${model} | ${cell(inOff, inSoft)} | ${cell(serverOff, serverOn)} | ${share.toFixed(0)}% | ${seconds(inSoft)}, ${seconds(serverOn)} |`,
    );
  }
  console.log("");
  for (const model of Object.keys(reports)) {
    const categories = ["irrelevance", "multiple", "parallel", "parallel_multiple"];
    const rows = categories
      .map(
        (c) =>
          [
            c,
            reports[model][`${c}-off`]?.runs,
            reports[model][`${c}-soft`]?.runs,
            reports[model][`server-${c}@${build}`]?.runs,
          ] as const,
      )
      .filter(([, a, , b]) => a && b);
    if (!rows.length) continue;
    console.log(`${model}, the same 20-question samples over the server:\n`);
    console.log(
      `| category | first pass: off → grounded (b638a73/bc4ac5f) | default at ${build} | median s / question: off, ${build} |`,
    );
    console.log("| --- | --- | --- | --- |");
    for (const [c, a, first, b] of rows)
      console.log(
        `| \`${c}\` | ${right(a)}/${a.length} → ${first ? `${right(first)}/${first.length}` : "-"} | ${right(b)}/${b.length} | ${seconds(a)}, ${seconds(b)} |`,
      );
    console.log("");
  }
}
