import { existsSync, statfsSync } from "node:fs";
import { freemem, totalmem } from "node:os";
import { Command } from "commander";
import { catalogFileFor, defaultModelAlias, findCatalogEntry, splitModelSpec } from "../../model/catalog.js";
import { catalogDownloadStatus, modelsDir, modelsDirs } from "../../model/models-dir.js";
import { EXIT, hint, type CliIO } from "../cli-io.js";
import { formatBytes } from "../format.js";
import type { CommandFactory } from "../command.js";
import { serverDoctorChecks } from "../doctor-server.js";
import { httpTimeoutOptions, modelSpecWithServer, type ServerCommandOptions } from "../server-model.js";

/** One line of the doctor's report. */
interface Check {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  /** What to do about it, when it is not ok. */
  fix?: string;
}

function nodeCheck(): Check {
  const major = Number(process.versions.node.split(".")[0]);
  return major >= 20
    ? { name: "node", status: "ok", detail: `Node ${process.versions.node}` }
    : { name: "node", status: "fail", detail: `Node ${process.versions.node}`, fix: "install Node 20 or newer" };
}

async function backendChecks(): Promise<Check[]> {
  try {
    const { getLlamaRuntime } = await import("../../model/llama/llama-runtime.js");
    const { defaultThreadCount } = await import("../../model/llama/threads.js");
    const { llama } = await getLlamaRuntime("auto");
    const threads = defaultThreadCount(llama.cpuMathCores);
    const backend = llama.gpu === false ? "cpu" : llama.gpu;
    const devices = llama.gpu === false ? [] : await llama.getGpuDeviceNames().catch(() => []);
    const checks: Check[] = [
      {
        name: "backend",
        status: "ok",
        detail: `llama.cpp on ${backend.toUpperCase()}${devices.length ? ` (${devices.join(", ")})` : ""}`,
        ...(backend === "cpu" && {
          fix: "no GPU backend loaded; on a machine with an NVIDIA, Vulkan or Apple GPU, check its drivers (node-llama-cpp ships CUDA, Vulkan and Metal builds)",
        }),
      },
    ];
    if (llama.gpu !== false) {
      const vram = await llama.getVramState().catch(() => undefined);
      if (vram)
        checks.push({
          name: "gpu memory",
          status: "ok",
          detail: `${formatBytes(vram.free)} free of ${formatBytes(vram.total)}`,
        });
    }
    checks.push({
      name: "threads",
      status: "ok",
      detail: `${threads} (cores available to this process; llama.cpp math cores: ${llama.cpuMathCores}); override with --threads`,
    });
    return checks;
  } catch (error) {
    return [
      {
        name: "backend",
        status: "fail",
        detail: `llama.cpp could not start: ${(error as Error).message}`,
        fix: "reinstall with `npm ci`; node-llama-cpp's prebuilt binaries come from npm",
      },
    ];
  }
}

function modelsChecks(io: CliIO): Check[] {
  const dir = modelsDir(io.env);
  const spec = defaultModelAlias();
  const [alias, quant] = splitModelSpec(spec);
  const entry = findCatalogEntry(alias);
  const file = entry && catalogFileFor(entry, quant);
  const size = file?.sizeBytes ?? 0;
  const checks: Check[] = [];
  let free: number | undefined;
  try {
    const probe = existsSync(dir) ? dir : (io.env.HOME ?? "/");
    const fs = statfsSync(probe);
    free = fs.bavail * fs.bsize;
  } catch {
    free = undefined;
  }
  checks.push({
    name: "models dir",
    status: free !== undefined && free < size ? "warn" : "ok",
    detail: `${dir}${existsSync(dir) ? "" : " (not created yet)"}; ${free === undefined ? "free space unknown" : `${formatBytes(free)} free`}`,
    ...(free !== undefined &&
      free < size && {
        fix: `the default model needs ${formatBytes(size)}: free some disk or set GEMMA_AGENT_MODELS to a bigger disk`,
      }),
  });
  const status = catalogDownloadStatus(modelsDirs(io.env)).find((s) => `${s.alias}:${s.quantization}` === spec);
  checks.push({
    name: "default model",
    status: status?.state === "downloaded" ? "ok" : "warn",
    detail: `${spec} (${formatBytes(size)}): ${status?.state ?? "missing"}`,
    ...(status?.state !== "downloaded" && { fix: hint(io, `pull ${spec}`) }),
  });
  const needed = size * 1.3; // weights plus KV cache and runtime overhead
  checks.push({
    name: "memory",
    status: totalmem() < needed ? "warn" : "ok",
    detail: `${formatBytes(freemem())} free of ${formatBytes(totalmem())}; the default model needs about ${formatBytes(needed)}`,
    ...(totalmem() < needed && { fix: "use a smaller model, e.g. --model gemma-3-1b" }),
  });
  return checks;
}

/**
 * `gemma-agent doctor [--json]`: one line per check (ok, warning, failure with its fix). Exit 0 when no check failed
 * (warnings included), {@link EXIT.checkFailed} when one did.
 */
const doctorCommand: CommandFactory = (io: CliIO, setExitCode) =>
  httpTimeoutOptions(
    new Command("doctor")
      .description(
        "Check this machine: Node, the llama.cpp backend (CPU, CUDA, Metal, Vulkan), threads, models directory, disk and memory; or, with --server, a model server.",
      )
      .option("--json", "print one JSON document")
      .option("--server <url>", "check a model server instead: reachable, dialect, models, structured output")
      .option("--server-model <name>", "the model on --server to check (default: the server's only model)"),
  )
    .addHelpText(
      "after",
      `\nExamples:\n  ${hint(io, "doctor")}\n  ${hint(io, "doctor --server http://127.0.0.1:8080/v1")}\n`,
    )
    .action(async (options: { json?: boolean } & ServerCommandOptions) => {
      const spec = modelSpecWithServer(undefined, options);
      const checks: Check[] =
        spec !== undefined
          ? await serverDoctorChecks(io, spec, options)
          : [nodeCheck(), ...(await backendChecks()), ...modelsChecks(io)];
      if (options.json) io.stdout.write(`${JSON.stringify({ checks }, null, 2)}\n`);
      else {
        const mark = { ok: "✓", warn: "!", fail: "✗" } as const;
        for (const c of checks)
          io.stdout.write(
            `${mark[c.status]} ${c.name.padEnd(14)} ${c.detail}${c.fix && c.status !== "ok" ? `\n  ${"".padEnd(14)} fix: ${c.fix}` : ""}\n`,
          );
      }
      if (checks.some((c) => c.status === "fail")) setExitCode(EXIT.checkFailed);
    });

export default doctorCommand;
