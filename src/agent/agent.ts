import type { ParsedReply } from "../actions/action.js";
import { buildActionJsonSchema } from "../actions/action-json-schema.js";
import { parseAction } from "../actions/parse-action.js";
import {
  DEFAULT_FINAL_ROUND_WITHOUT_TOOLS,
  DEFAULT_GROUNDING,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MAX_THOUGHT_CHARS,
  DEFAULT_MAX_TOKENS_PER_STEP,
  DEFAULT_PARALLEL_CALLS,
  DEFAULT_PROMPT_STYLE,
  DEFAULT_THOUGHT_PLACEMENT,
  DEFAULT_USE_GRAMMAR,
  DEFAULT_DECISION,
} from "../defaults.js";
import {
  GROUNDING_LEVERS,
  isGroundingLeverList,
  type GenerateOptions,
  type JsonSchema,
  type ModelHandle,
} from "../model/model-handle.js";
import { gemma3ChatFormat, type ChatFormat } from "../prompt/chat-format.js";
import { sharedOpeningLength } from "../prompt/shared-opening.js";
import { type PromptStyle } from "../prompt/system-prompt.js";
import { Registry } from "../skills/registry.js";
import { describeThrown } from "../safe-stringify.js";
import { withoutUndefined } from "../without-undefined.js";
import type { TurnMessage } from "../memory/conversation.js";
import { AgentRunTrace } from "../telemetry/agent-trace.js";
import { returnAnswerCandidate } from "./answer-candidate.js";
import { fitStep } from "./fit-step.js";
import { invokeTurn, type InvokeOptions, type InvokeResult } from "./invoke.js";
import { agentBudget } from "./invoke.js";
import { checkAgentPolicies, lastProblem } from "./agent-policies.js";
import { stopAborted, stopOnForbiddenAnswer, stopOverTokens, withLatencyLimit } from "./run-limits.js";
import { recordUsage } from "./run-usage.js";
import { AgentState } from "./agent-state.js";
import { RunTranscript } from "./build-messages.js";
import { dispatchAction } from "./dispatch-action.js";
import { isOwnEvent, type AgentEvent } from "./events.js";
import { generateCounted } from "./generate-counted.js";
import { stepGrounding } from "./grounding-source.js";
import { countValidationError, stopAtMaxIterations } from "./stop-run.js";
import { runWorkflow } from "./workflow/run-workflow.js";
import { type WorkflowLike } from "./workflow/workflow.js";
import { runValidators } from "./validator.js";
import { refuseCopiedAnswer } from "./copied-answer.js";
import { answerWasCut } from "./answer-marks.js";
import { stepDecisionFor, skillProfiles } from "./step-decision-source.js";
import { DECISION_LEVERS, isDecisionLeverList } from "../decision/step-decision.js";
import type { SkillProfile } from "../decision/skill-fit.js";
import type { DecisionBranch } from "../model/model-handle.js";
import {
  type AgentOptions,
  type RunOptions,
  checkLimit,
  type ResolvedRunOptions,
  checkRunOptions,
  runArguments,
  systemPrompts,
} from "./agent-options.js";

export type { AgentOptions, LoopSettings, RunOptions } from "./agent-options.js";

/**
 * The agent loop: each step renders the conversation, asks the model for one action (JSON, grammar-constrained when
 * the model supports it), parses and validates it, runs the skill, and feeds the result back, until an answer, the
 * iteration budget, the retry budget, a model error or an abort. Every failure of the model or of a skill is an event;
 * `run` throws only for caller bugs. An Agent keeps no state between runs: runs on one Agent may overlap.
 */
export class Agent {
  readonly model: ModelHandle;
  readonly registry: Registry;
  readonly options: Readonly<AgentOptions>;
  readonly #system: string;
  /** The compact system prompt a run of a full-style agent condenses to when its context is short (see fitStep). */
  readonly #compactSystem: string | undefined;
  /** Each run's transcript, built up one step at a time (see RunTranscript). */
  readonly #conversations = new WeakMap<AgentState, RunTranscript>();
  readonly #chatFormat: ChatFormat;
  readonly #jsonSchema: JsonSchema | undefined;
  /** The shared opening's length for each system prompt a run may begin with (see #sharedOpening). */
  readonly #sharedOpenings = new Map<string, number>();
  /** The final round's schema: the final answer alone (undefined when the grammar is off). */
  readonly #answerSchema: JsonSchema | undefined;
  /** The grammar's bound on a final answer (Infinity without a grammar): an answer that fills it was cut. */
  readonly #maxAnswerChars: number;
  /** What the decision reads of each skill (its name, description, arguments' schema), read once. */
  readonly #profiles: SkillProfile[];
  /** Each run's branch points of its newest step, as the model handle reported them (see #steps). */
  readonly #branches = new WeakMap<AgentState, DecisionBranch[]>();

  constructor(options: AgentOptions) {
    if (!options || typeof options.model?.generate !== "function")
      throw new TypeError("Agent: options.model must be a ModelHandle (an object with generate())");
    if (!(options.registry instanceof Registry)) throw new TypeError("Agent: options.registry must be a Registry");
    this.options = { ...options };
    this.model = options.model;
    this.registry = options.registry;
    checkLimit("maxThoughtChars", options.maxThoughtChars);
    checkLimit("maxAnswerChars", options.maxAnswerChars);
    checkAgentPolicies(options);
    const parallelCalls = options.parallelCalls ?? DEFAULT_PARALLEL_CALLS;
    const thought = options.thought ?? DEFAULT_THOUGHT_PLACEMENT;
    if (!["first", "last", "none"].includes(thought))
      throw new TypeError(`Agent: thought must be "first", "last" or "none" (got ${String(thought)})`);
    if (options.grounding !== undefined && !["off", "soft", "strict"].includes(options.grounding))
      throw new TypeError(`Agent: grounding must be "off", "soft" or "strict" (got ${String(options.grounding)})`);
    const levers = options.groundingLevers;
    if (levers !== undefined && !isGroundingLeverList(levers))
      throw new TypeError(
        `Agent: groundingLevers must be a list of ${GROUNDING_LEVERS.join(", ")} (got ${JSON.stringify(levers)})`,
      );
    if (options.decision !== undefined && !["off", "scored"].includes(options.decision))
      throw new TypeError(`Agent: decision must be "off" or "scored" (got ${String(options.decision)})`);
    if (options.decisionLevers !== undefined && !isDecisionLeverList(options.decisionLevers))
      throw new TypeError(
        `Agent: decisionLevers must be a list of ${DECISION_LEVERS.join(", ")} (got ${JSON.stringify(options.decisionLevers)})`,
      );
    const style = options.promptStyle ?? DEFAULT_PROMPT_STYLE;
    if (style !== "full" && style !== "compact")
      throw new TypeError(`Agent: promptStyle must be "full" or "compact" (got ${String(style)})`);
    const prompts = systemPrompts(this.registry, options, { style, parallelCalls, thought });
    this.#system = prompts.full;
    this.#compactSystem = prompts.compact;
    this.#chatFormat = options.chatFormat ?? options.model.chatFormat ?? gemma3ChatFormat;
    const shape = {
      parallelCalls,
      thought,
      maxThoughtChars: options.maxThoughtChars ?? DEFAULT_MAX_THOUGHT_CHARS,
      maxAnswerChars: options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS,
      answerSchema: options.outputSchema,
    };
    const grammar = options.grammar ?? DEFAULT_USE_GRAMMAR;
    this.#jsonSchema = grammar ? buildActionJsonSchema(this.registry, shape) : undefined;
    this.#answerSchema = grammar ? buildActionJsonSchema(this.registry, { ...shape, answerOnly: true }) : undefined;
    this.#maxAnswerChars = grammar ? shape.maxAnswerChars : Infinity;
    this.#profiles = skillProfiles(this.registry);
  }

  /** The system prompt every run starts with. */
  get systemPrompt(): string {
    return this.#system;
  }

  /**
   * The compact system prompt a run condenses to when even its newest step alone leaves too little of the context
   * for a reply (a `context-trimmed` event with `promptStyle: "compact"`); undefined for an agent in the compact style.
   */
  get compactSystemPrompt(): string | undefined {
    return this.#compactSystem;
  }

  /** The agent's name (AgentOptions.name). */
  get name(): string {
    return this.options.name ?? "agent";
  }

  /** How the agent renders turns for its model. */
  get chatFormat(): ChatFormat {
    return this.#chatFormat;
  }

  /**
   * The model's replies in this run and what came back to it, every step shown, as the prompt shows them: what a
   * conversation keeps of a turn, so that the next turn's prompt begins with this run's last one (KV-cache reuse).
   */
  turnMessages(state: AgentState): TurnMessage[] {
    return (this.#conversations.get(state)?.add(state.stream.toArray()).stepMessages() ?? []) as TurnMessage[];
  }

  /**
   * One turn of a conversation: `message` with the conversation's earlier turns in the prompt, trimmed to the
   * memory's token budget (old skill results first, then old turns, dropped or summarized per the trim policy; the
   * system prompt and the message never), run as `run` runs; the turn is appended to the conversation (and flushed to
   * its file) whatever the outcome. Returns the typed reply, the answer, the conversation, iterations, tokens and stop
   * reason. Throws MemoryBudgetError before any generation when the system prompt and the message alone cannot fit.
   */
  async invoke(message: string, options: InvokeOptions = {}): Promise<InvokeResult> {
    const { conversation: _conversation, onEvent: _onEvent, ...run } = options;
    const resolved = checkRunOptions(message, run, this.options);
    return invokeTurn(this, message, options, (state) => this.#traced(state, () => this.#loop(state, resolved)));
  }

  /** The JSON Schema sent to the model with each step (undefined when the grammar is off). */
  get actionJsonSchema(): JsonSchema | undefined {
    return this.#jsonSchema;
  }

  /**
   * The full prompt of the next step of this run, as the model will see it; `droppedSteps` and `promptStyle` render
   * it at another trim level or system prompt style (fitting the context measures some), `promptStyle: "compact"`
   * only for an agent in the full style (its compact system prompt, see fitStep).
   */
  renderPrompt(state: AgentState, options: { droppedSteps?: number; promptStyle?: PromptStyle } = {}): string {
    let conversation = this.#conversations.get(state);
    if (!conversation)
      this.#conversations.set(
        state,
        (conversation = new RunTranscript(this.#system, state.query, state.depth, state.history, this.#compactSystem)),
      );
    const compact = options.promptStyle === undefined ? undefined : options.promptStyle === "compact";
    return conversation.add(state.stream.toArray()).render(this.#chatFormat, options.droppedSteps, compact);
  }

  /**
   * One model call: render the prompt, generate, parse, validate. Returns the action, or the validation error the
   * reply earned. Emits nothing (the loop does). Rejects when the model call itself fails or the signal aborts. When
   * the newest event of the run is a `final-round`, the grammar allows only a final answer; `maxTokens` overrides
   * the agent's (the loop lowers it when the context is short).
   */
  async step(state: AgentState, options: { signal?: AbortSignal; maxTokens?: number } = {}): Promise<ParsedReply> {
    const prompt = this.renderPrompt(state);
    const finalRound = this.#inFinalRound(state);
    const schema = finalRound ? this.#answerSchema : this.#jsonSchema;
    state.iterations++;
    const step = { signal: options.signal, schema, maxTokens: options.maxTokens, finalRound };
    const raw = await this.#generate(prompt, state, step);
    const reply = parseAction(raw, this.registry, {
      parallelCalls: this.options.parallelCalls ?? DEFAULT_PARALLEL_CALLS,
      answerSchema: this.options.outputSchema,
    });
    if (reply.type === "validation-error") return reply;
    const system = this.#conversations.get(state)?.systemPrompt ?? this.#system;
    const copied = reply.type === "final-answer" ? refuseCopiedAnswer(reply, system, state) : undefined;
    return copied ?? (await runValidators(this.options.validators ?? [], reply, state)) ?? reply;
  }

  /**
   * Run the loop to its end and return the state: answer, stopReason, and every event on `stream`. With a workflow
   * first (`run(workflow, query, options)`), the workflow's code runs instead of the loop, on the same state, events,
   * budgets and stop reasons (see runWorkflow); a workflow that throws ends with `stopReason: "workflow_error"`.
   */
  run(query: string, options?: RunOptions): Promise<AgentState>;
  run(workflow: WorkflowLike, query: string, options?: RunOptions): Promise<AgentState>;
  async run(first: string | WorkflowLike, second?: string | RunOptions, third?: RunOptions): Promise<AgentState> {
    const { query, options, workflow } = runArguments("run", first, second, third);
    const resolved = checkRunOptions(query, options, this.options);
    const state = new AgentState(query);
    await this.#execute(state, resolved, workflow);
    return state;
  }

  /**
   * Run as a nested agent (see agentAsSkill): events are stamped with `depth` and passed to `onEvent` as they happen.
   */
  async runNested(
    query: string,
    options: RunOptions,
    nesting: { depth: number; onEvent: (event: AgentEvent) => void },
  ): Promise<AgentState> {
    const resolved = checkRunOptions(query, options, this.options);
    const state = new AgentState(query, { depth: nesting.depth });
    state.stream.subscribe(nesting.onEvent);
    await this.#traced(state, () => this.#loop(state, resolved));
    return state;
  }

  /**
   * The same run, yielding each event as it happens; the generator's return value is the final state. Stopping the
   * iteration early (break) aborts the run.
   */
  runStream(query: string, options?: RunOptions): AsyncGenerator<AgentEvent, AgentState, undefined>;
  runStream(
    workflow: WorkflowLike,
    query: string,
    options?: RunOptions,
  ): AsyncGenerator<AgentEvent, AgentState, undefined>;
  async *runStream(
    first: string | WorkflowLike,
    second?: string | RunOptions,
    third?: RunOptions,
  ): AsyncGenerator<AgentEvent, AgentState, undefined> {
    const { query, options, workflow } = runArguments("runStream", first, second, third);
    const resolved = checkRunOptions(query, options, this.options);
    const controller = new AbortController();
    const signal = resolved.signal ? AbortSignal.any([resolved.signal, controller.signal]) : controller.signal;
    const state = new AgentState(query);
    const queue: AgentEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    const unsubscribe = state.stream.subscribe((event) => {
      queue.push(event);
      wake?.();
    });
    const done = this.#execute(state, { ...resolved, signal }, workflow).finally(() => {
      finished = true;
      wake?.();
    });
    try {
      for (;;) {
        if (queue.length) yield queue.shift()!;
        else if (finished) break;
        else await new Promise<void>((resolve) => (wake = () => ((wake = undefined), resolve())));
      }
      await done;
      return state;
    } finally {
      unsubscribe();
      if (!finished) controller.abort(new Error("runStream consumer stopped"));
    }
  }

  async #generate(
    prompt: string,
    state: AgentState,
    step: { signal?: AbortSignal; schema?: JsonSchema; maxTokens?: number; finalRound: boolean },
  ): Promise<string> {
    const { signal, schema } = step;
    const systemPrompt = this.#conversations.get(state)?.systemPrompt ?? this.#system;
    const branches: DecisionBranch[] = [];
    this.#branches.set(state, branches);
    const decided =
      schema && !step.finalRound && this.model.scoresDecisions
        ? stepDecisionFor(this.options.decision ?? DEFAULT_DECISION, state, {
            skills: this.#profiles,
            levers: this.options.decisionLevers,
            parallelCalls: this.options.parallelCalls ?? DEFAULT_PARALLEL_CALLS,
            onBranch: (branch) => branches.push(branch),
          })
        : undefined;
    const decision = decided?.options;
    const grounding = stepGrounding(this.options.grounding ?? DEFAULT_GROUNDING, state, {
      finalRound: step.finalRound,
      systemPrompt,
      levers: this.options.groundingLevers,
      ...(decided && {
        items: decided.decision.items.map((item) => item.text),
        chain: decided.decision.chain,
        chainSource: decided.decision.chainSource,
        reading: decided.decision.reading,
        taken: decided.decision.taken,
      }),
    });
    const options: GenerateOptions = {
      maxTokens: step.maxTokens ?? this.options.maxTokens ?? DEFAULT_MAX_TOKENS_PER_STEP,
      sharedPrefix: this.#sharedOpening(systemPrompt),
      ...withoutUndefined({ jsonSchema: schema, temperature: this.options.temperature, signal, grounding, decision }),
    };
    const span = state.trace?.chat({ json: schema !== undefined, ...withoutUndefined(options) });
    try {
      const call = await generateCounted(this.model, prompt, options, state.stats);
      span?.finish(await recordUsage(state, call, prompt, this.model));
      return call.text;
    } catch (error) {
      span?.fail(error);
      throw error;
    }
  }

  /**
   * The prompt's opening that every run of this agent with this system prompt shares (for a loader's prompt cache),
   * computed once per system prompt: the agent's own, or the compact one a run condensed to.
   */
  #sharedOpening(system: string): number {
    let length = this.#sharedOpenings.get(system);
    if (length === undefined)
      this.#sharedOpenings.set(system, (length = sharedOpeningLength(this.#chatFormat, system)));
    return length;
  }

  /** The loop, or the workflow in its place, inside the run's span. */
  async #execute(state: AgentState, options: ResolvedRunOptions, workflow: WorkflowLike | undefined): Promise<void> {
    if (!workflow) return this.#traced(state, () => this.#loop(state, options));
    return this.#traced(state, () => this.#workflow(state, options, workflow));
  }

  /** Run `body` inside the run's span (`invoke_agent`), ended with the run's outcome. */
  async #traced(state: AgentState, body: () => Promise<void>): Promise<void> {
    state.trace = AgentRunTrace.start(this.#traceInfo());
    try {
      await body();
    } finally {
      state.trace.end({
        stopReason: state.stopReason ?? "aborted",
        iterations: state.iterations,
        usage: state.usage,
        ...withoutUndefined({ message: lastProblem(state) }),
      });
      state.trace = undefined;
    }
  }

  /** A workflow in place of the loop, on this agent's model, skills and settings (see runWorkflow). */
  #workflow(state: AgentState, options: ResolvedRunOptions, workflow: WorkflowLike): Promise<void> {
    return runWorkflow(workflow, state, options, {
      model: this.model,
      registry: this.registry,
      dispatch: this.options,
      chatFormat: this.#chatFormat,
      grammar: this.options.grammar ?? DEFAULT_USE_GRAMMAR,
      maxTokens: this.options.maxTokens ?? DEFAULT_MAX_TOKENS_PER_STEP,
      temperature: this.options.temperature,
      makeAgent: (spec) => new Agent(spec),
    });
  }

  /** The loop, with the run's latency limit on its signal. */
  async #loop(state: AgentState, options: ResolvedRunOptions): Promise<void> {
    const limited = withLatencyLimit(state, this.options.constraints, options.signal);
    try {
      await this.#steps(state, { ...options, signal: limited.signal });
    } finally {
      limited.dispose();
    }
  }

  #traceInfo() {
    const info = this.model.info as { name?: string; architecture?: string; provider?: string } | undefined;
    return {
      agentName: this.name,
      model: info?.name ?? "unknown",
      provider: info?.provider ?? (info?.architecture === "scripted" ? "scripted" : "llama.cpp"),
      ...withoutUndefined({ agentDescription: this.options.description }),
    };
  }

  async #steps(state: AgentState, options: ResolvedRunOptions): Promise<void> {
    const { signal } = options;
    const constraints = this.options.constraints;
    const aborted = () => stopAborted(state, signal);
    for (;;) {
      if (signal?.aborted) return aborted();
      if (state.iterations >= options.maxIterations) return this.#maxIterations(state);
      this.#startFinalRound(state, options.maxIterations);
      let reply: ParsedReply;
      try {
        const fit = await fitStep(
          state,
          agentBudget(this),
          (drop, compact) =>
            this.renderPrompt(state, { droppedSteps: drop, ...(compact && { promptStyle: "compact" }) }),
          { condense: this.#compactSystem !== undefined },
        );
        reply = await this.step(state, { signal, maxTokens: fit?.replyTokens });
      } catch (error) {
        if (signal?.aborted) return aborted();
        state.emit({ type: "model-error", message: describeThrown(error) });
        return state.finish("model_error");
      }
      if (signal?.aborted) return aborted();
      this.#emitDecision(state);
      if (stopOverTokens(state, constraints)) return;
      if (reply.type === "validation-error") {
        countValidationError(state, reply);
        state.emit(reply);
        if (state.retries > options.maxRetries) return state.finish("retries_exhausted");
        continue;
      }
      if (reply.type === "final-answer") {
        if (stopOnForbiddenAnswer(state, reply.answer, constraints)) return;
        if (answerWasCut(reply, this.#maxAnswerChars)) reply.truncated = true;
        state.emit(reply);
        return state.finish("answer", reply.answer, reply.reply ?? reply.answer);
      }
      if (this.#inFinalRound(state)) {
        this.#refuseCall(state, reply);
        continue;
      }
      const result = await dispatchAction(reply, state, { registry: this.registry, signal, options: this.options });
      if (result === "aborted" || signal?.aborted) return aborted();
    }
  }

  /**
   * Whether the decision (scored, with its progress part) finds nothing left to call for after the run's results: the
   * next step answers, in a final round (its note quotes the newest result, its grammar allows only the answer).
   */
  #resultsAreIn(state: AgentState): boolean {
    if (!this.#jsonSchema || state.iterations === 0 || !this.model.scoresDecisions) return false;
    const decided = stepDecisionFor(this.options.decision ?? DEFAULT_DECISION, state, {
      skills: this.#profiles,
      levers: this.options.decisionLevers,
      parallelCalls: this.options.parallelCalls ?? DEFAULT_PARALLEL_CALLS,
      onBranch: () => undefined,
    });
    return decided?.decision.answer === true;
  }

  /** The `decision` event of the step just taken, when the model handle reported its branch points. */
  #emitDecision(state: AgentState): void {
    const branches = this.#branches.get(state);
    this.#branches.delete(state);
    if (branches && branches.length > 0) state.emit({ type: "decision", branches });
  }

  /** Is the step about to run a final round (its run's newest own event a `final-round`)? */
  #inFinalRound(state: AgentState): boolean {
    const events = state.stream.toArray();
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i];
      if (!isOwnEvent(event, state.depth) || event.type === "context-trimmed") continue;
      return event.type === "final-round";
    }
    return false;
  }

  /**
   * Emit `final-round` before the last step of the budget (once a step was taken), the step after a repeat, or the
   * step after the results a question asks for are in (the decision's progress: nothing left to call for).
   */
  #startFinalRound(state: AgentState, maxIterations: number): void {
    if (!(this.options.finalRoundWithoutTools ?? DEFAULT_FINAL_ROUND_WITHOUT_TOOLS) || this.registry.size === 0) return;
    const lastStep = state.iterations >= 1 && state.iterations === maxIterations - 1;
    const done = !lastStep && !state.finalRoundRequested && this.#resultsAreIn(state);
    if (!lastStep && !state.finalRoundRequested && !done) return;
    const reason = state.finalRoundRequested ? "repeat" : done ? "done" : "budget";
    state.finalRoundRequested = false;
    state.stats.finalRounds++;
    state.emit({ type: "final-round", reason, step: state.iterations + 1 });
  }

  /** A call written in a final round (possible only without the grammar): shown, not run, and the round goes on. */
  #refuseCall(state: AgentState, reply: Exclude<ParsedReply, { type: "final-answer" | "validation-error" }>): void {
    state.emit(reply);
    const skillName = reply.type === "call-skill" ? reply.skillName : reply.calls.map((c) => c.skillName).join(", ");
    state.stats.toolErrors++;
    state.emit({
      type: "tool-error",
      skillName,
      message: "no more skill calls in this run: the call was not made",
      availableSkills: [],
      guard: "final-round",
    });
    state.finalRoundRequested = true;
  }

  /** The end of the iteration budget: the max-iterations stop and, with `warn_and_return`, the last answer candidate. */
  #maxIterations(state: AgentState): void {
    stopAtMaxIterations(state);
    if (this.options.onMaxIterations === "warn_and_return") returnAnswerCandidate(state);
  }
}
