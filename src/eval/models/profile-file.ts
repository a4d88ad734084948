/**
 * Failure profiles from files: `profile:fit:<report.json>[#model]` fits one to a report on the spot,
 * `profile:file:<profile.json>` reads one written by `scripts/fit-profile.ts` (or by hand).
 */
import { existsSync } from "node:fs";
import { z } from "zod";
import { MAX_REPORT_FILE_BYTES } from "../defaults.js";
import { EvalSetupError, readEvalFile } from "../errors.js";
import type { EvalReport } from "../report/eval-report.js";
import { parseOrSetupError } from "../schema-issues.js";
import { checkFailureRates, failureProfile } from "./failure-profiles.js";
import { fitFailureProfile, parseEvalReport, type FitOptions, type FittedProfile } from "./fit-profile.js";

function readJson(path: string, what: string): unknown {
  const text = readEvalFile(path, "profile_invalid", what, MAX_REPORT_FILE_BYTES);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EvalSetupError("profile_invalid", `${path} is not JSON: ${(error as Error).message.split("\n")[0]}`, {
      cause: error,
    });
  }
}

/** Read and check an eval report.json. Throws `EvalSetupError("profile_invalid")` when it is missing, not JSON or not a report. */
function readEvalReport(path: string): EvalReport {
  return parseEvalReport(readJson(path, "report"), path);
}

/**
 * Split `<report.json>[#model]`: at the last `#`, unless the whole text names an existing file (a path with a `#`).
 */
function splitFitReference(reference: string): { path: string; model?: string } {
  const at = reference.lastIndexOf("#");
  if (at < 0 || existsSync(reference)) return { path: reference };
  return { path: reference.slice(0, at), model: reference.slice(at + 1) };
}

/**
 * Fit a profile to `<report.json>[#model]` (see {@link fitFailureProfile}). Throws `EvalSetupError`: `profile_invalid`
 * for a file that is missing, not JSON, not a report or without model calls; `model_spec` for an unknown `#model`, or
 * none given for a report of several models.
 */
export function fitProfileFromReport(reference: string, options: Pick<FitOptions, "name"> = {}): FittedProfile {
  const { path, model } = splitFitReference(reference);
  if (path === "")
    throw new EvalSetupError("model_spec", "profile:fit: needs a report.json path (profile:fit:<report.json>[#model])");
  if (model === "") throw new EvalSetupError("model_spec", `${reference}: name a model after #`);
  return fitFailureProfile(readEvalReport(path), model, { source: path, ...options });
}

const rate = z.number().min(0).max(1);
const profileFileSchema = z.object({
  name: z.string().regex(/^[^\s,]+$/, "a name without spaces or commas"),
  description: z.string(),
  source: z.string(),
  rates: z.strictObject({
    empty_answer: rate,
    malformed_json: rate,
    unknown_skill: rate,
    invalid_arguments: rate,
    repeated_call: rate,
    wrong_answer: rate.default(0),
  }),
  basis: z.looseObject({}).optional(),
});

/**
 * Check a profile file's content: `name` (shown as `profile:<name>`; not a built-in profile's), `description`,
 * `source`, the six `rates` (`wrong_answer` may be left out: 0) (each in [0, 1], summing to at most 1; an unknown kind is refused, not ignored) and an
 * optional `basis`. Throws `EvalSetupError("profile_invalid")`.
 */
export function parseProfileFile(data: unknown, source = "profile"): FittedProfile {
  const profile = parseOrSetupError(profileFileSchema, data, "profile_invalid", `${source} is not a failure profile`);
  if (failureProfile(profile.name))
    throw new EvalSetupError(
      "profile_invalid",
      `${source}: "${profile.name}" is a built-in profile's name; pick another`,
    );
  try {
    checkFailureRates(profile.rates);
  } catch (error) {
    throw new EvalSetupError("profile_invalid", `${source}: ${(error as Error).message}`, { cause: error });
  }
  // basis is kept as written; a fit fills it with a FitBasis, a hand-written file may leave it out
  return profile as FittedProfile;
}

/** Read a profile file (`{ name, description, source, rates }`). Throws `EvalSetupError("profile_invalid")`. */
export function readProfileFile(path: string): FittedProfile {
  if (path === "") throw new EvalSetupError("model_spec", "profile:file: needs a profile .json path");
  return parseProfileFile(readJson(path, "profile"), path);
}
