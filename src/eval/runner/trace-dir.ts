import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RunRecord } from "./run-record.js";

/** A model's name as one folder name: characters other than letters, digits, `.`, `_`, `-` and `@` become `_`. */
function folderName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._@-]/g, "_");
  return safe === "" || safe === "." || safe === ".." ? "_" : safe;
}

/**
 * Where the trace of a run goes under `dir`: `<model>/b<budget>-s<seed>/<task-id>.jsonl`, so that one folder holds
 * one model's runs at one budget and seed, named as `--model replay:<folder>` looks them up.
 */
export function tracePath(dir: string, run: Pick<RunRecord, "model" | "budget" | "seed" | "taskId">): string {
  return join(dir, folderName(run.model), `b${run.budget}-s${run.seed}`, `${run.taskId}.jsonl`);
}

/**
 * A writer of `eval --traces DIR`: each run's events as JSON Lines (the format of `ask --trace`), one file per run,
 * written whole when the run ends. A run made again (a budget-prefix playback that parted from its recording is run
 * for real) replaces its file, so each file is the run its record describes.
 */
export function traceWriter(dir: string): (record: RunRecord, jsonl: string) => void {
  return (record, jsonl) => {
    const path = tracePath(dir, record);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, jsonl);
  };
}
