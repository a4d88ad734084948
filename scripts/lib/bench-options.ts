/**
 * The benchmark's command line: flags, defaults, and the command as a user types it again (for the report).
 */
import { parseArgs } from "node:util";
import type { ActionLever } from "./bench-speed.js";

/** What one benchmark run measures, and how much. */
export interface BenchOptions {
  threads?: number;
  rounds: number;
  /** Tokens decoded per (a)/(b) sample; (c) decodes half as many. */
  tokens: number;
  prefillTokens: number;
  /** maxTokens of each step of the (d) KV-reuse run (random weights never stop: the grammar wrap-up closes the JSON). */
  maxTokens: number;
  /** maxTokens of each task step and of the chat session's prompt. */
  taskMaxTokens: number;
  agentSteps: number;
  /** The task run refuses an answer before a calculator result (false with --free-run). */
  calculatorFirst: boolean;
  contextSize: number;
  /** Rounds of the parallel figures (each loads the model three times and runs `parallelTasks` tasks). */
  parallelRounds: number;
  /** evals/basic.json tasks per parallel sample (the first N). */
  parallelTasks: number;
  /** Skip the speed figures of issue 11 (actions, prompt cache, parallel). */
  skipSpeed: boolean;
  /** Of the speed figures, the actions only (no prompt cache, no parallel sequences). */
  actionsOnly: boolean;
  /** The lever the action figures turn on and off. */
  actionLever: ActionLever;
  /** The candidates lever with jump-forward off on both sides. */
  actionsWithoutJumpForward: boolean;
}

/** The flags; `npm run bench:model -- --help` prints this. */
export const USAGE = `usage: npm run bench:model -- [--model PATH] [--with-fixture] [--threads N] [--rounds N] [--tokens N]
  [--prefill-tokens N] [--max-tokens N] [--task-max-tokens N] [--agent-steps N] [--free-run] [--context-size N]
  [--parallel-rounds N] [--parallel-tasks N] [--skip-speed] [--actions-only] [--action-lever candidates|jump-forward|speculation]
  [--actions-without-jump-forward] [--out PATH-PREFIX] [--note TEXT]

  --model PATH          a GGUF to benchmark (default: the fixture model only)
  --with-fixture        with --model, benchmark the fixture model first too
  --threads N           llama.cpp threads (default: the loader's, the CPUs this process may use)
  --rounds N            rounds every figure is measured over, pairs in alternating order (default 9)
  --tokens N            tokens decoded per (a)/(b) sample; (c) decodes half as many (default 64)
  --prefill-tokens N    size of the prefill prompt, at least (default 512)
  --task-max-tokens N   maxTokens of each task step and of the chat session's prompt (default 96)
  --agent-steps N       steps of the task's agent run, at most (default 4)
  --free-run            let the task's agent run answer without a calculator result first
  --max-tokens N        maxTokens of each step of the (d) KV-reuse run (default 24)
  --context-size N      context window (default 4096)
  --parallel-rounds N   rounds of the parallel figure (tasks per minute at 1, 2, 4 sequences; default 2)
  --parallel-tasks N    evals/basic.json tasks per parallel sample, the first N (default 8)
  --skip-speed          skip the speed figures: actions with a grammar lever on and off, prompt cache, parallel
  --actions-only        of the speed figures, only the actions (no prompt cache, no parallel sequences)
  --action-lever L      what the actions turn on and off: candidates (candidate sampling against llama.cpp's
                        grammar sampler; default), jump-forward, or speculation (drafts checked in each batch,
                        candidate sampling and jump-forward on for both)
  --actions-without-jump-forward  with --action-lever candidates: jump-forward off on both sides (every token
                        sampled: the sampling path's own cost, no forced batches)
  --out PREFIX          also write PREFIX.json (the JSON document) and PREFIX.md (the report)
  --note TEXT           a line for the report, e.g. other load on the machine`;

function fail(message: string): never {
  process.stderr.write(`bench-model: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`${name} must be a positive integer (got ${value})`);
  return n;
}

const STRING_FLAGS = [
  "model",
  "action-lever",
  "threads",
  "rounds",
  "repeats",
  "tokens",
  "prefill-tokens",
  "max-tokens",
  "task-max-tokens",
  "agent-steps",
  "context-size",
  "parallel-rounds",
  "parallel-tasks",
  "out",
  "note",
];

function actionLever(value: string | undefined): ActionLever {
  if (value === undefined) return "candidates";
  if (value === "candidates" || value === "jump-forward" || value === "speculation") return value;
  fail(`--action-lever must be candidates, jump-forward or speculation (got ${value})`);
}

/** Parse the flags (exits with the usage on a bad one; prints it for --help). `--repeats` is the old name of --rounds. */
export function parseBenchArgs(argv: string[]): {
  options: BenchOptions;
  modelPath?: string;
  out?: string;
  note?: string;
  withFixture: boolean;
  argv: string[];
} {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(STRING_FLAGS.map((k) => [k, { type: "string" as const }])),
        "with-fixture": { type: "boolean" },
        "free-run": { type: "boolean" },
        "skip-speed": { type: "boolean" },
        "actions-only": { type: "boolean" },
        "actions-without-jump-forward": { type: "boolean" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const str = (k: string) => parsed[k] as string | undefined;
  const options: BenchOptions = {
    ...(str("threads") !== undefined && { threads: positiveInt("--threads", str("threads"), 1) }),
    rounds: positiveInt("--rounds", str("rounds") ?? str("repeats"), 9),
    tokens: positiveInt("--tokens", str("tokens"), 64),
    prefillTokens: positiveInt("--prefill-tokens", str("prefill-tokens"), 512),
    maxTokens: positiveInt("--max-tokens", str("max-tokens"), 24),
    taskMaxTokens: positiveInt("--task-max-tokens", str("task-max-tokens"), 96),
    agentSteps: positiveInt("--agent-steps", str("agent-steps"), 4),
    calculatorFirst: parsed["free-run"] !== true,
    contextSize: positiveInt("--context-size", str("context-size"), 4096),
    parallelRounds: positiveInt("--parallel-rounds", str("parallel-rounds"), 2),
    parallelTasks: positiveInt("--parallel-tasks", str("parallel-tasks"), 8),
    skipSpeed: parsed["skip-speed"] === true,
    actionsOnly: parsed["actions-only"] === true,
    actionLever: actionLever(str("action-lever")),
    actionsWithoutJumpForward: parsed["actions-without-jump-forward"] === true,
  };
  return {
    options,
    ...(str("model") !== undefined && { modelPath: str("model") }),
    ...(str("out") !== undefined && { out: str("out") }),
    ...(str("note") !== undefined && { note: str("note") }),
    withFixture: parsed["with-fixture"] === true,
    argv,
  };
}

/** The command line as a user types it again. */
export function commandLine(args: string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ["npm run bench:model", ...(args.length ? ["--", ...args.map(quote)] : [])].join(" ");
}
