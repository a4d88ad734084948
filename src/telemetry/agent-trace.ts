import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";

/** The tracer's name: what an application's SDK sees as the instrumentation scope. */
export const TRACER_NAME = "gemma-agent";

/** The OpenTelemetry GenAI semantic-convention attribute names the spans carry. */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestTemperature: "gen_ai.request.temperature",
  outputType: "gen_ai.output.type",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  agentName: "gen_ai.agent.name",
  agentDescription: "gen_ai.agent.description",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolDescription: "gen_ai.tool.description",
  toolCallId: "gen_ai.tool.call.id",
  errorType: "error.type",
} as const;

/** Attributes of this runtime's own (outside the GenAI conventions). */
export const GEMMA_AGENT = {
  stopReason: "gemma_agent.stop_reason",
  iterations: "gemma_agent.iterations",
  tokensEstimated: "gemma_agent.usage.estimated",
} as const;

/** What the run span says of the agent and its model. */
export interface AgentTraceInfo {
  agentName: string;
  agentDescription?: string;
  /** The model's name (`gen_ai.request.model`; the chat spans are named after it). */
  model: string;
  /** Who runs the model (`gen_ai.provider.name`): `llama.cpp`, `scripted`, ... */
  provider: string;
  /** The conversation the run is a turn of, when there is one. */
  conversationId?: string;
}

/** Token counts of a model call or a run; `estimated` when the model reports none and they were estimated. */
export interface TraceUsage {
  inputTokens: number;
  outputTokens: number;
  estimated?: boolean;
}

function tracer() {
  return trace.getTracer(TRACER_NAME);
}

function usageAttributes(usage: TraceUsage): Attributes {
  return {
    [GEN_AI.inputTokens]: usage.inputTokens,
    [GEN_AI.outputTokens]: usage.outputTokens,
    ...(usage.estimated && { [GEMMA_AGENT.tokensEstimated]: true }),
  };
}

/** Mark a span failed: status ERROR with the message, `error.type`, and the exception when one was thrown. */
function fail(span: Span, errorType: string, message: string, exception?: unknown): void {
  if (exception instanceof Error) span.recordException(exception);
  span.setAttribute(GEN_AI.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** One model call's span (`chat <model>`): end it with the call's usage, or failed. */
export interface ModelCallTrace {
  finish(usage: TraceUsage): void;
  fail(error: unknown): void;
}

/** One skill call's span (`execute_tool <name>`): run the skill inside it (nested agents' spans become its children). */
export interface ToolCallTrace {
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** End the span; `error` (the tool-error the model saw) marks it failed. */
  finish(error?: string): void;
}

/**
 * The spans of one agent run, by the OpenTelemetry GenAI semantic conventions: `invoke_agent <name>` for the run
 * (a child of whatever span is active, e.g. a supervisor's `execute_tool`), a `chat <model>` child per model call
 * with its input and output tokens, an `execute_tool <name>` child per skill call; failures set the span's status to
 * ERROR with `error.type`. Through `@opentelemetry/api` alone: without an SDK registered by the application every
 * call is a no-op.
 */
export class AgentRunTrace {
  readonly #span: Span;
  readonly #context: Context;
  readonly #info: AgentTraceInfo;

  private constructor(info: AgentTraceInfo) {
    this.#info = info;
    const parent = context.active();
    this.#span = tracer().startSpan(
      `invoke_agent ${info.agentName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GEN_AI.operationName]: "invoke_agent",
          [GEN_AI.agentName]: info.agentName,
          [GEN_AI.providerName]: info.provider,
          [GEN_AI.requestModel]: info.model,
          ...(info.agentDescription && { [GEN_AI.agentDescription]: info.agentDescription }),
          ...(info.conversationId && { [GEN_AI.conversationId]: info.conversationId }),
        },
      },
      parent,
    );
    this.#context = trace.setSpan(parent, this.#span);
  }

  /** Start the run's span, as a child of the active span when there is one. */
  static start(info: AgentTraceInfo): AgentRunTrace {
    return new AgentRunTrace(info);
  }

  /** Start a model call's span. */
  chat(request: { maxTokens?: number; temperature?: number; json: boolean }): ModelCallTrace {
    const span = tracer().startSpan(
      `chat ${this.#info.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: "chat",
          [GEN_AI.providerName]: this.#info.provider,
          [GEN_AI.requestModel]: this.#info.model,
          [GEN_AI.outputType]: request.json ? "json" : "text",
          ...(request.maxTokens !== undefined && { [GEN_AI.requestMaxTokens]: request.maxTokens }),
          ...(request.temperature !== undefined && { [GEN_AI.requestTemperature]: request.temperature }),
        },
      },
      this.#context,
    );
    return {
      finish: (usage) => {
        span.setAttributes(usageAttributes(usage));
        span.end();
      },
      fail: (error) => {
        fail(
          span,
          error instanceof Error ? error.name : "Error",
          error instanceof Error ? error.message : String(error),
          error,
        );
        span.end();
      },
    };
  }

  /** Start a skill call's span. */
  tool(call: { name: string; description?: string; callId: string }): ToolCallTrace {
    const span = tracer().startSpan(
      `execute_tool ${call.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GEN_AI.operationName]: "execute_tool",
          [GEN_AI.toolName]: call.name,
          [GEN_AI.toolType]: "function",
          [GEN_AI.toolCallId]: call.callId,
          ...(call.description && { [GEN_AI.toolDescription]: call.description }),
        },
      },
      this.#context,
    );
    const inside = trace.setSpan(this.#context, span);
    return {
      run: (fn) => context.with(inside, fn),
      finish: (error) => {
        if (error !== undefined) fail(span, "tool_error", error);
        span.end();
      },
    };
  }

  /** End the run's span with its outcome: anything but an answer marks it failed (`error.type` = the stop reason). */
  end(outcome: { stopReason: string; iterations: number; usage: TraceUsage; message?: string }): void {
    this.#span.setAttributes({
      ...usageAttributes(outcome.usage),
      [GEMMA_AGENT.stopReason]: outcome.stopReason,
      [GEMMA_AGENT.iterations]: outcome.iterations,
    });
    if (outcome.stopReason !== "answer")
      fail(
        this.#span,
        outcome.stopReason,
        outcome.message ?? `the run stopped without an answer (${outcome.stopReason})`,
      );
    this.#span.end();
  }
}
