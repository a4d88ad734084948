/**
 * The benchmark report's section for issue 11's speed figures (scripts/lib/bench-speed.ts).
 */
import type { SpeedReport } from "./bench-speed.js";
import type { Spread } from "./bench-stats.js";

function num(x: number | undefined, digits = 2): string {
  return x === undefined || !Number.isFinite(x) ? "–" : x.toLocaleString("en-US", { maximumFractionDigits: digits });
}

/** `median [p25–p75]`. */
function brief(s: Spread | undefined, digits = 2): string {
  return s ? `${num(s.median, digits)} [${num(s.p25, digits)}–${num(s.p75, digits)}]` : "–";
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function actionsSection(speed: SpeedReport): string[] {
  const a = speed.actions;
  const row = (label: string, on: string, off: string) => `| ${label} | ${on} | ${off} |`;
  const candidates = a.lever === "candidates";
  const lever = { candidates: "candidate sampling", "jump-forward": "jump-forward", speculation: "speculation" }[
    a.lever
  ];
  return [
    candidates
      ? "### Actions with candidate sampling and with llama.cpp's grammar sampler"
      : `### Actions with and without ${lever}`,
    "",
    `One agent step on fixed prompts (each question, a scripted first call and its result: the run's second step; the ` +
      `sequence holds the first step's prompt before it), greedy, at most ${a.maxTokens} tokens, ${lever} on and ` +
      `off alternated in every round (${candidates ? `jump-forward ${a.withoutJumpForward ? "off" : "on"} for both` : a.lever === "speculation" ? "candidate sampling and jump-forward on for both" : "candidate sampling on for both"}). ` +
      `Questions: ${a.questions.map((q) => `"${q}"`).join(", ")}. Refusals: the ` +
      "reply replayed without the grammar, where the model's own greedy token was not the one the grammar let it " +
      "sample, counted in the first round. Under llama.cpp's grammar sampler each refusal is a pass over the whole " +
      "vocabulary; with candidate sampling a pass runs only when none of the top candidates is allowed (counted in " +
      "every round).",
    "",
    `| | ${lever} on | off |`,
    "|---|---|---|",
    row("Step wall ms, median [p25–p75]", brief(a.on.stepWallMs, 0), brief(a.off.stepWallMs, 0)),
    row("Generated tokens per action", num(a.on.generatedPerAction, 1), num(a.off.generatedPerAction, 1)),
    row("Sampled tokens per action", num(a.on.sampledPerAction, 1), num(a.off.sampledPerAction, 1)),
    row("Forced tokens per action (fed in batches)", num(a.on.forcedPerAction, 1), num(a.off.forcedPerAction, 1)),
    row(
      "Refused samplings (rate)",
      `${a.on.refused}/${a.on.sampledInReplay} (${pct(a.on.refusalRate)})`,
      `${a.off.refused}/${a.off.sampledInReplay} (${pct(a.off.refusalRate)})`,
    ),
    row(
      "... of them about form (whitespace, fences, spacing)",
      `${a.on.formRefused} (${pct(a.on.formRefusalRate)} of samplings)`,
      `${a.off.formRefused} (${pct(a.off.formRefusalRate)} of samplings)`,
    ),
    row(
      "Passes over the whole vocabulary (rate of samplings)",
      `${a.on.fullPasses}/${a.on.fullPassSamplings} (${pct(a.on.fullPassRate)})`,
      `${a.off.fullPasses}/${a.off.fullPassSamplings} (${pct(a.off.fullPassRate)})`,
    ),
    row("Generation ms per sampled token", brief(a.on.msPerSampledToken), brief(a.off.msPerSampledToken)),
    row(
      "... over free text's ms per token, per round",
      brief(a.constrainedOverFreeOn),
      brief(a.constrainedOverFreeOff),
    ),
    row(
      "Generation time over the same batches replayed as free text, per round",
      brief(a.constrainedOverReplayOn),
      brief(a.constrainedOverReplayOff),
    ),
    row(
      "The replay's ms per sampled token over free text's ms per token (the floor), per round",
      brief(a.replayOverFreeOn),
      brief(a.replayOverFreeOff),
    ),
    "",
    `Free text on the same prompts: ${brief(a.freeMsPerToken)} ms per token. Step wall time, on / off per round: ` +
      `**${brief(a.stepOnOverOff)}**; sampled tokens on / generated tokens off: **${brief(a.sampledOnOverGeneratedOff)}**. ` +
      `The same action with ${lever} on and off: ${a.sameAction}. The replay evaluates each reply's tokens again ` +
      "in the batches the reply evaluated them in (jump-forward's forced tokens with the sampled one), with no " +
      "grammar, no bias and llama.cpp's greedy sampler: the ratio is what sampling under the grammar costs. The " +
      "replay's own time per sampled token over free text's is the floor of the per-sampled-token figure: what it " +
      "would be if sampling under the grammar cost nothing, the forced tokens in the batches being all that is left.",
    ...(a.on.refusalExamples.length + a.off.refusalExamples.length > 0
      ? [
          "",
          `Refusals (wanted→got), on: ${a.on.refusalExamples.join(" ") || "none"}; off: ${a.off.refusalExamples.join(" ") || "none"}.`,
        ]
      : []),
  ];
}

function promptCacheSection(speed: SpeedReport): string[] {
  const p = speed.promptCache;
  if (!p) return [];
  return [
    "### Prompt cache: time to the first token, cold and warm",
    "",
    "The same prompt from an empty sequence, its shared opening (the system prompt) prefilled (cold: the cache " +
      "emptied first) or restored from the prompt cache (warm), alternated. With every built-in skill: opening " +
      `${p.full.openingTokens} tokens, state file ${num(p.full.stateBytes / 2 ** 20, 1)} MiB; cold ${brief(p.full.coldMs, 0)} ms, ` +
      `warm ${brief(p.full.warmMs, 0)} ms, warm / cold per round **${brief(p.full.warmOverCold)}**.`,
    "",
    "| Opening tokens | State MiB | Cold (prefill) ms | Warm (restore) ms |",
    "|---|---|---|---|",
    ...p.byLength.map(
      (x) =>
        `| ${x.openingTokens} | ${num(x.stateBytes / 2 ** 20, 1)} | ${brief(x.coldMs, 0)} | ${brief(x.warmMs, 0)} |`,
    ),
  ];
}

function parallelSection(speed: SpeedReport): string[] {
  const p = speed.parallel;
  if (!p) return [];
  return [
    "### Parallel sequences: evaluation runs per minute",
    "",
    `The first ${p.tasks} tasks of \`evals/basic.json\` at budget ${p.budget}, greedy, on one model loaded with N context ` +
      "sequences and N runs at a time (`eval --parallel N`); the levels alternate in order between rounds. Same as " +
      "sequential: runs whose answer, stop reason and calls equal the N = 1 run's.",
    "",
    "| N | Tasks per minute | RSS MiB | Same as sequential |",
    "|---|---|---|---|",
    ...p.byParallel.map((x) => `| ${x.parallel} | ${brief(x.tasksPerMinute)} | ${x.rssMb} | ${x.sameAsSequential} |`),
    "",
    `Per round, over N = 1: ${p.speedup.map((x) => `N = ${x.parallel}: **${brief(x.overSequential)}**`).join("; ")}.`,
  ];
}

/** Issue 11's section of a model's report. */
export function speedSection(speed: SpeedReport | undefined): string[] {
  if (!speed) return [];
  const rest = [promptCacheSection(speed), parallelSection(speed)].filter((section) => section.length > 0);
  return [...actionsSection(speed), "", ...rest.flatMap((section) => [...section, ""])];
}
