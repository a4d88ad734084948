import type { ErrorJson } from "../../coded-error.js";
import type {
  CallStats,
  DecisionBranch,
  DecisionOptions,
  GenerateOptions,
  GenerationStats,
  GroundingOptions,
  JsonSchema,
  ModelInfo,
} from "../../model/model-handle.js";

/** Generate options that cross the process boundary (signals and callbacks stay in the parent). */
export interface WorkerGenerateOptions {
  jsonSchema?: JsonSchema;
  maxTokens?: number;
  temperature?: number;
  /** The call's grounding source (plain strings: it crosses as is). */
  grounding?: GroundingOptions;
  /** The call's decision offsets; its branch points come back with the reply (`onBranch` stays in the parent). */
  decision?: Omit<DecisionOptions, "onBranch">;
}

/** Messages from the parent to the model process. */
export type ToWorker =
  | { type: "load"; factory: string; options: unknown }
  | { type: "generate"; id: number; prompt: string; options: WorkerGenerateOptions }
  | { type: "count-tokens"; id: number; prompt: string }
  | { type: "abort"; id: number }
  | { type: "dispose" };

/** Messages from the model process to the parent. */
export type FromWorker =
  | {
      type: "ready";
      info?: ModelInfo;
      chatFormat?: string;
      contextSize?: number;
      replyOverrun?: number;
      scoresDecisions?: boolean;
      countsTokens?: boolean;
    }
  | { type: "count"; id: number; tokens: number }
  | { type: "load-error"; error: ErrorJson }
  /** A call's reply, with that call's own stats (when the model reports them) and the model's totals. */
  | { type: "result"; id: number; text: string; stats?: CallStats; totals?: StatsTotals; branches?: DecisionBranch[] }
  /** A call's failure, with the stats it reported before failing (when it did) and the model's totals. */
  | { type: "error"; id: number; error: ErrorJson; stats?: CallStats; totals?: StatsTotals };

/** A model's lifetime totals (see GenerationStats). */
export type StatsTotals = GenerationStats["totals"];

/**
 * What a factory module (the `factory` of a load message) exports: `createModel(options)`, returning the model the
 * worker serves. The default factory loads a GGUF with the node-llama-cpp loader; tests pass their own.
 */
export interface ModelFactoryModule {
  createModel(options: unknown): Promise<WorkerServedModel> | WorkerServedModel;
}

/** A model the worker serves: a ModelHandle that may need disposing. */
export interface WorkerServedModel {
  generate(
    prompt: string,
    options?: Omit<WorkerGenerateOptions, "decision"> & Pick<GenerateOptions, "signal" | "onStats" | "decision">,
  ): Promise<string>;
  readonly info?: ModelInfo;
  /** Read after a call only when the model does not report the call's own stats (`onStats`). */
  readonly stats?: GenerationStats;
  readonly chatFormat?: { readonly name: string };
  readonly contextSize?: number;
  readonly replyOverrun?: number;
  readonly scoresDecisions?: boolean;
  countTokens?(prompt: string): number | Promise<number>;
  dispose?(): unknown;
}
