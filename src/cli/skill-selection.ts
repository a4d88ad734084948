import type { Registry } from "../skills/registry.js";
import { BUILTIN_SKILL_NAMES, FILE_SKILL_NAMES } from "../skills/builtin/index.js";
import { agentRegistry } from "./agent-setup.js";
import { CliUsageError } from "./cli-io.js";

/**
 * The registry a command runs with: the built-in skills (file skills only with `--allow-dir`), narrowed by
 * `--skills` to a scoped view, so a skill left out cannot run whatever the model writes.
 */
export function selectSkills(options: { skills?: string[]; allowDir?: string }): Registry {
  // an allowed directory that is not there throws AllowDirError: a setup error, printed as one line
  const registry = agentRegistry(options);
  if (!options.skills) return registry;
  for (const name of options.skills) {
    if (registry.has(name)) continue;
    if ((FILE_SKILL_NAMES as readonly string[]).includes(name))
      throw new CliUsageError(`--skills: ${name} needs --allow-dir DIR (the folder it may read)`);
    throw new CliUsageError(`--skills: unknown skill "${name}" (built-in: ${BUILTIN_SKILL_NAMES.join(", ")})`);
  }
  return registry.scope(options.skills);
}
