import { calculatorSkill } from "../../skills/builtin/calculator.js";
import { convertUnitsSkill } from "../../skills/builtin/convert-units.js";
import { createDatetimeSkill } from "../../skills/builtin/datetime.js";
import { Registry } from "../../skills/registry.js";
import type { Skill } from "../../skills/skill.js";
import { DEFAULT_EVAL_NOW } from "../defaults.js";
import { dataSkill } from "./data-skills.js";
import type { Suite, SuiteTask } from "./suite-schema.js";

/** Every skill a suite can use, built once per suite: the built-ins (datetime on the suite's fixed clock) and its data skills. */
export function suiteSkills(suite: Suite): Registry {
  const now = new Date(suite.now ?? DEFAULT_EVAL_NOW);
  const skills: Skill[] = [
    calculatorSkill,
    createDatetimeSkill({ now: () => now }),
    convertUnitsSkill,
    ...suite.skills.map(dataSkill),
  ];
  return new Registry(skills);
}

/** The registry of one task: only the skills it names, in its order. */
export function taskRegistry(all: Registry, task: SuiteTask): Registry {
  return all.scope(task.skills);
}
