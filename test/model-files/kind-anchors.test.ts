/**
 * Two readings of a key's kind: a key that takes a kind of a noun (`room_type`, a `genre` "of the concert") is
 * anchored to the word before that noun, closes before it, and its noun's own tokens get the malus; a key numbered
 * inside its name (`year1_revenue`) takes the question's numerals in order, the years left to the year keys.
 */
import { describe, expect, it } from "vitest";
import type { Token } from "../../src/model/grounding/token.js";
import { groundedSchema } from "../../src/model/grounding/grounded-schema.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import type { JsonSchema } from "../../src/json-schema.js";
import { QuestionReading } from "../../src/model/grounding/question-reading.js";
import { GroundingIndex } from "../../src/model/grounding/grounding-index.js";
import { RuleGate } from "../../src/model/grounding/rules.js";
import { steerSource } from "../../src/model/grounding/grounding-setup.js";
import { GroundingSteer, type GroundingVocabulary } from "../../src/model/grounding/grounding-steer.js";
import { kindNoun, ownNoun } from "../../src/model/grounding/grounding-words.js";
import { innerOrdinalNumeral, kindModifiers } from "../../src/model/grounding/key-anchors.js";
import { findAction } from "../helpers/action-schema.js";

function readingOf(schema: JsonSchema, question: string): QuestionReading {
  const source = steerSource({ mode: "soft", source: [question] }, schema);
  const index = new GroundingIndex([...source.source, ...(source.schemaValues ?? [])], { skipArticles: true });
  return new QuestionReading(source, index, new RuleGate(undefined));
}

const HOTEL = {
  hotel_name: { type: "string" },
  room_type: { type: "string", description: "The type of room to be booked." },
  nights: { type: "integer" },
} as const;
const BOOK = "Book a single room for two nights at the Hilton Hotel in Chicago.";

describe("a kind of a noun", () => {
  it("the noun comes from the key's word before its kind word, or from the description", () => {
    expect(kindNoun("room_type", undefined)).toBe("room");
    expect(kindNoun("roomType", undefined)).toBe("room");
    expect(kindNoun("type", "Optional. The type of crime. Default ''")).toBe("crime");
    expect(kindNoun("genre", "Genre of the concert.")).toBe("concert");
    expect(kindNoun("location", "The city of the concert.")).toBeUndefined();
    expect(kindNoun("type", undefined)).toBeUndefined();
  });

  it("the word before the noun is the anchor, not a word of the skill's name or another key, nor a compound", () => {
    const words = (text: string, noun: string, excluded: string[]) =>
      kindModifiers(text, noun, new Set(excluded)).map((p) => /^\S+/.exec(text.slice(p))![0]);
    expect(words(BOOK, "room", ["hotel", "name", "nights"])).toEqual(["single"]);
    expect(words("Find a hotel room with a sea view", "room", ["hotel", "name"])).toEqual([]);
    const crime = "Provide me the official crime rate of violent crime in San Francisco in 2020.";
    expect(words(crime, "crime", ["get", "crime", "rate", "city"])).toEqual(["violent"]);
    expect(words("Find me a classical concert this weekend", "concert", ["search"])).toEqual(["classical"]);
    expect(words("Find a concert for me", "concert", [])).toEqual([]);
    // a kind of two words, back to a joining word or a change of letter case
    const kinds = (text: string, noun: string) =>
      kindModifiers(text, noun, new Set()).map((p) => text.slice(p, text.indexOf(` ${noun}`, p)));
    expect(kinds("Can I find a historical fiction book at the library?", "book")).toEqual(["historical fiction"]);
    expect(kinds("Find New York jazz concerts", "concert")).toEqual(["jazz"]);
    // a quoted text before the noun, a word between them at most, is the kind whole
    const quoted = (text: string, noun: string) =>
      kindModifiers(text, noun, new Set()).map((p) => text.slice(p, text.indexOf("'", p)));
    expect(quoted("Find the 'Starry Night' price on the 'Sotheby' auction platform", "platform")).toEqual(["Sotheby"]);
    expect(quoted("Find reviews for the game 'FIFA 21' from the 'American' region", "region")).toEqual(["American"]);
  });

  it("the reading anchors the kind and closes it before the noun", () => {
    const reading = readingOf(findAction(HOTEL), BOOK);
    reading.text = '{"skill_name":"find","arguments":{"hotel_name":"Hilton Hotel","room_type":"';
    const starts = reading.anchors("room_type").starts;
    expect(starts.map((p) => reading.source.following(p, 6))).toEqual(["single"]);
    const end = starts[0] + "single".length;
    expect(reading.beforeOthers("room_type", end)).toBe(true);
    expect(reading.beforeOthers("hotel_name", end)).toBe(false);
  });

  it("a one-word key is its own noun: the word before it is its value, not a word that picks without naming", () => {
    expect(ownNoun("location", "Location of the store.")).toBe("location");
    expect(ownNoun("region", undefined)).toBe("region");
    // more words, a generic key: no own noun
    expect(ownNoun("start_location", undefined)).toBeUndefined();
    expect(ownNoun("name", undefined)).toBeUndefined();
    // a description that writes a word before the noun makes that word the noun's ("public transportation")
    expect(ownNoun("transportation", "Preferred mode of public transportation. Default is 'bus'.")).toBeUndefined();
    const order = {
      location: { type: "string", description: "Location of the store." },
      items: { type: "array", items: { type: "string" } },
    } as const;
    const q = "I want to order a large pepperoni pizza from Whole Foods at the downtown location.";
    const reading = readingOf(findAction(order), q);
    reading.text = '{"skill_name":"find","arguments":{"location":"';
    const starts = reading.anchors("location").starts;
    expect(starts.map((p) => reading.source.following(p, 8))).toContain("downtown");
    const current = readingOf(findAction(order), "Order a pizza from the current location of Whole Foods.");
    current.text = '{"skill_name":"find","arguments":{"location":"';
    expect(current.anchors("location").starts.map((p) => current.source.following(p, 7))).not.toContain("current");
  });

  it("the noun's own tokens get the malus where a kind is anchored, the kind's the bonus", () => {
    const texts = ['"', '"}', ",", "}", "<pad>", "conc", "concert", "class", "classical", "Conc", "c"];
    const ids = new Map(texts.map((t, i) => [t, i as Token]));
    const vocab: GroundingVocabulary = {
      tokensFor: (text) => (ids.has(text) ? [ids.get(text)!] : undefined),
      maxTokenChars: 9,
      stringClosers: [0, 1] as Token[],
      valueClosers: [2, 3] as Token[],
      banned: new Set([4 as Token]),
    };
    const args = { genre: { type: "string", description: "Genre of the concert." }, location: { type: "string" } };
    const schema = findAction(args);
    const bias = (question: string) => {
      const steer = new GroundingSteer(steerSource({ mode: "soft", source: [question] }, schema), vocab);
      const prefix = '{"skill_name":"find","arguments":{"genre":"';
      let out: unknown;
      for (let i = 1; i <= prefix.length; i++) out = steer.next(prefix.slice(0, i));
      const logits = (out as { logits: Map<Token, number> }).logits;
      return (text: string) => logits.get(ids.get(text)!) ?? 0;
    };
    const kind = bias("Find me a classical concert this weekend in Los Angeles.");
    expect(kind("conc")).toBeLessThan(0);
    expect(kind("Conc")).toBeLessThan(0);
    expect(kind("classical")).toBeGreaterThan(0);
    expect(kind("c")).toBeGreaterThan(0);
    // no kind written before the noun: the noun keeps its copy bonus
    const none = bias("Find a concert for me in Los Angeles.");
    expect(none("conc")).toBeGreaterThanOrEqual(0);
  });
});

describe("a key numbered inside its name", () => {
  const KEYS = ["company_name", "year1", "year1_revenue", "year2", "year2_revenue"];
  const Q =
    "What is the year over year growth rate for company 'Tech Inc' with revenues of $1M in 2019 and $1.2M in 2020?";

  it("takes the question's numerals in order, scaled, the years left to the year keys", () => {
    expect(innerOrdinalNumeral("year1_revenue", KEYS, Q)).toBe("1000000");
    expect(innerOrdinalNumeral("year2_revenue", KEYS, Q)).toBe("1200000");
    expect(innerOrdinalNumeral("year1", KEYS, Q)).toBeUndefined();
    // no sibling: no reading
    expect(innerOrdinalNumeral("year1_revenue", ["year1_revenue"], Q)).toBeUndefined();
  });

  it("a server's grounded schema takes the revenues in their years' order, not swapped", () => {
    const args = Object.fromEntries(
      KEYS.map((key) => [key, { type: key === "company_name" ? "string" : "integer" }]),
    ) as Record<string, JsonSchema>;
    const grounded = groundedSchema(findAction(args), { mode: "strict", source: [Q] })!;
    const takes = (values: Record<string, unknown>) => {
      const matcher = new GbnfMatcher(parseGbnf(jsonSchemaToGbnf(grounded.schema)));
      return matcher.accept(`{"skill_name":"find","arguments":${JSON.stringify(values)}}`) && matcher.complete;
    };
    // (the grammar writes the keys in the schema's order)
    const call = (first: number, second: number) => ({
      company_name: "Tech Inc",
      year1: 2019,
      year1_revenue: first,
      year2: 2020,
      year2_revenue: second,
    });
    expect(takes(call(1000000, 1200000))).toBe(true);
    expect(takes(call(1200000, 1000000))).toBe(false);
  });
});
