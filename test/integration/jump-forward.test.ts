/**
 * Jump-forward's tokenization, with Gemma's real 262k vocabulary (the fixture model's): forced text is tokenized as
 * the model writes it (the sampled token re-tokenized into the forced run when the joint tokenizes differently), the
 * text is never changed, the last forced token is held back where free text follows, and a grammar that closes ends
 * the reply. Then whole constrained generations with jump-forward on and off through real llama.cpp.
 */
import type { LlamaModel, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { parseAction } from "../../src/actions/parse-action.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import { JumpForward, type ForcedRun } from "../../src/model/decoding/jump-forward.js";
import { ReplyMatcher, TokenTexts } from "../../src/model/decoding/reply-matcher.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { Registry } from "../../src/skills/registry.js";
import { calculatorSkill, convertUnitsSkill } from "../../src/skills/builtin/index.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

const registry = new Registry();
registry.register(calculatorSkill);
registry.register(convertUnitsSkill);
const schema = buildActionJsonSchema(registry, { thought: "first" });
const grammar = parseGbnf(jsonSchemaToGbnf(schema));

let handle: LlamaModelHandle;
let model: LlamaModel;
beforeAll(async () => {
  handle = await loadFixtureModel({ seed: 2 });
  model = benchAccess(handle).llamaObjects.model;
}, 120_000);
afterAll(() => handle?.dispose());

function jumpForward(): JumpForward {
  const detokenize = (tokens: readonly Token[]) => model.detokenize(tokens, false);
  return new JumpForward(new ReplyMatcher(new GbnfMatcher(grammar), new TokenTexts(detokenize)), {
    tokenize: (text) => model.tokenize(text, false),
    detokenize,
  });
}

const one = (text: string): Token => {
  const tokens = model.tokenize(text, false);
  expect(tokens, text).toHaveLength(1);
  return tokens[0];
};
const text = (tokens: readonly Token[]) => model.detokenize(tokens, false);

/** Play `pieces` as sampled tokens (each one token), committing every forced run; returns the runs. */
function play(jump: JumpForward, pieces: string[]): (ForcedRun | undefined)[] {
  return pieces.map((piece) => {
    const run = jump.afterSampled(one(piece));
    if (run) jump.commit(run);
    return run;
  });
}

describe("jump-forward tokenization (Gemma's vocabulary)", () => {
  it("forces the action's opening, where a key (a choice among literals) follows: nothing held back", () => {
    const jump = jumpForward();
    const opening = jump.start()!;
    expect(text(opening.tokens)).toBe('{"');
    expect(opening).toMatchObject({ replacesLast: false, forced: opening.tokens.length, finished: false });
  });

  it("re-tokenizes a sampled token into the forced run when the joint tokenizes otherwise, keeping the text", () => {
    const jump = jumpForward();
    jump.commit(jump.start()!);
    // `s` chooses skill_name; the grammar forces `kill_name":"c` (both skills start with c): the model writes `skill`
    const [run] = play(jump, ["s"]);
    expect(run!.replacesLast).toBe(true);
    expect(text(run!.tokens)).toBe('skill_name":"c');
    expect(run!.tokens[0]).toBe(one("skill"));
    expect(run!.forced).toBe(run!.tokens.length - 1);
    expect(run!.text).toBe('kill_name":"c');
  });

  it("forces a key's rest and the next key whole, but holds the last token back where free text follows", () => {
    const jump = jumpForward();
    jump.commit(jump.start()!);
    // `skill` chooses skill_name; `_name":"c` is forced (a choice between calculator and convert_units follows)
    const [key] = play(jump, ["skill"]);
    expect(key).toMatchObject({ replacesLast: false, text: '_name":"c', finished: false });
    expect(key!.tokens[0]).toBe(one("skill"));
    expect(key!.forced).toBe(key!.tokens.length - 1);
    // `alculator","arguments":{"expression":"` is forced; its last token opens the free expression: held back
    const [rest] = play(jump, ["al"]);
    const whole = 'alculator","arguments":{"expression":"';
    expect(whole.startsWith(text(rest!.tokens))).toBe(true);
    expect(text(rest!.tokens).length).toBeLessThan(whole.length);
    expect(text(rest!.tokens).length).toBeGreaterThan("al".length);
  });

  it("ends the reply when the forced text closes the grammar", () => {
    const jump = jumpForward();
    jump.commit(jump.start()!);
    const [key] = play(jump, ["final"]);
    expect(key!.text).toBe("_answer"); // `":"` opens the free answer: held back, and the model samples it
    play(jump, ['":"', "ok"]);
    const [end] = play(jump, ['"']);
    expect(end!.text).toBe("}");
    expect(end!.finished).toBe(true);
    expect(text(end!.tokens)).toBe('"}');
  });

  it("stays out of the way once the text is not the grammar's (never forces on a guess)", () => {
    const jump = jumpForward();
    expect(jump.afterSampled(one("hello"))).toBeUndefined();
    expect(jump.active).toBe(false);
    expect(jump.afterSampled(one("{"))).toBeUndefined();
  });
});

describe("constrained generation with jump-forward through llama.cpp", () => {
  const prompt = gemma3ChatFormat.render([{ role: "user", content: "What is 17% of 2,340? Reply with an action." }]);

  it("on and off, every reply parses as an action of the registry; on, the forced text is fed, not sampled", async () => {
    const counts = { on: { sampled: 0, forced: 0, generated: 0 }, off: { sampled: 0, forced: 0, generated: 0 } };
    for (const seed of [1, 2, 3]) {
      for (const on of [true, false]) {
        benchAccess(handle).setJumpForward(on);
        const reply = await handle.generate(prompt, {
          jsonSchema: schema,
          maxTokens: 32,
          temperature: 0.9 + seed / 100,
        });
        const parsed = parseAction(reply, registry);
        expect(parsed.type, `${on} ${seed}: ${reply}`).not.toBe("validation-error");
        const stats = handle.stats;
        const side = counts[on ? "on" : "off"];
        side.sampled += stats.sampledTokens!;
        side.forced += stats.forcedTokens!;
        side.generated += stats.generatedTokens;
        expect(stats.sampledTokens! + stats.forcedTokens!).toBe(stats.generatedTokens);
      }
    }
    benchAccess(handle).setJumpForward(true);
    expect(counts.off.forced).toBe(0);
    expect(counts.on.forced).toBeGreaterThan(0);
  }, 300_000);
});
