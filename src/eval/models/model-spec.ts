import { basename } from "node:path";
import { isModelPath } from "../../model/resolve-model.js";
import { isServerUrl, parseServerModelUrl, type ServerModelRef } from "../../model/http/server-url.js";
import { EvalSetupError } from "../errors.js";
import { failureProfile, failureProfileNames, type FailureRates } from "./failure-profiles.js";
import { fitProfileFromReport, readProfileFile } from "./profile-file.js";

/** What `--model` names. */
export type ModelSpec =
  | { kind: "oracle"; name: string }
  | { kind: "heuristic"; name: string }
  | { kind: "profile"; name: string; profile: string; rates: FailureRates }
  | { kind: "replay"; name: string; path: string }
  | { kind: "gguf"; name: string; model: string }
  /** A model on one or more OpenAI-compatible servers; several URLs of one model name spread its runs. */
  | { kind: "server"; name: string; servers: ServerModelRef[] };

/**
 * Read a `--model` value: `oracle` (the correct trajectory, or BFCL's ground truth), `heuristic` (keyword planner),
 * `profile:<name>` (the correct trajectory with a named failure profile, its rates assumed),
 * `profile:fit:<report.json>[#model]` (rates measured from a report's runs, named `profile:fit:<model>`),
 * `profile:file:<profile.json>` (a profile file, named `profile:<its name>`), `replay:<trace.jsonl or dir>` (recorded
 * runs), `http(s)://host:port/v1#model` (a model on a server: see server-pool.ts), or anything else: a GGUF
 * path or catalog alias, run in a child process. Throws
 * `EvalSetupError("model_spec")` for an unknown profile or an empty replay path, and `profile_invalid` for a report
 * or profile file that cannot be read (the files of `profile:fit:` and `profile:file:` are read here).
 */
export function parseModelSpec(text: string): ModelSpec {
  const spec = text.trim();
  if (spec === "") throw new EvalSetupError("model_spec", "empty --model value");
  if (spec === "oracle") return { kind: "oracle", name: "oracle" };
  if (spec === "heuristic") return { kind: "heuristic", name: "heuristic" };
  if (spec.startsWith("profile:")) {
    const profile = spec.slice("profile:".length);
    if (profile.startsWith("fit:") || profile.startsWith("file:")) {
      const fitted = profile.startsWith("fit:")
        ? fitProfileFromReport(profile.slice("fit:".length))
        : readProfileFile(profile.slice("file:".length));
      return { kind: "profile", name: `profile:${fitted.name}`, profile: fitted.name, rates: fitted.rates };
    }
    const rates = failureProfile(profile);
    if (!rates)
      throw new EvalSetupError(
        "model_spec",
        `unknown failure profile "${profile}" (known: ${failureProfileNames().join(", ")}); measured ones come from profile:fit:<report.json> or profile:file:<profile.json>`,
      );
    return { kind: "profile", name: spec, profile, rates };
  }
  if (spec.startsWith("replay:")) {
    const path = spec.slice("replay:".length);
    if (path === "")
      throw new EvalSetupError("model_spec", "replay: needs a trace file or a directory of <task-id>.jsonl traces");
    return { kind: "replay", name: spec, path };
  }
  if (isServerUrl(spec)) {
    const ref = parseServerModelUrl(spec);
    return { kind: "server", name: ref.model || ref.baseURL, servers: [ref] };
  }
  // A path is named by its file in reports and legends; an alias by itself.
  return { kind: "gguf", name: isModelPath(spec) ? basename(spec) : spec, model: spec };
}

/**
 * Several `--model` URLs that name the same model on different servers are one model spread over those servers
 * (`--model http://a/v1#m --model http://b/v1#m`): their specs are merged into the first one's place, in order.
 */
export function mergeServerSpecs(specs: readonly ModelSpec[]): ModelSpec[] {
  const out: ModelSpec[] = [];
  const byName = new Map<string, Extract<ModelSpec, { kind: "server" }>>();
  for (const spec of specs) {
    if (spec.kind !== "server") {
      out.push(spec);
      continue;
    }
    const earlier = byName.get(spec.name);
    if (earlier) {
      for (const ref of spec.servers)
        if (!earlier.servers.some((s) => s.baseURL === ref.baseURL)) earlier.servers.push(ref);
      continue;
    }
    const copy = { ...spec, servers: [...spec.servers] };
    byName.set(spec.name, copy);
    out.push(copy);
  }
  return out;
}
