import { getLlama, LlamaLogLevel, type Llama } from "node-llama-cpp";

/** Where tokens are evaluated: `cpu`, or the GPU API node-llama-cpp uses (`cuda`, `vulkan`, `metal`). */
export type LlamaBackend = "cpu" | "cuda" | "vulkan" | "metal";

/** llama.cpp log lines kept to explain a failure (its thrown errors say only "Failed to load model"). */
const RECENT_LOG_LINES = 64;

/** A node-llama-cpp `Llama` instance and the llama.cpp log lines it printed lately. */
export interface LlamaRuntime {
  llama: Llama;
  /** The most recent log lines, oldest first (warnings and errors). */
  recentLogs(): string[];
}

const runtimes = new Map<string, Promise<LlamaRuntime>>();

async function createRuntime(gpu: "auto" | false): Promise<LlamaRuntime> {
  const lines: string[] = [];
  const llama = await getLlama({
    gpu,
    // Never compile llama.cpp or download binaries at run time: the prebuilt binaries ship as npm packages.
    build: "never",
    usePrebuiltBinaries: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.warn,
    // llama.cpp's warnings (e.g. "control-looking token ... was not control-type" on every Gemma 3 load) are noise on
    // a terminal; they are kept here so that a load failure can quote the line that explains it.
    logger: (level, message) => {
      if (level !== LlamaLogLevel.error && level !== LlamaLogLevel.warn && level !== LlamaLogLevel.fatal) return;
      lines.push(message.trim());
      if (lines.length > RECENT_LOG_LINES) lines.splice(0, lines.length - RECENT_LOG_LINES);
    },
  });
  return { llama, recentLogs: () => lines.slice() };
}

/**
 * The process-wide node-llama-cpp runtime for a GPU setting (created once, then shared: one llama.cpp backend per
 * process). `gpu: false` forces the CPU; `"auto"` uses a GPU binary when one works on this machine, else the CPU.
 */
export function getLlamaRuntime(gpu: "auto" | false): Promise<LlamaRuntime> {
  const key = String(gpu);
  let runtime = runtimes.get(key);
  if (!runtime) {
    runtime = createRuntime(gpu);
    runtime.catch(() => runtimes.delete(key));
    runtimes.set(key, runtime);
  }
  return runtime;
}

/** The backend a model runs on: the runtime's GPU API when any layer is offloaded, else `cpu`. */
export function backendOf(llama: Llama, gpuLayers: number): LlamaBackend {
  return llama.gpu === false || gpuLayers === 0 ? "cpu" : llama.gpu;
}
