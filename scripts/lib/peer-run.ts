/**
 * One run of one eval task on "the peer": node-llama-cpp's own `LlamaChatSession` with function calling, instead of
 * our agent loop. Each skill of the task becomes a session function (its JSON Schema converted by peer-schema.ts);
 * the handler validates the arguments with the skill's zod schema and runs it (`executeCall`, as our loop does), and
 * returns the result text, or the error text, to the session.
 *
 * The budget is our loop's "model calls at most": budget b allows b - 1 function calls before the answer. node-llama-cpp
 * has no such limit, so: the first b - 1 calls run; a call past them is not run, its result is an error text telling
 * the model that no more calls are allowed and to answer now; a call after that stops the prompt (abort) and the run
 * ends without an answer (`max_iterations`). So the peer may take one model call more than the budget (the refused
 * call), where our loop's last step may only answer. Every call the model made counts (refused ones too), as our
 * eval counts calls whatever came of them.
 *
 * One function call per model call unless the task allows parallel calls (`maxParallelFunctionCalls: 1`); for a
 * task that does, and a chat wrapper that supports them, calls count one by one against the budget.
 *
 * The run is judged by the task's own judge on a real AgentState holding the events it would have after such a run
 * in our loop (call-skill, observation / tool-error, final-answer), so BFCL's turn rule applies unchanged.
 */
import {
  defineChatSessionFunction,
  LlamaChatSession,
  type ChatSessionModelFunction,
  type LlamaContextSequence,
} from "node-llama-cpp";
import type { SkillCall } from "../../src/actions/action.js";
import { AgentState } from "../../src/agent/agent-state.js";
import { capResult } from "../../src/agent/build-messages.js";
import { DEFAULT_MAX_RESULT_CHARS } from "../../src/defaults.js";
import type { StopReason } from "../../src/agent/events.js";
import type { EvalTask } from "../../src/eval/runner/eval-task.js";
import type { RunRecord } from "../../src/eval/runner/run-record.js";
import { executeCall } from "../../src/skills/run-skill.js";
import { describeThrown } from "../../src/safe-stringify.js";
import { toGbnfJsonSchema } from "./peer-schema.js";

/** The error text a call past the budget gets instead of its result. */
export const NO_MORE_CALLS =
  "Error: no more function calls are allowed in this conversation. Answer the user now, with the results above.";

/** What every run shares: the sequence (emptied before each run), and the generation settings. */
export interface PeerSetup {
  sequence: LlamaContextSequence;
  /** The report's model name. */
  modelName: string;
  /** Tokens one model call may generate (our loop's maxTokens per step). */
  maxTokensPerCall: number;
}

/** A run's record, and what it found out about the peer on the way. */
export interface PeerRun {
  record: RunRecord;
  /** The function calls the model made, in order (refused ones too). */
  calls: SkillCall[];
  /** JSON Schema keywords the functions' schemas lost in conversion. */
  droppedKeywords: string[];
  chatWrapper: string;
  parallelFunctionCalls: boolean;
}

const callKey = (c: SkillCall) => `${c.skillName}\u0000${JSON.stringify(c.arguments)}`;

/** One run of `task` under `budget` model calls (capped by the task's maxIterations, as our runner does). */
export async function runPeerTask(task: EvalTask, budget: number, seed: number, setup: PeerSetup): Promise<PeerRun> {
  const started = performance.now();
  const maxIterations = Math.min(budget, task.maxIterations ?? budget);
  const allowedCalls = maxIterations - 1;
  const state = new AgentState(task.query);
  const calls: SkillCall[] = [];
  const seen = new Set<string>();
  let toolErrors = 0;
  let repeatedCalls = 0;
  const controller = new AbortController();
  let stopped: "budget" | "tokens" | undefined;

  // An empty sequence and a new session: nothing of an earlier run is in the context.
  const { sequence } = setup;
  await sequence.clearHistory();
  const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
  const meter = sequence.tokenMeter;
  const input0 = meter.usedInputTokens;
  const output0 = meter.usedOutputTokens;
  let roundStartOutput = output0;
  const capTokens = () => {
    if (stopped === undefined && meter.usedOutputTokens - roundStartOutput >= setup.maxTokensPerCall) {
      stopped = "tokens";
      controller.abort(new Error("peer: token cap of one model call reached"));
    }
  };

  const dropped = new Set<string>();
  const functions: Record<string, ChatSessionModelFunction<any>> = {};
  for (const name of task.registry.names()) {
    const skill = task.registry.get(name)!;
    const converted = toGbnfJsonSchema(task.registry.jsonSchema(name));
    converted.dropped.forEach((k) => dropped.add(k));
    functions[name] = defineChatSessionFunction({
      description: skill.description,
      // A schema known only at run time: node-llama-cpp types the handler's parameters from a literal one.
      params: converted.schema as any,
      async handler(params: unknown) {
        const args = (params ?? {}) as Record<string, unknown>;
        const call: SkillCall = { skillName: name, arguments: args };
        calls.push(call);
        if (seen.has(callKey(call))) repeatedCalls++;
        seen.add(callKey(call));
        state.iterations = calls.length;
        state.emit({
          type: "call-skill",
          skillName: name,
          arguments: args,
          raw: JSON.stringify({ name, params: args }),
        });
        roundStartOutput = meter.usedOutputTokens;
        const refuse = (message: string) => {
          toolErrors++;
          state.emit({
            type: "tool-error",
            skillName: name,
            message,
            availableSkills: task.registry.names(),
            guard: "budget",
          });
          return message;
        };
        if (calls.length > allowedCalls + 1) {
          // Told to answer, it called again: the run ends here without an answer.
          stopped = "budget";
          controller.abort(new Error("peer: function call past the budget"));
          return refuse("Error: the call budget is spent.");
        }
        if (calls.length > allowedCalls) return refuse(NO_MORE_CALLS);
        const outcome = await executeCall(call, {
          registry: task.registry,
          signal: controller.signal,
          state: { query: task.query, iterations: calls.length },
        });
        // capped as our loop caps them (a refusal's message is not a result: as it is)
        if (outcome.ok) {
          const { text, truncated } = capResult(outcome.text, DEFAULT_MAX_RESULT_CHARS);
          state.emit({ type: "observation", skillName: name, result: text, ...(truncated && { truncated: true }) });
          return text;
        }
        const message = outcome.guard ? outcome.message : capResult(outcome.message, DEFAULT_MAX_RESULT_CHARS).text;
        toolErrors++;
        state.emit({
          type: "tool-error",
          skillName: name,
          message,
          availableSkills: task.registry.names(),
          ...(outcome.guard && { guard: outcome.guard }),
        });
        return `Error: ${message}`;
      },
    });
  }

  const parallel = session.chatWrapper.settings.functions.parallelism != null;
  const chatWrapper = session.chatWrapper.wrapperName;
  const failures: string[] = [];
  let stopReason: StopReason;
  let responseText: string | undefined;
  try {
    try {
      const result = await session.promptWithMeta(task.query, {
        functions,
        documentFunctionParams: true,
        ...(!task.parallelCalls && { maxParallelFunctionCalls: 1 }),
        temperature: 0,
        seed,
        // The whole prompt's cap (every model call, the refused one included); each call is capped in capTokens.
        maxTokens: setup.maxTokensPerCall * (maxIterations + 1),
        signal: controller.signal,
        stopOnAbortSignal: true,
        onResponseChunk: capTokens,
      });
      responseText = result.responseText;
    } catch (error) {
      // An abort that lands inside a function call's parameters throws even with stopOnAbortSignal.
      if (!controller.signal.aborted) throw error;
      if (stopped === "tokens")
        failures.push(
          `peer: a model call reached the token cap (${setup.maxTokensPerCall}) while writing a function call`,
        );
    }
    if (stopped === "budget" || responseText === undefined) {
      state.iterations = calls.length;
      stopReason = "max_iterations";
      state.emit({
        type: "max-iterations",
        iterations: state.iterations,
        lastActionSummary: "a function call past the budget",
        partialState: state.snapshot(),
      });
    } else {
      const answer = responseText.trim();
      state.iterations = calls.length + 1;
      state.answer = answer;
      stopReason = "answer";
      state.emit({ type: "final-answer", answer, raw: responseText });
    }
  } catch (error) {
    stopReason = "model_error";
    state.emit({ type: "model-error", message: describeThrown(error) });
    failures.push(`model error: ${describeThrown(error)}`);
  } finally {
    session.dispose({ disposeSequence: false });
  }
  state.stopReason = stopReason;
  const wallMs = performance.now() - started;
  const generatedTokens = meter.usedOutputTokens - output0;
  const evaluatedTokens = meter.usedInputTokens - input0;

  const verdict = task.judge({ answer: state.answer, calls, state });
  const record: RunRecord = {
    model: setup.modelName,
    taskId: task.id,
    ...(task.category && { category: task.category }),
    budget,
    seed,
    success: verdict.success && failures.length === 0,
    failures: [...verdict.failures, ...failures],
    ...(verdict.errorType && { errorType: verdict.errorType }),
    stopReason,
    iterations: state.iterations,
    skillCalls: calls.length,
    validationErrors: 0,
    validationErrorsByType: {},
    toolErrors,
    emptyAnswers: state.answer === "" ? 1 : 0,
    repeatedCalls,
    // An emptied sequence per run: the session reuses its KV cache between its own model calls, so this counts
    // every token evaluated once (prompt and results), not the prompt of each model call as our loop's promptTokens.
    promptTokens: evaluatedTokens,
    evaluatedPromptTokens: evaluatedTokens,
    generatedTokens,
    ...(state.answer !== undefined && { answer: state.answer }),
    wallMs,
  };
  return { record, calls, droppedKeywords: [...dropped].sort(), chatWrapper, parallelFunctionCalls: parallel };
}
