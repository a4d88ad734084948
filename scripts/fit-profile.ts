/**
 * Fit a failure profile to a model's runs in an eval report.json and print it as a profile file, for
 * `gemma-agent eval --model profile:file:<profile.json>`:
 *
 *   npx tsx scripts/fit-profile.ts out/e2b/report.json > e2b-measured.json
 *   npx tsx scripts/fit-profile.ts out/cmp/report.json#gemma-3-270m.gguf --name gemma-3-270m-nogrammar > g.json
 *
 * `#model` picks one model of a report that holds several. `--name` sets the profile's name (default
 * `fit:<model>`; shown in reports as `profile:<name>`). How the rates are counted: src/eval/models/fit-profile.ts.
 * The profile file goes to stdout; errors are one line on stderr, exit 2.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EvalSetupError } from "../src/eval/errors.js";
import type { FittedProfile } from "../src/eval/models/fit-profile.js";
import { fitProfileFromReport, parseProfileFile } from "../src/eval/models/profile-file.js";

const USAGE = "usage: npx tsx scripts/fit-profile.ts <report.json>[#model] [--name NAME] > profile.json";

/**
 * The profile for the command-line arguments (`<report.json>[#model]`, optional `--name NAME`), checked the way
 * `profile:file:` will read it. Throws `EvalSetupError`.
 */
export function fitProfileCommand(argv: readonly string[]): FittedProfile {
  const args = [...argv];
  let name: string | undefined;
  const at = args.indexOf("--name");
  if (at >= 0) {
    name = args[at + 1];
    if (!name || name.startsWith("--")) throw new EvalSetupError("model_spec", `--name needs a value; ${USAGE}`);
    args.splice(at, 2);
  }
  if (args.length !== 1 || args[0].startsWith("--")) throw new EvalSetupError("model_spec", USAGE);
  const profile = fitProfileFromReport(args[0], name !== undefined ? { name } : {});
  parseProfileFile(profile, "the fitted profile");
  return profile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${JSON.stringify(fitProfileCommand(process.argv.slice(2)), null, 2)}\n`);
  } catch (error) {
    process.stderr.write(`fit-profile: ${error instanceof EvalSetupError ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}
