import type { SkillProfile } from "./skill-fit.js";
import { nameWords, stem } from "./words.js";

/**
 * Words after which a question describes a value instead of giving it: "the country where Mount Fuji is", "the
 * city that hosts ...", "the manager of Alice's manager".
 */
const DESCRIBED = String.raw`\s+(?:where|that|which|who|whose|in which|of the|of\s+\p{L}+'s)\b`;
/**
 * "the population of the capital of the country where ...": what a skill gives, of a value the question describes in
 * turn (a noun after "the" that another "of", "where", "that", ... describes; "the derivative of the function 3x^2"
 * gives its value).
 */
const OF_DESCRIBED = /\bthe\s+(\p{L}+)\s+of\s+the\s+(\p{Ll}+)\s+(?:of|where|that|which|who|whose|in which)\b/giu;

/**
 * The required arguments of `skill` that `question` describes rather than gives, whose value is another call's
 * result and not a span of the question:
 * - a word of the key's name after "the" and before "where", "that", "which", "of the ..." ("the country where Mount
 *   Fuji is" for `country`);
 * - every required text argument of a skill whose name's word the question asks of a value described by another
 *   skill's name word ("the population of the capital of ..." for `city_population`'s `city`: `country_capital`
 *   gives the capital; "the manager of the manager of Alice's manager" has no other skill to give one).
 */
export function derivedKeys(question: string, skill: SkillProfile, others: readonly SkillProfile[] = []): string[] {
  const required = Array.isArray(skill.parameters.required) ? (skill.parameters.required as string[]) : [];
  const properties = (skill.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const own = nameWords(skill.name).map(stem);
  const givers = new Set(
    others.filter((other) => other.name !== skill.name).flatMap((other) => nameWords(other.name).map(stem)),
  );
  const ofDescribed = [...question.matchAll(OF_DESCRIBED)].some(
    (match) => own.includes(stem(match[1])) && givers.has(stem(match[2])) && !own.includes(stem(match[2])),
  );
  const derived: string[] = [];
  for (const key of required) {
    if (ofDescribed && [properties[key]?.type].flat().includes("string")) {
      derived.push(key);
      continue;
    }
    const words = nameWords(key).filter((word) => word.length >= 3);
    for (const match of question.matchAll(new RegExp(String.raw`\bthe\s+(\p{L}+)(?=${DESCRIBED})`, "giu"))) {
      if (words.some((word) => stem(word) === stem(match[1]))) {
        derived.push(key);
        break;
      }
    }
  }
  return derived;
}
