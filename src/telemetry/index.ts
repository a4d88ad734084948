export {
  AgentRunTrace,
  GEN_AI,
  GEMMA_AGENT,
  TRACER_NAME,
  type AgentTraceInfo,
  type ModelCallTrace,
  type ToolCallTrace,
  type TraceUsage,
} from "./agent-trace.js";
