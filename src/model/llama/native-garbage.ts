import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { NATIVE_GARBAGE_MAX_BYTES, SAMPLERS_PER_CALL } from "./defaults.js";

/** Bytes of a node-llama-cpp sampler's candidates buffer per vocabulary token (a `llama_token_data`). */
const SAMPLER_BYTES_PER_TOKEN = 12;

/** V8's full collection, reachable without `--expose-gc` on the command line; null where that fails. */
let fullCollection: (() => void) | null | undefined;

/** The collection function: the flag exposes `gc` in contexts made after it is set, and one new context hands it over. */
function collector(): (() => void) | null {
  if (fullCollection === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      fullCollection = runInNewContext("gc") as () => void;
    } catch {
      fullCollection = null;
    }
  }
  return fullCollection;
}

/**
 * Native memory that only V8's garbage collector frees, and that V8 does not see. node-llama-cpp makes a native
 * sampler for every evaluation (`evaluate`, `evaluateWithMetadata`, `controlledEvaluate`,
 * `evaluateWithoutGeneratingNewTokens`); its `dispose()` frees the sampler's chain but not its candidates buffer, a
 * whole vocabulary of 12-byte entries (3 MiB for Gemma's 262,144 tokens), which goes only when the JS object is
 * collected. A sampler that outlives two young-generation collections (as under `--parallel 2`, where each call
 * waits on the other's batches) waits for a full one, which a process with a small JS heap (the eval's model process)
 * almost never runs: the buffers piled up, 12 MB a run on the fixture model, 3.9 GB after 300 eval runs
 * (scripts/soak.ts).
 *
 * `afterCall()` runs a full collection every few calls, as many as NATIVE_GARBAGE_MAX_BYTES of samplers take on this
 * vocabulary; the collected samplers' buffers are freed right after it, and the next calls' samplers reuse that
 * memory. The same trick as jest's leak detector: the `gc` that `--expose-gc` would give, taken from a new context
 * once the flag is set.
 */
export class NativeGarbage {
  /** Calls between two collections. */
  readonly every: number;
  #calls = 0;
  /** Full collections run so far. */
  collections = 0;

  constructor(vocabularySize: number, maxBytes: number = NATIVE_GARBAGE_MAX_BYTES) {
    const perCall = SAMPLERS_PER_CALL * SAMPLER_BYTES_PER_TOKEN * Math.max(1, vocabularySize);
    this.every = Math.max(1, Math.floor(maxBytes / perCall));
  }

  /** After a model call: every `every` calls, a full collection. */
  afterCall(): void {
    if (++this.#calls % this.every !== 0) return;
    const collect = collector();
    if (!collect) return;
    collect();
    this.collections++;
  }
}
