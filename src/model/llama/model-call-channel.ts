import { channel } from "node:diagnostics_channel";
import type { CallStats } from "../model-handle.js";
import type { SequenceUse } from "./sequence-slot.js";

/**
 * The name of the diagnostics channel (`node:diagnostics_channel`) on which every `LlamaModelHandle` publishes a
 * {@link ModelCallMessage} after each `generate` call has given its sequence back. Nothing is built or sent while no
 * one subscribes. A soak (scripts/soak.ts) subscribes from a preloaded module to watch the sequence pool of a process
 * it cannot reach otherwise (the eval's model process).
 */
export const MODEL_CALL_CHANNEL = "gemma-agent:model-call";

/** A handle's context sequences: its pool's use, and how many the llama.cpp context has handed out and not freed. */
export interface LiveSequences extends SequenceUse {
  /** Sequences taken from the context and not disposed (the pool's, and any other): constant while nothing leaks. */
  obtained: number;
}

/** What the channel carries after a call. */
export interface ModelCallMessage {
  /** The handle's sequences once the call gave its own back. */
  sequences: LiveSequences;
  /** The call's counts, when its prompt was planned (absent for a call that failed before). */
  stats?: CallStats;
}

/** The channel itself (one per process, whatever module asks for it by name). */
export const modelCallChannel = channel(MODEL_CALL_CHANNEL);
