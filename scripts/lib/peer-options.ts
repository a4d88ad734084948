/**
 * The peer evaluation's command line (scripts/peer-eval.ts): flags, checks, defaults. A bad flag is a PeerUsageError
 * (the script prints its message on one line and exits 2).
 */
import { parseArgs } from "node:util";

export const PEER_USAGE = `usage: npx tsx scripts/peer-eval.ts --model PATH (--suite FILE | --bfcl DIR --category NAME)
  [--limit N] [--budgets 2,4,8] [--threads N] [--context-size N] [--max-tokens N] [--out DIR]

  --model PATH        the GGUF to run (required)
  --suite FILE        an eval suite, e.g. evals/basic.json
  --bfcl DIR          a BFCL folder (BFCL_v4_<category>.json, possible_answer/), with --category
  --category NAME     the BFCL category, e.g. simple_python
  --limit N           run only the first N tasks
  --budgets LIST      model calls per run, comma-separated (default: the eval's, 4,8,12,16 for suites, 8 for BFCL)
  --threads N         llama.cpp threads (default 1)
  --context-size N    context window in tokens (default 4096)
  --max-tokens N      tokens one model call may generate (default 512, as the agent's step)
  --out DIR           write report.json, report.md and convergence.svg there`;

/** A flag the script cannot run with. */
export class PeerUsageError extends Error {
  override readonly name = "PeerUsageError";
}

export interface PeerOptions {
  model: string;
  source: { kind: "suite"; path: string } | { kind: "bfcl"; dir: string; category: string };
  limit?: number;
  budgets?: number[];
  threads: number;
  contextSize: number;
  maxTokens: number;
  out?: string;
}

function positiveInt(flag: string, value: string | undefined, fallback: number): number;
function positiveInt(flag: string, value: string | undefined): number | undefined;
function positiveInt(flag: string, value: string | undefined, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 1)
    throw new PeerUsageError(`${flag} must be a whole number >= 1 (got "${value}")`);
  return n;
}

/** Parse argv (without node and the script); `help: true` for --help. Throws PeerUsageError. */
export function parsePeerArgs(argv: readonly string[]): { help: true } | { help: false; options: PeerOptions } {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        model: { type: "string" },
        suite: { type: "string" },
        bfcl: { type: "string" },
        category: { type: "string" },
        limit: { type: "string" },
        budgets: { type: "string" },
        threads: { type: "string" },
        "context-size": { type: "string" },
        "max-tokens": { type: "string" },
        out: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new PeerUsageError((error as Error).message.split("\n")[0]);
  }
  if (values.help) return { help: true };
  const str = (k: string) => values[k] as string | undefined;
  const model = str("model");
  if (!model) throw new PeerUsageError("--model PATH is required (a GGUF file)");
  const suite = str("suite");
  const bfcl = str("bfcl");
  const category = str("category");
  if (suite !== undefined && bfcl !== undefined) throw new PeerUsageError("give --suite or --bfcl, not both");
  if (suite === undefined && bfcl === undefined)
    throw new PeerUsageError("give --suite FILE or --bfcl DIR --category NAME");
  if (bfcl !== undefined && !category) throw new PeerUsageError("--bfcl needs --category NAME (e.g. simple_python)");
  if (suite !== undefined && category !== undefined)
    throw new PeerUsageError("--category goes with --bfcl, not --suite");
  let budgets: number[] | undefined;
  if (str("budgets") !== undefined) {
    const parts = str("budgets")!
      .split(",")
      .map((p) => p.trim());
    budgets = [...new Set(parts.map((p) => positiveInt("--budgets", p)!))].sort((a, b) => a - b);
  }
  const limit = positiveInt("--limit", str("limit"));
  return {
    help: false,
    options: {
      model,
      source: suite !== undefined ? { kind: "suite", path: suite } : { kind: "bfcl", dir: bfcl!, category: category! },
      ...(limit !== undefined && { limit }),
      ...(budgets && { budgets }),
      threads: positiveInt("--threads", str("threads"), 1),
      contextSize: positiveInt("--context-size", str("context-size"), 4096),
      maxTokens: positiveInt("--max-tokens", str("max-tokens"), 512),
      ...(str("out") !== undefined && { out: str("out") }),
    },
  };
}
