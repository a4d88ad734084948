import type { AgentCallOptions, AgentTarget, AskOptions, WorkflowContext } from "../agent/workflow/workflow.js";
import { safeStringify } from "../safe-stringify.js";

/** A step as code: `(ctx, input) => output`. A workflow function is one (its input is the query). */
export type StepFunction<In = unknown, Out = unknown> = (ctx: WorkflowContext, input: In) => Out | Promise<Out>;

/** A step with a name and a description (a router shows the description to the model): a `Workflow` is one. */
export interface NamedStep<In = unknown, Out = unknown> {
  readonly name?: string;
  readonly description?: string;
  run: StepFunction<In, Out>;
}

/**
 * A step that is one model call (`ctx.ask`): `prompt` is the text, or a function of the input that writes it. A text
 * prompt is followed by the input (its JSON when it is not text). The ask's options (schema, system, ...) apply.
 */
export interface PromptStep<In = unknown> extends AskOptions {
  prompt: string | ((input: In) => string);
  readonly description?: string;
}

/** A step that runs a nested agent (the loop) on the input as its message (`ctx.agent`). */
export interface AgentStep extends AgentCallOptions {
  agent: AgentTarget;
  readonly description?: string;
}

/** Anything a pattern runs: code, a named step or workflow, one model call, or a nested agent. */
// oxlint-disable-next-line no-explicit-any -- a step's input is whatever the step before it produced
export type Step<In = any, Out = unknown> = StepFunction<In, Out> | NamedStep<In, Out> | PromptStep<In> | AgentStep;

/** The input as text: text as it is, anything else as its JSON. */
export function inputText(input: unknown): string {
  if (input === undefined) return "";
  return typeof input === "string" ? input : safeStringify(input);
}

/** A {@link PromptStep}: `prompt(text or (input) => text, { schema?, system?, description?, ... })`. */
export function prompt<In = unknown>(
  text: PromptStep<In>["prompt"],
  options: AskOptions & { description?: string } = {},
): PromptStep<In> {
  return { ...options, prompt: text };
}

function isPromptStep<In>(step: object): step is PromptStep<In> {
  return Object.hasOwn(step, "prompt");
}

function isAgentStep(step: object): step is AgentStep {
  return Object.hasOwn(step, "agent");
}

/** The text a prompt step asks: its function's text, or its text followed by the input. */
function promptOf<In>(step: PromptStep<In>, input: In): string {
  if (typeof step.prompt === "function") return step.prompt(input);
  const text = inputText(input);
  return text === "" ? step.prompt : `${step.prompt}\n\n${text}`;
}

/** Run one step on `input` in `ctx`. A value that is not a step is a caller bug (TypeError). */
export async function runStep<In, Out = unknown>(ctx: WorkflowContext, step: Step<In, Out>, input: In): Promise<Out> {
  if (typeof step === "function") return step(ctx, input);
  if (typeof step !== "object" || step === null)
    throw new TypeError("not a step: give a function, { run }, { prompt } or { agent }");
  if (typeof (step as NamedStep).run === "function") return (step as NamedStep<In, Out>).run(ctx, input);
  if (isPromptStep<In>(step)) {
    const { prompt: _text, description: _description, ...options } = step;
    return (await ctx.ask(promptOf(step, input), options as AskOptions & { schema: undefined })) as Out;
  }
  if (isAgentStep(step)) {
    const { agent, description: _description, ...options } = step;
    return (await ctx.agent(agent, inputText(input), options)) as Out;
  }
  throw new TypeError("not a step: give a function, { run }, { prompt } or { agent }");
}

/** What a step says it does (its `description`), for a router's prompt. */
export function describeStep(step: Step): string | undefined {
  return typeof step === "object" && step !== null && typeof step.description === "string"
    ? step.description
    : undefined;
}

/** Give a pattern's function a name (what a `workflow-error` names when it is run as the workflow). */
export function named<F extends (...args: never[]) => unknown>(name: string, fn: F): F {
  Object.defineProperty(fn, "name", { value: name });
  return fn;
}
