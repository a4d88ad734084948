import { parseStructured, resolveOutputSchema, type ResolvedOutputSchema } from "../../actions/parse-structured.js";
import { MAX_REPLY_CHARS_IN_PROMPT } from "../../defaults.js";
import type { GenerateOptions } from "../../model/model-handle.js";
import type { ChatMessage } from "../../prompt/chat-format.js";
import { renderPrompt } from "../../prompt-texts.js";
import { withoutUndefined } from "../../without-undefined.js";
import type { EventInput } from "../events.js";
import { generateCounted, type CountedGeneration } from "../generate-counted.js";
import { recordUsage } from "../run-usage.js";
import { countValidationError } from "../stop-run.js";
import type { AskOptions } from "./workflow.js";
import type { WorkflowRun } from "./workflow-run.js";

/** A reply shown back to the model in a retry, capped as the loop caps it. */
function replyShown(raw: string): string {
  return raw.length <= MAX_REPLY_CHARS_IN_PROMPT ? raw : `${raw.slice(0, MAX_REPLY_CHARS_IN_PROMPT)} …[cut]`;
}

/** Caller bugs in an ask's arguments throw TypeError (the workflow's own error, not the model's). */
function checkAsk(prompt: unknown, options: AskOptions): void {
  if (typeof prompt !== "string" || prompt.trim() === "")
    throw new TypeError("ctx.ask: prompt must be a non-empty string");
  if (typeof options !== "object" || options === null) throw new TypeError("ctx.ask: options must be an object");
  if (options.system !== undefined && typeof options.system !== "string")
    throw new TypeError("ctx.ask: system must be a string");
  if (options.maxTokens !== undefined && !(Number.isInteger(options.maxTokens) && options.maxTokens >= 1))
    throw new TypeError(`ctx.ask: maxTokens must be an integer >= 1 (got ${String(options.maxTokens)})`);
}

/** The first messages of an ask: the system text when given, then the prompt (with the schema it must match). */
function askMessages(prompt: string, options: AskOptions, schema: ResolvedOutputSchema | undefined): ChatMessage[] {
  const format = schema && renderPrompt("structured-output", { schema: JSON.stringify(schema.jsonSchema) });
  return [
    ...(options.system ? [{ role: "system" as const, content: options.system }] : []),
    { role: "user", content: format ? `${prompt}\n\n${format}` : prompt },
  ];
}

/** One model call of an ask, within the budget, one at a time; a failure of the call ends the run (model error). */
async function generateOnce(run: WorkflowRun, messages: ChatMessage[], options: GenerateOptions) {
  run.ensureOpen();
  run.checkBudget();
  run.state.iterations++;
  const prompt = run.env.chatFormat.render(messages);
  const { maxTokens, temperature } = options;
  const span = run.state.trace?.chat({
    json: options.jsonSchema !== undefined,
    ...withoutUndefined({ maxTokens, temperature }),
  });
  let reply: CountedGeneration;
  try {
    reply = await generateCounted(run.env.model, prompt, { ...options, signal: run.signal }, run.state.stats);
    span?.finish(await recordUsage(run.state, reply, prompt, run.env.model));
  } catch (error) {
    span?.fail(error);
    throw run.stopAfterFailure() ?? run.stopModelError(error);
  }
  run.ensureOpen();
  return reply;
}

/** What one ask is: its prompt and options, its resolved schema, and the messages it sends (growing with retries). */
interface AskCall {
  prompt: string;
  options: AskOptions;
  schema?: ResolvedOutputSchema;
  messages: ChatMessage[];
}

/** The `model-call` event of one attempt; `parsed` holds the value when the reply passed its schema. */
function modelCallEvent(
  call: AskCall,
  attempt: number,
  reply: CountedGeneration,
  parsed?: { value: unknown },
): EventInput {
  return {
    type: "model-call",
    prompt: call.prompt,
    ...withoutUndefined({ system: call.options.system, name: call.options.name }),
    raw: reply.text,
    ...(call.schema && { structured: true as const }),
    ...(parsed && { value: parsed.value }),
    attempt,
    ...withoutUndefined({ tokens: reply.tokens }),
    ms: reply.ms,
  };
}

/** The outcome of one attempt: the value, or the feedback to retry with. */
type Attempt = { ok: true; value: unknown } | { ok: false; raw: string; feedback: string };

/** One attempt: generate, parse (when there is a schema), record the call and any validation error. */
async function attemptAsk(run: WorkflowRun, call: AskCall, attempt: number): Promise<Attempt> {
  const { options, schema } = call;
  const generate: GenerateOptions = {
    maxTokens: options.maxTokens ?? run.env.maxTokens,
    ...(schema && run.env.grammar && { jsonSchema: schema.jsonSchema }),
    ...withoutUndefined({ temperature: options.temperature ?? run.env.temperature }),
  };
  const reply = await generateOnce(run, call.messages, generate);
  if (!schema) {
    run.emit(modelCallEvent(call, attempt, reply));
    return { ok: true, value: reply.text };
  }
  const parsed = parseStructured(reply.text, schema);
  run.emit(modelCallEvent(call, attempt, reply, parsed.ok ? parsed : undefined));
  if (parsed.ok) return { ok: true, value: parsed.value };
  countValidationError(run.state, parsed.refused);
  run.emit({ ...parsed.refused, origin: "workflow" });
  if (run.state.retries > run.budgets.maxRetries) throw run.stopRetriesExhausted();
  return { ok: false, raw: reply.text, feedback: parsed.refused.feedback };
}

/**
 * `ctx.ask`: one model call on the agent's model, in its chat format, without the loop's system prompt. With a
 * schema the reply is constrained (grammar on), parsed through the one pipeline and validated; a failure is recorded
 * as a `validation-error`, counted against the run's retry budget, and retried with the reply and the feedback
 * shown to the model. Each attempt is one `model-call` event (with its tokens) and counts in the iteration budget.
 */
export async function askModel(run: WorkflowRun, prompt: string, options: AskOptions = {}): Promise<unknown> {
  checkAsk(prompt, options);
  const schema = options.schema === undefined ? undefined : resolveOutputSchema(options.schema);
  const messages = askMessages(prompt, options, schema);
  for (let attempt = 1; ; attempt++) {
    const call: AskCall = { prompt, options, schema, messages };
    const outcome = await run.exclusive(() => attemptAsk(run, call, attempt));
    if (outcome.ok) return outcome.value;
    messages.push({ role: "model", content: replyShown(outcome.raw) }, { role: "user", content: outcome.feedback });
  }
}
