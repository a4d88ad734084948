/**
 * The real OpenAI-compatible server for test/http/llama/real-*.test.ts: llama.cpp's own `llama-server`, built once from the
 * llama.cpp sources in the llama-cpp-python sdist by scripts/build-llama-server.sh (`.ci/run` builds it and sets
 * GEMMA_AGENT_LLAMA_SERVER). A variable set to a missing file fails at once (CI must never skip silently); unset, the
 * cached build is used when it is there, and otherwise the tests skip, saying how to build it.
 */
import { existsSync } from "node:fs";
import { cachedLlamaServer } from "../../../scripts/lib/llama-server.js";

export {
  freePort,
  startLlamaServer,
  type LlamaServer,
  type LlamaServerOptions,
} from "../../../scripts/lib/llama-server.js";

const HOW = "run `bash scripts/build-llama-server.sh` (it prints the path; `--env` prints GEMMA_AGENT_LLAMA_SERVER)";

/** The llama-server binary, or undefined (with a console note) when there is none. */
export function llamaServerPath(): string | undefined {
  const path = process.env.GEMMA_AGENT_LLAMA_SERVER;
  if (!path) {
    const cached = cachedLlamaServer();
    if (existsSync(cached)) return cached;
    console.info(`GEMMA_AGENT_LLAMA_SERVER is not set and ${cached} is not there: real-server tests skipped; ${HOW}`);
    return undefined;
  }
  if (!existsSync(path)) throw new Error(`GEMMA_AGENT_LLAMA_SERVER=${path} does not exist; ${HOW}`);
  return path;
}
