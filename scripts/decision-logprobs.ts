/**
 * Does the model's own log-probability of answering tell the questions no skill fits from the others? Reads the
 * `decision` events of eval traces (`eval --traces DIR`) made with `--decision-levers none` (every offset 0: the model
 * chooses alone, its branch points still reported) and takes, at each run's first reply, the log-probability of
 * `final_answer` at the `action` branch (null where it was not among the model's top candidates). Prints per group the
 * runs, those where `final_answer` was outside the top candidates, those where the model answered, and the AUC of
 * that log-probability for "no skill fits" (the first group) against the others (an unknown one counts lowest; 0.5 is
 * chance).
 *
 *   npx tsx scripts/decision-logprobs.ts <irrelevance traces dir> <other traces dir>...
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

interface FirstAction {
  answerLogprob: number | null;
  answered: boolean;
}

/** Every .jsonl file under a folder. */
function traceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return traceFiles(path);
    return name.endsWith(".jsonl") ? [path] : [];
  });
}

function firstAction(path: string): FirstAction | undefined {
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.includes('"decision"')) continue;
    const event = JSON.parse(line) as {
      type: string;
      step: number;
      branches: { at: string; chosen: string; options: { option: string; logprob: number | null }[] }[];
    };
    if (event.type !== "decision" || event.step !== 1) continue;
    const action = event.branches.find((b) => b.at === "action");
    if (!action) return undefined;
    const answer = action.options.find((o) => o.option === "final_answer");
    return { answerLogprob: answer?.logprob ?? null, answered: action.chosen === "final_answer" };
  }
  return undefined;
}

function auc(positives: readonly (number | null)[], negatives: readonly (number | null)[]): number {
  const score = (v: number | null) => v ?? Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const p of positives)
    for (const n of negatives) sum += score(p) > score(n) ? 1 : score(p) === score(n) ? 0.5 : 0;
  return sum / (positives.length * negatives.length);
}

const [irrelevant, ...others] = process.argv.slice(2);
if (!irrelevant || others.length === 0) throw new Error("usage: decision-logprobs.ts <irrelevance dir> <other dir>...");
const groups = [irrelevant, ...others].map((dir) => ({
  dir,
  actions: traceFiles(dir)
    .map(firstAction)
    .filter((a): a is FirstAction => a !== undefined),
}));
for (const { dir, actions } of groups)
  console.log(
    `${dir}: ${actions.length} runs, final_answer outside the top candidates in ${actions.filter((a) => a.answerLogprob === null).length}, answered in ${actions.filter((a) => a.answered).length}`,
  );
const negatives = groups.slice(1).flatMap((g) => g.actions.map((a) => a.answerLogprob));
console.log(
  `AUC of log p(final_answer) for "no skill fits": ${auc(
    groups[0].actions.map((a) => a.answerLogprob),
    negatives,
  ).toFixed(3)}`,
);
