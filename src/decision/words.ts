import { stemmer } from "stemmer";

/**
 * Words that say nothing about which skill a question needs: articles, pronouns, prepositions, auxiliaries, question
 * words, and the verbs every request and every skill description use ("calculate", "get", "find", "give"). A skill
 * named `calculate_area` shares "calculate" with any arithmetic question; only "area" tells.
 */
const STOP_WORDS = new Set(
  (
    "a an the and or but nor of in on at to for from by with without into onto over under about as than then so if " +
    "is are was were be been being am do does did done doing have has had having will would shall should can could " +
    "may might must i me my mine we us our you your he him his she her it its they them their this that these those " +
    "what which who whom whose when where why how there here all any each every some such other another more most " +
    "much many very also just only not no yes please tell let know want need like using use used based given " +
    "calculate calculates calculated calculation compute computes computed computing get gets getting find finds " +
    "finding fetch fetches retrieve retrieves determine determines give gives provide provides show shows return " +
    "returns make makes create creates specific specified particular certain information info details data value " +
    "values number numbers result results type kind one two again"
  ).split(" "),
);

/** A word of a text: letters (and digits inside), at least 2 characters. */
const WORD = /\p{L}[\p{L}\p{N}']*/gu;

/** Split a name (`math.triangle_area_heron`, `getWeatherData`, `field-of-law`) into its words. */
export function nameWords(name: string): string[] {
  return name
    .split(/[._\-\s/:]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])/)
    .filter((word) => word !== "");
}

/** A word's stem (Porter), lower case: "triangles" and "triangle" share one, as do "capital" and "capitals". */
export function stem(word: string): string {
  return stemmer(word.toLowerCase().replace(/'s?$/, ""));
}

/** The stems of a text's content words: no stop words, no words under 2 letters; in order, repeats kept. */
export function contentStems(text: string): string[] {
  const stems: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase().replace(/'s?$/, "");
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    stems.push(stem(word));
  }
  return stems;
}

/** The stems of a name's content words (see nameWords). */
export function nameStems(name: string): string[] {
  return contentStems(nameWords(name).join(" "));
}

/** `text` with the characters a regular expression gives meaning to escaped. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
