/**
 * The chat soak: `gemma-agent chat` (the built CLI) in a real pseudo-terminal (util-linux `script`), typed into one
 * line a turn, as a person keeps a conversation going for hours. The agent's memory has a small token budget, so the
 * conversation is trimmed every few turns; the model keeps its sequence (KV cache reused across turns) and restores its
 * system prompt from the prompt cache (a temporary folder). A turn has ended when its record is in the conversation
 * file; every `turns / samples` turns, at the prompt, the chat process is sampled as the eval soak samples its own.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  findProcess,
  probedEnv,
  processWarnings,
  readProbe,
  SoakSampler,
  type ProbeReport,
  type SoakSample,
} from "./soak-sample.js";
import { lineCounter } from "./soak-eval.js";

const CLI = resolve("dist/cli/main.js");
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
/** The chat's greeting ends with its help line: the session is ready for the first turn. */
const READY = "/exit; Ctrl-C stops an answer";

export interface ChatSoakOptions {
  /** A GGUF path, or `script:FILE.json` (scripted replies: no sequences, prompt tokens or trims to report). */
  model: string;
  turns: number;
  /** The conversation's token budget (the agent definition's `memory.token_budget`). */
  tokenBudget: number;
  samples: number;
  /** A fresh folder for the agent, the conversation, the probes and the prompt cache. */
  workDir: string;
  threads?: number;
  onSample?: (sample: SoakSample) => void;
  /** Killed past this. Default 1 hour. */
  timeoutMs?: number;
}

export interface ChatSoakResult {
  samples: SoakSample[];
  /** Turns in the conversation file at the end. */
  turns: number;
  code: number | null;
  /** The last screenful (for a failure's message). */
  screen: string;
  /** Process warnings on the screen (a MaxListenersExceededWarning is a listener leak). */
  warnings: string[];
  /**
   * The most prompt tokens one model call had, and the trims: turns whose first prompt was shorter than the turn
   * before's (the history lost old turns or their skill steps).
   */
  maxPromptTokens: number;
  trims: number;
  /** What the chat process's probe wrote last (at its exit). */
  probe: ProbeReport | undefined;
}

/** The turn typed as turn `i` (1-based): short questions, all different, the same on every soak. */
export function soakQuestion(i: number): string {
  return `Question ${i}: what is ${i} plus ${(i * 7) % 13}?`;
}

/** The agent: the calculator, a conversation memory of `tokenBudget` tokens trimmed by dropping the oldest turns. */
function writeAgent(dir: string, tokenBudget: number): string {
  const file = join(dir, "agent.yaml");
  writeFileSync(
    file,
    [
      "name: soak_helper",
      "description: Answers arithmetic questions.",
      "tools: [calculator]",
      `memory: { type: conversation, token_budget: ${tokenBudget}, trim_policy: drop_oldest }`,
      "",
    ].join("\n"),
  );
  return file;
}

function chatArgs(options: ChatSoakOptions, agent: string, conversation: string): string[] {
  const args = [
    process.execPath,
    CLI,
    "chat",
    agent,
    "--model",
    options.model,
    "--gpu",
    "off",
    "--context-size",
    "2048",
  ];
  if (options.threads) args.push("--threads", String(options.threads));
  // two model calls a turn at most (a skill call, then the answer in a final round), short: the soak is about what
  // stays, not what is said
  args.push("--max-iterations", "2", "--thought", "none", "--max-answer-chars", "24", "--seed", "1");
  args.push("--conversation", conversation, "--quiet");
  return args;
}

/** Run the chat soak; resolves when the chat has exited (after `/exit`, or killed at the timeout). */
export function chatSoak(options: ChatSoakOptions): Promise<ChatSoakResult> {
  const probeDir = join(options.workDir, "probes");
  const cacheDir = join(options.workDir, "prompt-cache");
  mkdirSync(probeDir, { recursive: true });
  const conversation = join(options.workDir, "conversation.jsonl");
  const lines = lineCounter(conversation);
  const agent = writeAgent(options.workDir, options.tokenBudget);
  const command = `stty cols 200 rows 50; ${chatArgs(options, agent, conversation).map(quote).join(" ")}`;
  const sampler = new SoakSampler({ probeDir, cacheDir, modelRole: "chat" });
  const child = spawn("script", ["-q", "-e", "-f", "-c", command, "/dev/null"], {
    env: probedEnv(probeDir, cacheDir),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  const warnings: string[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    screen = (screen + chunk.toString()).slice(-8000);
    warnings.push(...processWarnings(chunk.toString()));
  });
  const samples: SoakSample[] = [];
  const step = Math.max(1, Math.floor(options.turns / options.samples));
  let chatPid: number | undefined;
  let typed = 0;
  let maxPromptTokens = 0;
  let trims = 0;
  // each turn's first model call (its prompt: the system prompt, the history kept, the message): a trim shortens it
  let firstCall = 0;
  let lastFirstPrompt = 0;
  const turnsDone = () => Math.max(0, lines() - 1); // the file's first line is its header
  const gguf = !options.model.startsWith("script:");
  const poll = setInterval(() => {
    if (typed === 0 && !screen.includes(READY)) return;
    chatPid ??= findProcess(child.pid!, CLI);
    const done = turnsDone();
    if (done < typed) return sampler.observe({ chat: chatPid }); // the turn typed last is under way
    const probe = chatPid === undefined ? undefined : readProbe(probeDir, chatPid);
    // its probe has not written the turn's calls yet (a scripted model publishes none)
    if (gguf && typed > 0 && (probe?.calls ?? 0) < firstCall) return;
    const first = probe?.recent.find(([call]) => call === firstCall)?.[1];
    if (first !== undefined && first < lastFirstPrompt) trims++;
    lastFirstPrompt = first ?? lastFirstPrompt;
    maxPromptTokens = Math.max(maxPromptTokens, probe?.maxPromptTokens ?? 0);
    if (done === 1 || (done > 0 && done % step === 0) || done === options.turns) {
      const sample = sampler.sample({ chat: chatPid }, done);
      samples.push(sample);
      options.onSample?.(sample);
    }
    if (typed === options.turns) {
      clearInterval(poll);
      child.stdin.write("/exit\r");
      return;
    }
    typed++;
    firstCall = (probe?.calls ?? 0) + 1;
    child.stdin.write(`${soakQuestion(typed)}\r`);
  }, 20);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 3600_000);
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      const probe = chatPid === undefined ? undefined : readProbe(probeDir, chatPid);
      done({ samples, turns: turnsDone(), code, screen, warnings, maxPromptTokens, trims, probe });
    });
  });
}
