/**
 * The test models' folder and paths for the shell scripts, from the one list (scripts/lib/test-models.ts), so no
 * script keeps its own copy of the file names. scripts/lib/test-models.sh wraps it.
 *
 *   npx tsx scripts/test-model-path.ts --dir          # the folder (GEMMA_AGENT_TEST_MODELS, else the default)
 *   npx tsx scripts/test-model-path.ts --keys         # every key, space-separated, in the list's order
 *   npx tsx scripts/test-model-path.ts gemma3-270m    # that model's path; an unknown key: exit 2 naming the keys
 */
import { TEST_MODELS, testModelByKey, testModelPath, testModelsDir } from "./lib/test-models.js";

const [arg, ...rest] = process.argv.slice(2);
if (arg === undefined || rest.length > 0) {
  process.stderr.write("usage: test-model-path --dir | --keys | KEY\n");
  process.exit(2);
}
try {
  if (arg === "--dir") process.stdout.write(`${testModelsDir()}\n`);
  else if (arg === "--keys") process.stdout.write(`${TEST_MODELS.map((m) => m.key).join(" ")}\n`);
  else process.stdout.write(`${testModelPath(testModelByKey(arg))}\n`);
} catch (error) {
  process.stderr.write(`test-model-path: ${(error as Error).message}\n`);
  process.exit(2);
}
