/**
 * The benchmarks' door into a loaded llama handle: what `scripts/` (and tests of the loader) need to measure it, kept
 * off the handle's public surface and out of `gemma-agent/llama`. Nothing in the product imports `benchAccess`.
 */
import type { LlamaContext, LlamaContextSequence, LlamaModel, Token } from "node-llama-cpp";
import type { ModelHandle } from "../model-handle.js";

/** A call's prompt and reply tokens, and where its tokens were sampled (see {@link BenchAccess.lastReply}). */
export interface LastReply {
  promptTokens: Token[];
  tokens: Token[];
  samples: [position: number, token: Token][];
  /** Samplings that ran llama.cpp's grammar over the whole vocabulary because no candidate was allowed. */
  fullPasses: number;
  /** The batches the model evaluated for the reply, in order (see TokenRun.batches). */
  batches: Token[][];
}

/** The node-llama-cpp objects under a handle (`sequence`: its first). */
export interface LlamaObjects {
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
}

/** What a benchmark may do with a llama handle beyond the ModelHandle contract. */
export interface BenchAccess {
  /**
   * The last call's prompt and reply as tokens, and each sampling (where its token went in the reply, and the token
   * sampled; a forced run may have re-tokenized it), a copy. The benchmark replays replies to count the tokens a
   * grammar refused. Under concurrent calls, whichever finished last.
   */
  readonly lastReply: LastReply;
  /** The underlying node-llama-cpp objects. Do not evaluate on them while generating. */
  readonly llamaObjects: LlamaObjects;
  /**
   * Turn jump-forward under a grammar on or off for the next calls (the benchmark alternates it); `loadModel`'s
   * `jumpForward` sets it at load.
   */
  setJumpForward(on: boolean): void;
  /**
   * Turn candidate sampling under a grammar on or off for the next calls, and how many candidates it looks at
   * (default GRAMMAR_CANDIDATES; a test sets 1 to run the full pass often); `loadModel`'s `candidateSampling` sets
   * it at load.
   */
  setCandidateSampling(on: boolean, candidates?: number): void;
  /** Turn speculation under candidate sampling on or off for the next calls (see DEFAULT_SPECULATION). */
  setSpeculation(on: boolean): void;
}

const doors = new WeakMap<object, BenchAccess>();

/** Called by the llama handle's constructor: the door to `handle`. Not for benchmarks. */
export function openBenchAccess(handle: ModelHandle, access: BenchAccess): void {
  doors.set(handle, access);
}

/** The benchmark door to a handle `loadModel` returned; throws for any other handle. */
export function benchAccess(handle: ModelHandle): BenchAccess {
  const door = doors.get(handle);
  if (!door) throw new TypeError("benchAccess: not a handle loadModel returned");
  return door;
}
