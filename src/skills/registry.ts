import type { JsonSchema } from "../json-schema.js";
import { skillJsonSchema, type Skill } from "./skill.js";

/**
 * The skills an agent may call. Lookups use own properties of a null-prototype record, so a model that writes
 * `constructor` or `__proto__` names an unknown skill, never an inherited member.
 */
export class Registry {
  readonly #skills: Record<string, Skill> = Object.create(null);
  readonly #schemas = new Map<string, JsonSchema>();

  constructor(skills: Iterable<Skill> = []) {
    for (const skill of skills) this.register(skill);
  }

  /** Add a skill; a second skill with the same name throws (a caller bug). Returns `this` for chaining. */
  register(skill: Skill): this {
    if (Object.hasOwn(this.#skills, skill.name))
      throw new Error(`Registry: a skill named "${skill.name}" is already registered`);
    this.#skills[skill.name] = skill;
    return this;
  }

  /** The skill of that name, or undefined (also for inherited names such as `constructor`). */
  get(name: string): Skill | undefined {
    return typeof name === "string" && Object.hasOwn(this.#skills, name) ? this.#skills[name] : undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Every skill, in registration order. */
  list(): Skill[] {
    return Object.values(this.#skills);
  }

  /** Skill names, in registration order. */
  names(): string[] {
    return Object.keys(this.#skills);
  }

  get size(): number {
    return this.names().length;
  }

  /**
   * A view holding only the named skills: what the model may call when a command selects a subset. A name this
   * registry does not hold throws (a caller bug), so a typo never silently widens or empties the scope.
   */
  scope(names: Iterable<string>): Registry {
    const view = new Registry();
    for (const name of names) {
      const skill = this.get(name);
      if (!skill)
        throw new Error(`Registry.scope: unknown skill "${name}" (known: ${this.names().join(", ") || "none"})`);
      if (!view.has(name)) view.register(skill);
    }
    return view;
  }

  /** The skill's arguments as JSON Schema (computed once per skill). */
  jsonSchema(name: string): JsonSchema {
    const skill = this.get(name);
    if (!skill) throw new Error(`Registry.jsonSchema: unknown skill "${name}"`);
    let schema = this.#schemas.get(name);
    if (!schema) this.#schemas.set(name, (schema = skillJsonSchema(skill)));
    return schema;
  }
}
