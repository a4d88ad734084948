/**
 * The benchmark's Markdown report: what was run where (command, model file, threads, versions, machine, load), then
 * per model a table of every figure's median and spread over the rounds, the agent run step by step, and the one-call
 * comparison of Agent.step against LlamaChatSession.
 */
import type { SpeedReport } from "./bench-speed.js";
import { speedSection } from "./bench-speed-report.js";
import type { Spread } from "./bench-stats.js";

/** What the report header needs; the JSON document's `meta`. */
export interface BenchMeta {
  command: string;
  date: string;
  node: string;
  nodeLlamaCpp: string;
  cpuCores: number;
  cpuModel: string;
  rounds: number;
  loadAverage: { start: number[]; end?: number[] };
  note?: string;
}

/** The per-model figures the report reads (the JSON document's `fixture` / `model`). */
export interface ModelReport {
  model: { file: string; sizeBytes: number; architecture: string; quantization: string; name: string };
  backend: string;
  threads: number;
  contextSize: number;
  settings: Record<string, number | string>;
  prefill: {
    promptTokens: number;
    rawTokensPerSecond?: Spread;
    handleTokensPerSecond?: Spread;
    handleOverRaw?: Spread;
  };
  a_rawEvaluateTokensPerSecond?: Spread;
  b_generateTokensPerSecond?: Spread;
  b_over_a?: Spread;
  b_generatedTokens?: Spread;
  c_grammarTokensPerSecond?: Spread;
  c_over_b?: Spread;
  c_msPerTokenOverB?: Spread;
  c_generatedTokens?: Spread;
  grammarTokens: { compactTotal: number; prettyTotal: number; prettyOverCompact: number };
  agentRun: {
    calculatorFirst: boolean;
    maxIterations: number;
    maxTokens: number;
    stepWallMs?: Spread;
    generatedTokensPerStep?: Spread;
    runWallMs?: Spread;
    steps?: Spread;
    parsedSteps: string;
    stopReasons: string[];
    answer?: string;
    perStep: Array<{
      step: number;
      wallMs?: Spread;
      modelMs?: Spread;
      promptTokens: number;
      evaluatedPromptTokens: number;
      generatedTokens: number;
      parsed: boolean;
      outcome: string;
      sameInEveryRound: boolean;
    }>;
  };
  oneCall: {
    maxTokens: number;
    chatWrapper?: string;
    agentStep: OneCallSide;
    chatSession: OneCallSide & { stopReasons: string[] };
    stepOverSessionWall?: Spread;
    stepOverSessionToCall?: Spread;
    stepOverSessionGeneratedTokens?: Spread;
  };
  d_agent: { evaluatedPromptTokens: number; newPromptTokens: number; evaluatedOverNew: number; steps: number };
  e_llamaChatSession: { evaluatedPromptTokens: number; newPromptTokens: number; evaluatedOverNew: number };
  /** Issue 11's speed figures (absent with --skip-speed and in older reports). */
  speed?: SpeedReport;
  /** (f) KV reuse across the turns of a conversation (Agent.invoke with a memory budget); absent in older reports. */
  f_conversation?: {
    turns: number;
    tokenBudget: number;
    modelCalls: number;
    largestPrompt: number;
    trimmedTurns: number;
    reuseAll: number;
    reuseFirstCalls: number;
  };
}

interface OneCallSide {
  wallMs?: Spread;
  toCallMs?: Spread;
  tokensToCall?: Spread;
  generatedTokens?: Spread;
  evaluatedTokens?: Spread;
  validCalls: string;
  correctCalls: string;
  firstCall?: { name: string; arguments: unknown };
  firstText: string;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\r?\n/g, "⏎");
const code = (text: string) => (text === "" ? "(empty)" : `\`${cell(text).replace(/`/g, "'")}\``);

function num(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return "–";
  const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : Math.abs(x) >= 1 ? 2 : 3;
  return x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** `median [p25–p75]`, for cells. */
function brief(s: Spread | undefined): string {
  return s ? `${num(s.median)} [${num(s.p25)}–${num(s.p75)}]` : "–";
}

function figuresTable(m: ModelReport, rounds: number): string[] {
  const row = (label: string, s: Spread | undefined, unit: string): string => {
    if (!s) return `| ${label} | – | – | – | – | – | ${unit} |`;
    const n = s.n === rounds ? "" : ` (${s.n} of ${rounds} rounds)`;
    return `| ${label} | **${num(s.median)}** | ${num(s.p25)} | ${num(s.p75)} | ${num(s.min)} | ${num(s.max)} | ${unit}${n} |`;
  };
  const r = m.agentRun;
  const o = m.oneCall;
  return [
    "| Figure | Median | p25 | p75 | Min | Max | Unit |",
    "|---|---|---|---|---|---|---|",
    row(
      `Prefill, raw \`evaluateWithoutGeneratingNewTokens\` (${m.prefill.promptTokens}-token prompt)`,
      m.prefill.rawTokensPerSecond,
      "tokens/s",
    ),
    row(
      "Prefill through `generate` (prompt tokens / time to first token)",
      m.prefill.handleTokensPerSecond,
      "tokens/s",
    ),
    row("(a) decode, raw `LlamaContextSequence.evaluate`", m.a_rawEvaluateTokensPerSecond, "tokens/s"),
    row("(b) decode, `generate` without grammar", m.b_generateTokensPerSecond, "tokens/s"),
    row("(b)/(a), per round", m.b_over_a, "ratio"),
    row("(c) decode, `generate` with the action grammar", m.c_grammarTokensPerSecond, "tokens/s"),
    row("(c) ms per token / (b) ms per token, per round", m.c_msPerTokenOverB, "ratio"),
    row(`Agent run: wall time per step (≤ ${r.maxIterations} steps, ≤ ${r.maxTokens} tokens each)`, r.stepWallMs, "ms"),
    row("Agent run: generated tokens per step", r.generatedTokensPerStep, "tokens"),
    row("Agent run: whole run", r.runWallMs, "ms"),
    row("One call: `Agent.step`", o.agentStep.wallMs, "ms"),
    row("One call: `LlamaChatSession.prompt` with functions", o.chatSession.wallMs, "ms"),
    row("One call: `Agent.step` / `LlamaChatSession.prompt`, per round", o.stepOverSessionWall, "ratio"),
    row("One call: `Agent.step` / session's time to its first call, per round", o.stepOverSessionToCall, "ratio"),
    row("One call: generated tokens, step / session, per round", o.stepOverSessionGeneratedTokens, "ratio"),
  ];
}

function agentRunSection(m: ModelReport): string[] {
  const r = m.agentRun;
  const lines = [
    `### Agent run, step by step`,
    "",
    `The question "What is 17% of 2,340?" with the \`calculator\` and \`weather\` skills, at most ${r.maxIterations} steps of at most ${r.maxTokens} tokens (plus the grammar's wrap-up), greedy.` +
      (r.calculatorFirst
        ? " A validator refuses an answer given before a calculator result (feedback: use the calculator first), so a model that answers at once still makes several steps; run with --free-run to turn it off."
        : ""),
    "",
    `Stop reasons over the rounds: ${[...new Set(r.stopReasons)].map((s) => `${s} ×${r.stopReasons.filter((x) => x === s).length}`).join(", ")}. ` +
      `Replies that parsed as actions: ${r.parsedSteps}.${r.answer !== undefined ? ` Answer (round 1): ${code(r.answer)}.` : ""}`,
    "",
    "| Step | Wall ms, median [p25–p75] | Model call ms | Prompt tokens | Evaluated | Generated | Parsed | Outcome (round 1) |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const s of r.perStep) {
    lines.push(
      `| ${s.step} | ${brief(s.wallMs)} | ${brief(s.modelMs)} | ${s.promptTokens} | ${s.evaluatedPromptTokens} | ${s.generatedTokens} | ${s.parsed ? "yes" : "no"} | ${code(s.outcome)}${s.sameInEveryRound ? "" : " (varied between rounds)"} |`,
    );
  }
  return lines;
}

function oneCallSection(m: ModelReport): string[] {
  const { agentStep: a, chatSession: s } = m.oneCall;
  const call = (side: OneCallSide) =>
    side.firstCall ? code(`${side.firstCall.name}(${JSON.stringify(side.firstCall.arguments)})`) : "none";
  return [
    `### One call: \`Agent.step\` against \`LlamaChatSession\` function calling`,
    "",
    `Same model, same context and sequence (emptied before each), greedy, at most ${m.oneCall.maxTokens} generated tokens each. ` +
      `The session uses node-llama-cpp's chat wrapper for this model (${m.oneCall.chatWrapper ?? "?"}), its default system prompt and ` +
      "`defineChatSessionFunction` for `calculator` and `weather`; its handlers return the result, so after a call it goes on to answer. " +
      "Valid: `calculator` called with arguments that pass the skill's schema; correct: the expression evaluates to 397.8.",
    "",
    "| | `Agent.step` | `LlamaChatSession.prompt` |",
    "|---|---|---|",
    `| Valid calls | ${a.validCalls} | ${s.validCalls} |`,
    `| Correct calls | ${a.correctCalls} | ${s.correctCalls} |`,
    `| Wall ms, median [p25–p75] | ${brief(a.wallMs)} | ${brief(s.wallMs)} |`,
    `| Time to the first call, ms | ${brief(a.toCallMs)} | ${brief(s.toCallMs)} |`,
    `| Generated tokens | ${brief(a.generatedTokens)} | ${brief(s.generatedTokens)} |`,
    `| Generated tokens up to the first call | ${brief(a.tokensToCall)} | ${brief(s.tokensToCall)} |`,
    `| Evaluated prompt tokens | ${brief(a.evaluatedTokens)} | ${brief(s.evaluatedTokens)} |`,
    `| Stop reason | – | ${[...new Set(s.stopReasons)].join(", ")} |`,
    `| First call (round 1) | ${call(a)} | ${call(s)} |`,
    `| Reply (round 1) | ${code(a.firstText)} | ${code(s.firstText)} |`,
  ];
}

function modelSection(m: ModelReport, rounds: number): string[] {
  const size = `${(m.model.sizeBytes / 2 ** 20).toFixed(1)} MiB (${m.model.sizeBytes.toLocaleString("en-US")} bytes)`;
  return [
    `## ${m.model.file}`,
    "",
    `Architecture \`${m.model.architecture}\`, quantization ${m.model.quantization}, ${size}, name "${m.model.name}". ` +
      `Backend ${m.backend}, ${m.threads} thread${m.threads === 1 ? "" : "s"}, context ${m.contextSize} tokens. ` +
      `Settings: ${Object.entries(m.settings)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}.`,
    "",
    ...figuresTable(m, rounds),
    "",
    `Action grammar output: our compact JSON writes ${m.grammarTokens.compactTotal} tokens for four sample actions where node-llama-cpp's pretty-printed JSON-schema grammar writes ${m.grammarTokens.prettyTotal} (${m.grammarTokens.prettyOverCompact}x). ` +
      `KV reuse over an ${m.d_agent.steps}-step agent conversation: (d) ours evaluated ${m.d_agent.evaluatedPromptTokens} prompt tokens for ${m.d_agent.newPromptTokens} new (${m.d_agent.evaluatedOverNew}), ` +
      `(e) LlamaChatSession ${m.e_llamaChatSession.evaluatedPromptTokens} for ${m.e_llamaChatSession.newPromptTokens} (${m.e_llamaChatSession.evaluatedOverNew}).` +
      (m.f_conversation
        ? ` (f) A ${m.f_conversation.turns}-turn conversation within a ${m.f_conversation.tokenBudget}-token memory budget (${m.f_conversation.modelCalls} model calls, largest prompt ${m.f_conversation.largestPrompt} tokens, ${m.f_conversation.trimmedTurns} turn(s) trimmed the history): reused / prompt tokens ${m.f_conversation.reuseAll} over all calls, ${m.f_conversation.reuseFirstCalls} over each later turn's first call.`
        : ""),
    "",
    ...agentRunSection(m),
    "",
    ...oneCallSection(m),
    "",
    ...speedSection(m.speed),
  ];
}

/** The whole report. */
export function renderMarkdown(meta: BenchMeta, models: ModelReport[]): string {
  const load = (xs: number[] | undefined) => (xs ? xs.map((x) => x.toFixed(2)).join(" / ") : "–");
  return [
    `# Model benchmark: ${models.map((m) => m.model.file).join(", ")}`,
    "",
    "```sh",
    meta.command,
    "```",
    "",
    `- Date: ${meta.date}`,
    `- Machine: ${meta.cpuCores} CPU cores (shared; figures are medians over ${meta.rounds} alternated rounds)`,
    `- CPU: ${meta.cpuModel}; load average (1/5/15 min) at the start ${load(meta.loadAverage.start)}, at the end ${load(meta.loadAverage.end)}`,
    `- node ${meta.node}, node-llama-cpp ${meta.nodeLlamaCpp}`,
    ...(meta.note ? [`- Note: ${meta.note}`] : []),
    "",
    "Each round runs every figure once, pairs in alternating order (A then B, then B then A), each sample from an empty " +
      "sequence of the same context. Spread: p25/p75 (interpolated), min and max over the rounds. Ratios are taken within " +
      "a round, then summarized.",
    "",
    ...models.flatMap((m) => modelSection(m, meta.rounds)),
  ].join("\n");
}
