/**
 * The model process: the parent forks this file, sends `load` (a factory module and its options), then `generate`
 * calls one at a time. A native crash here ends this process only; the parent sees the exit and fails the task that
 * was running.
 */
import { pathToFileURL } from "node:url";
import type { CallStats, DecisionBranch, GenerationStats } from "../../model/model-handle.js";
import { errorToJson } from "../../coded-error.js";
import { withoutUndefined } from "../../without-undefined.js";
import type { FromWorker, ModelFactoryModule, StatsTotals, ToWorker, WorkerServedModel } from "./worker-protocol.js";

let model: WorkerServedModel | undefined;
const running = new Map<number, AbortController>();

function send(message: FromWorker): void {
  process.send?.(message);
}

async function load(factory: string, options: unknown): Promise<void> {
  try {
    const url = /^[a-z]+:/i.test(factory) ? factory : pathToFileURL(factory).href;
    const module = (await import(url)) as ModelFactoryModule;
    model = await module.createModel(options);
    send({
      type: "ready",
      ...withoutUndefined({
        info: model.info,
        chatFormat: model.chatFormat?.name,
        contextSize: model.contextSize,
        replyOverrun: model.replyOverrun,
        scoresDecisions: model.scoresDecisions,
      }),
      countsTokens: typeof model.countTokens === "function",
    });
  } catch (error) {
    send({ type: "load-error", error: errorToJson(error) });
  }
}

/** A call's stats and the model's totals, as a reply carries them (nothing when the call reported none). */
function counts(stats: CallStats | undefined): { stats?: CallStats; totals?: StatsTotals } {
  const totals = model?.stats?.totals;
  return stats ? { stats, ...(totals && { totals: structuredClone(totals) }) } : {};
}

/** The last call's part of a model's stats (its totals left out). */
function callPart(stats: GenerationStats): CallStats {
  const { totals: _, ...call } = stats;
  return structuredClone(call);
}

async function generate(message: Extract<ToWorker, { type: "generate" }>): Promise<void> {
  const controller = new AbortController();
  running.set(message.id, controller);
  // The call's own stats go back with its reply: calls run at once here, so the model's `stats` may be another's.
  let stats: CallStats | undefined;
  const onStats = (call: CallStats) => void (stats ??= call);
  const branches: DecisionBranch[] = [];
  const { decision, ...options } = message.options;
  try {
    if (!model) throw new Error("no model loaded");
    const text = await model.generate(message.prompt, {
      ...options,
      ...(decision && { decision: { ...decision, onBranch: (branch: DecisionBranch) => branches.push(branch) } }),
      signal: controller.signal,
      onStats,
    });
    // a model that does not report per call: its stats after the call
    stats ??= model.stats && callPart(model.stats);
    send({ type: "result", id: message.id, text, ...counts(stats), ...(branches.length > 0 && { branches }) });
  } catch (error) {
    send({ type: "error", id: message.id, error: errorToJson(error), ...counts(stats) });
  } finally {
    running.delete(message.id);
  }
}

async function countTokens(message: Extract<ToWorker, { type: "count-tokens" }>): Promise<void> {
  try {
    if (!model?.countTokens) throw new Error("this model cannot count tokens");
    send({ type: "count", id: message.id, tokens: await model.countTokens(message.prompt) });
  } catch (error) {
    send({ type: "error", id: message.id, error: errorToJson(error) });
  }
}

async function dispose(): Promise<void> {
  for (const controller of running.values()) controller.abort(new Error("disposed"));
  try {
    await model?.dispose?.();
  } finally {
    process.disconnect?.();
    process.exit(0);
  }
}

process.on("message", (message: ToWorker) => {
  if (message.type === "load") void load(message.factory, message.options);
  else if (message.type === "generate") void generate(message);
  else if (message.type === "count-tokens") void countTokens(message);
  else if (message.type === "abort") running.get(message.id)?.abort(new Error("aborted by the parent"));
  else if (message.type === "dispose") void dispose();
});
// The parent went away: nothing is left to serve.
process.on("disconnect", () => process.exit(0));
// Ctrl-C on a terminal signals the whole process group, this process too. The parent decides what an interrupt means
// (it aborts the call in flight, then disposes of us; a second Ctrl-C ends it, and its exit disconnects us): dying here
// first would turn the run in flight into a model error instead of an aborted run.
process.on("SIGINT", () => {});
