/** One call of a skill, as the model asked for it: the skill's name and its arguments. */
export interface SkillCall {
  skillName: string;
  arguments: Record<string, unknown>;
}
