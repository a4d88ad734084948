import { z } from "zod";

/** Built-in skills a suite may name. The file skills are left out: a suite must not read the user's disk. */
const SUITE_BUILTIN_SKILLS = ["calculator", "datetime", "convert_units"] as const;

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
/** Task ids become file names (`replay:DIR` reads `DIR/<id>.jsonl`), so they are kept to safe characters. */
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

const skillName = z
  .string()
  .regex(NAME, { error: "a skill name is 1-64 letters, digits, _ - . starting with a letter or _" });
const jsonObject = z.record(z.string(), z.json());

const lookupSkillSchema = z.strictObject({
  type: z.literal("lookup"),
  name: skillName,
  description: z.string().min(1),
  /** The argument that holds the key. Default `key`. */
  parameter: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default("key"),
  parameterDescription: z.string().optional(),
  /** Key → result. Keys match without regard to case or surrounding spaces. */
  table: z
    .record(z.string(), z.json())
    .refine((t) => Object.keys(t).length > 0, { error: "a lookup table needs at least one entry" }),
});

const fixedParameterSchema = z.strictObject({
  type: z.enum(["string", "number", "integer", "boolean"]),
  description: z.string().optional(),
  /** Default true. */
  required: z.boolean().default(true),
});

const fixedSkillSchema = z.strictObject({
  type: z.literal("fixed"),
  name: skillName,
  description: z.string().min(1),
  parameters: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), fixedParameterSchema).default({}),
  /** What every call returns. */
  result: z.json(),
});

/** A skill a suite defines as data: a lookup table, or a function with a fixed answer. */
export const dataSkillSchema = z.discriminatedUnion("type", [lookupSkillSchema, fixedSkillSchema]);
export type DataSkillDefinition = z.infer<typeof dataSkillSchema>;

const regexSource = z
  .string()
  .min(1)
  .superRefine((source, ctx) => {
    try {
      new RegExp(source, "i");
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `not a valid regular expression: ${(error as Error).message}` });
    }
  });

const expectedCallSchema = z.strictObject({
  skill: skillName,
  /** Arguments the call must have had (a subset: other arguments may be present too). */
  arguments: jsonObject.optional(),
});

/**
 * What counts as success. Every condition given must hold: the answer equals (case, spacing and a final full stop
 * ignored; numbers compared as numbers), includes every listed text, or matches the regular expression (case-insensitive);
 * `calls` must all have been made (in any order); `noCalls` means the run answered without calling a skill.
 */
export const expectedSchema = z
  .strictObject({
    equals: z.union([z.string(), z.number()]).optional(),
    includes: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    matches: regexSource.optional(),
    calls: z.array(expectedCallSchema).min(1).optional(),
    noCalls: z.literal(true).optional(),
  })
  .refine((e) => Object.values(e).some((v) => v !== undefined), {
    error: "expected needs at least one of equals, includes, matches, calls, noCalls",
  })
  .refine((e) => !(e.noCalls && e.calls), { error: "expected cannot have both calls and noCalls" });
export type Expected = z.infer<typeof expectedSchema>;

const callStepSchema = z.strictObject({
  call: skillName,
  arguments: jsonObject.default({}),
  thought: z.string().optional(),
});
const answerStepSchema = z.strictObject({ answer: z.string().min(1), thought: z.string().optional() });

/** One step of a task's correct trajectory: a skill call or the final answer. */
export const trajectoryStepSchema = z.union([callStepSchema, answerStepSchema]);
export type TrajectoryStep = z.infer<typeof trajectoryStepSchema>;

export const taskSchema = z.strictObject({
  id: z.string().regex(TASK_ID, { error: "a task id is 1-100 letters, digits, _ - . starting with a letter or digit" }),
  /** A free label used to group results in the report (e.g. arithmetic, conversion, lookup, no-tool). */
  category: z.string().min(1).optional(),
  query: z.string().trim().min(1),
  /** Built-in skill names or names of skills the suite defines. Default: none. */
  skills: z.array(skillName).default([]),
  expected: expectedSchema,
  /** Caps the iteration budget of this task: a run gets min(budget, maxIterations). */
  maxIterations: z.int().min(1).optional(),
  /** The correct trajectory: what the oracle and the failure-profile models follow. Ends with an answer. */
  trajectory: z.array(trajectoryStepSchema).min(1).optional(),
  /** Run this workflow (a name from the suite's `workflows`) instead of the loop. */
  workflow: z.string().regex(NAME, { error: "a workflow name is 1-64 letters, digits, _ - ." }).optional(),
});
export type SuiteTask = z.infer<typeof taskSchema>;

/** Data-defined skills may not take a built-in's name or be defined twice; returns every skill name tasks may use. */
function checkSkillNames(skills: readonly DataSkillDefinition[], ctx: z.RefinementCtx): string[] {
  const defined = new Set<string>();
  skills.forEach((skill, i) => {
    if ((SUITE_BUILTIN_SKILLS as readonly string[]).includes(skill.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["skills", i, "name"],
        message: `"${skill.name}" is a built-in skill; pick another name`,
      });
    } else if (defined.has(skill.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["skills", i, "name"],
        message: `a skill named "${skill.name}" is already defined`,
      });
    }
    defined.add(skill.name);
  });
  return [...SUITE_BUILTIN_SKILLS, ...defined];
}

/**
 * Task `t` names known skills and, when it has one, a workflow the suite declares; its expected calls and trajectory
 * use only its own skills; the trajectory ends in an answer.
 */
function checkTask(
  task: SuiteTask,
  t: number,
  known: { skills: readonly string[]; workflows: readonly string[] },
  ctx: z.RefinementCtx,
): void {
  if (task.workflow !== undefined && !known.workflows.includes(task.workflow))
    ctx.addIssue({
      code: "custom",
      path: ["tasks", t, "workflow"],
      message: `unknown workflow "${task.workflow}" (the suite's workflows: ${known.workflows.join(", ") || "none"})`,
    });
  checkTaskSkills(task, t, known.skills, ctx);
}

/** Task `t`'s skills, expected calls and trajectory (see checkTask). */
function checkTaskSkills(task: SuiteTask, t: number, known: readonly string[], ctx: z.RefinementCtx): void {
  task.skills.forEach((name, s) => {
    if (!known.includes(name))
      ctx.addIssue({
        code: "custom",
        path: ["tasks", t, "skills", s],
        message: `unknown skill "${name}" (known: ${known.join(", ")})`,
      });
  });
  task.expected.calls?.forEach((call, c) => {
    if (!task.skills.includes(call.skill)) {
      ctx.addIssue({
        code: "custom",
        path: ["tasks", t, "expected", "calls", c, "skill"],
        message: `"${call.skill}" is not among this task's skills`,
      });
    }
  });
  const steps = task.trajectory ?? [];
  steps.forEach((step, s) => {
    const last = s === steps.length - 1;
    if ("call" in step && !task.skills.includes(step.call)) {
      ctx.addIssue({
        code: "custom",
        path: ["tasks", t, "trajectory", s, "call"],
        message: `"${step.call}" is not among this task's skills`,
      });
    }
    if ("answer" in step !== last) {
      ctx.addIssue({
        code: "custom",
        path: ["tasks", t, "trajectory", s],
        message: last ? "the trajectory must end with an answer step" : "only the last step may be an answer",
      });
    }
  });
}

function checkSuite(
  suite: { skills: DataSkillDefinition[]; tasks: SuiteTask[]; workflows: Record<string, string> },
  ctx: z.RefinementCtx,
): void {
  const known = { skills: checkSkillNames(suite.skills, ctx), workflows: Object.keys(suite.workflows) };
  const ids = new Set<string>();
  suite.tasks.forEach((task, t) => {
    if (ids.has(task.id))
      ctx.addIssue({ code: "custom", path: ["tasks", t, "id"], message: `duplicate task id "${task.id}"` });
    ids.add(task.id);
    checkTask(task, t, known, ctx);
  });
}

/** A suite file: tasks, the data-defined skills they use, and the clock `datetime` sees. */
export const suiteSchema = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    /** The instant `datetime` reports as now (ISO 8601). Default: a fixed instant (see DEFAULT_EVAL_NOW). */
    now: z.iso.datetime({ offset: true }).optional(),
    skills: z.array(dataSkillSchema).default([]),
    /**
     * Workflows tasks may name instead of the loop: name → the module that exports it (default export), a path
     * relative to the suite file (`.js`/`.mjs`, or `.ts` with tsx installed).
     */
    workflows: z
      .record(z.string().regex(NAME, { error: "a workflow name is 1-64 letters, digits, _ - ." }), z.string().min(1))
      .default({}),
    tasks: z.array(taskSchema).min(1),
  })
  .superRefine(checkSuite);

/** A validated suite. */
export type Suite = z.infer<typeof suiteSchema>;
