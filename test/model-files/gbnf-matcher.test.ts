/**
 * The GBNF reader and the character-level matcher that jump-forward asks which text a grammar forces (pure: no
 * llama.cpp here; test/integration/gbnf-matcher-llama.test.ts checks the matcher against llama.cpp's own grammar).
 */
import { describe, expect, it } from "vitest";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { GbnfParseError, parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import { Registry } from "../../src/skills/registry.js";
import { calculatorSkill, convertUnitsSkill } from "../../src/skills/builtin/index.js";

const matcher = (gbnf: string) => new GbnfMatcher(parseGbnf(gbnf));

function accepts(gbnf: string, text: string): { alive: boolean; complete: boolean } {
  const m = matcher(gbnf);
  const alive = m.accept(text);
  return { alive, complete: alive && m.complete };
}

describe("parseGbnf", () => {
  it("reads literals with escapes, classes with ranges and negation, groups, `.` and every repetition", () => {
    const gbnf = String.raw`
      # a comment
      root ::= "a\"\x41\u00e9\n" [b-d] [^x-z] ("e" | "f" "g")? h* "i"+ . "j"{2} "k"{1,} "l"{1,2}
      h ::= "h"`;
    expect(accepts(gbnf, 'a"Aé\ncwfghhii?jjkkll')).toEqual({ alive: true, complete: true });
    expect(accepts(gbnf, 'a"Aé\nbaeiZjjk')).toEqual({ alive: true, complete: false }); // "l" still missing
    expect(accepts(gbnf, 'a"Aé\nbx')).toEqual({ alive: false, complete: false }); // x is in [^x-z]'s exclusion
    expect(accepts(gbnf, 'a"Aé\nbajjjkl').alive).toBe(false); // "i"+ needs one i
    expect(accepts(gbnf, 'a"Aé\nbaiZjjjkl').alive).toBe(false); // exactly two j
    expect(accepts(gbnf, 'a"Aé\nbaiZjjklll').alive).toBe(false); // at most two l
  });

  it("refuses what llama.cpp refuses, naming where", () => {
    expect(() => parseGbnf('root ::= "a" b')).toThrow(GbnfParseError);
    expect(() => parseGbnf('root ::= "a')).toThrow(/unterminated literal/);
    expect(() => parseGbnf("root ::= [a-")).toThrow(/unterminated character class/);
    expect(() => parseGbnf('root ::= "a"\nroot ::= "b"')).toThrow(/defined twice/);
    expect(() => parseGbnf('start ::= "a"')).toThrow(/no rule "root"/);
    expect(() => parseGbnf('root ::= "a"{3,1}')).toThrow(/n < m/);
  });
});

describe("GbnfMatcher", () => {
  const registry = new Registry();
  registry.register(calculatorSkill);
  registry.register(convertUnitsSkill);
  const action = jsonSchemaToGbnf(buildActionJsonSchema(registry, { maxThoughtChars: 20, thought: "first" }));

  it("says which text an action grammar forces: the opening, the keys, a skill name once its prefix is unique", () => {
    const m = matcher(action);
    expect(m.forced()).toBe('{"');
    m.accept('{"thought":"adding"');
    expect(m.forced()).toBe(',"'); // skill_name or final_answer next: a choice
    m.accept(',"s');
    expect(m.forced()).toBe('kill_name":"c'); // calculator and convert_units both start with c
    m.accept('kill_name":"ca');
    expect(m.forced()).toBe('lculator","arguments":{"expression":"');
    m.accept('lculator","arguments":{"expression":"1+1');
    expect(m.forced()).toBe(""); // free text
    expect(m.complete).toBe(false);
    m.accept('"}}');
    expect(m.complete).toBe(true);
    expect(m.finished).toBe(true);
    expect(m.forced()).toBe("");
  });

  it("forces nothing past a bound, then the closing quote at the bound", () => {
    const m = matcher(action);
    m.accept('{"thought":"' + "x".repeat(20));
    expect(m.forced()).toBe('","');
    expect(m.clone().accept("x")).toBe(false);
  });

  it("tells free text from a choice among literals, and looks ahead without moving", () => {
    const m = matcher(action);
    expect(m.freeAfter('{"')).toBe(false); // a key: thought, skill_name or final_answer
    expect(m.freeAfter('{"thought":"')).toBe(true);
    expect(m.finishedAfter('{"final_answer":"ok"}')).toBe(true);
    expect(m.finishedAfter('{"final_answer":"ok"')).toBe(false);
    expect(m.forced()).toBe('{"'); // unmoved
  });

  it("a clone moves on its own", () => {
    const m = matcher(action);
    const copy = m.clone();
    copy.accept('{"final_answer":"a"}');
    expect(copy.complete).toBe(true);
    expect(m.complete).toBe(false);
    expect(m.accept('{"thought":')).toBe(true);
  });

  it("dies on text the grammar refuses, and stays dead", () => {
    const m = matcher(action);
    expect(m.accept("{ ")).toBe(false);
    expect(m.alive).toBe(false);
    expect(m.forced()).toBe("");
  });

  it("takes repeats whose body may be empty without looping, and refuses left recursion", () => {
    expect(accepts('root ::= ("a"?)* "b"', "aab")).toEqual({ alive: true, complete: true });
    expect(matcher('root ::= ("a"?)* "b"').forced()).toBe("");
    expect(() => matcher('root ::= root "a" | "b"')).toThrow(RangeError);
  });

  it("follows bounded repetitions by count (a 500-character string bound)", () => {
    const m = matcher('root ::= "\\"" [a-z]{0,500} "\\""');
    expect(m.accept(`"${"a".repeat(500)}`)).toBe(true);
    expect(m.forced()).toBe('"');
    expect(m.clone().accept("a")).toBe(false);
  });
});
