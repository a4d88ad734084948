/**
 * A text-only corpus for grounding's steer: BFCL questions with replies written from their ground truth (each call
 * alone, the calls list, an answer that copies the question, an answer after a result), steered character by
 * character over a made-up vocabulary (every printable character, the question's words, JSON's closers). What the
 * steer returns at every character is the corpus's output; no model and no llama.cpp.
 */
import { z } from "zod";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { BUNDLED_BFCL_DIR, loadBfclCategory } from "../../src/eval/bfcl/bfcl-files.js";
import { bfclTasks } from "../../src/eval/bfcl/bfcl-tasks.js";
import { groundTruthCalls } from "../../src/eval/bfcl/ground-truth.js";
import { groundingVocabulary, replySteerFor } from "../../src/model/grounding/grounding-setup.js";
import type { GroundingVocabulary } from "../../src/model/grounding/grounding-steer.js";
import { classifyTokens } from "../../src/model/grounding/token-classes.js";
import type { Token } from "../../src/model/grounding/token.js";
import type { GroundingOptions, JsonSchema } from "../../src/model/model-handle.js";
import { calculatorSkill } from "../../src/skills/builtin/index.js";
import { defineSkill } from "../../src/skills/skill.js";
import { Registry } from "../../src/skills/registry.js";

export interface CorpusCase {
  id: string;
  schema: JsonSchema;
  grounding: GroundingOptions;
  reply: string;
}

const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"];

/** The cases of the first `perCategory` questions of each of BFCL's five categories, and the vocabulary they share. */
export function groundingCorpus(perCategory: number): {
  cases: CorpusCase[];
  vocabulary: GroundingVocabulary;
  text: (t: Token) => string;
} {
  const texts = new Set<string>();
  for (let c = 32; c < 127; c++) texts.add(String.fromCharCode(c));
  for (const t of ['"}', '",', '","', "]}", "}}", '"]', '":"', "},", "],", "[]", '""']) texts.add(t);
  const cases: CorpusCase[] = [];
  for (const category of CATEGORIES) {
    const data = loadBfclCategory(BUNDLED_BFCL_DIR, category);
    const parallel = category.startsWith("parallel");
    for (const task of bfclTasks(data, { parallelCalls: parallel }).tasks.slice(0, perCategory)) {
      const question = data.questions.find((q) => q.id === task.id)!;
      for (const word of task.query.match(/\s?[\p{L}\p{N}]+|./gu) ?? []) texts.add(word);
      const schema = buildActionJsonSchema(task.registry, { parallelCalls: parallel });
      const base: GroundingOptions = {
        mode: "soft",
        source: [task.query],
        question: task.query,
        avoid: ["Reply with JSON."],
      };
      const add = (suffix: string, reply: string, grounding: GroundingOptions = base) =>
        cases.push({ id: `${task.id}/${suffix}`, schema, grounding, reply });
      add("answer", JSON.stringify({ final_answer: `${task.query.split(/[?.]/)[0]} is 42.` }));
      const truth = data.answers?.get(task.id);
      const calls = truth ? groundTruthCalls(truth, task.registry, question.functions) : undefined;
      if (!calls?.ok) continue;
      const written = calls.calls.map((call) => ({ skill_name: call.skillName, arguments: call.arguments }));
      written.forEach((call, i) => {
        // each later call with the earlier calls' values taken
        const taken = written.slice(0, i).flatMap((c) => Object.values(c.arguments).map(String));
        add(`call${i}`, JSON.stringify(call), { ...base, taken });
      });
      if (written.length > 1) add("calls", JSON.stringify({ calls: written }));
      const result = JSON.stringify({ result: 42.5, of: written[0].arguments });
      add("after-result", JSON.stringify({ final_answer: `It is 42.5 for ${task.query.slice(0, 30)}` }), {
        ...base,
        source: [result, task.query],
      });
    }
  }
  for (const c of craftedCases()) {
    for (const word of [...(c.grounding.source ?? []), c.reply].join(" ").match(/\s?[\p{L}\p{N}]+|./gu) ?? [])
      texts.add(word);
    cases.push(c);
  }
  const list = [...texts];
  const classes = classifyTokens({
    iterateAllTokens: () => list.map((_, i) => i as Token),
    isEogToken: () => false,
    detokenize: (tokens) => tokens.map((t) => list[t]).join(""),
    getTokenAttributes: () => ({ unknown: false }),
  });
  return { cases, vocabulary: groundingVocabulary(classes, new Set()), text: (t) => list[t] };
}

/** Cases BFCL's first questions lack: a runaway string and number, an expression, a value that is the key's word. */
function craftedCases(): CorpusCase[] {
  const lookup = defineSkill({
    name: "find_place",
    description: "Find a place.",
    parameters: z.object({ location: z.string(), cell_type: z.string().optional() }),
    run: () => "ok",
  });
  const circle = defineSkill({
    name: "circle_area",
    description: "The area of a circle.",
    parameters: z.object({ radius: z.number(), city: z.string().optional() }),
    run: () => 1,
  });
  const rectangle = defineSkill({
    name: "rectangle_area",
    description: "The area of a rectangle.",
    parameters: z.object({ width: z.number(), height: z.number() }),
    run: () => 1,
  });
  const quadratic = defineSkill({
    name: "quadratic_roots",
    description: "The roots of a quadratic equation.",
    parameters: z.object({
      a: z.number().describe("Coefficient of x^2."),
      b: z.number().describe("Coefficient of x."),
      c: z.number().describe("Constant term."),
    }),
    run: () => 1,
  });
  const stats = defineSkill({
    name: "player_stats",
    description: "A player's statistics.",
    parameters: z.object({ player: z.string(), fields: z.array(z.string()) }),
    run: () => 1,
  });
  const multiples = defineSkill({
    name: "sum_of_multiples",
    description: "The sum of the multiples of some numbers in a range.",
    parameters: z.object({ lower_limit: z.number(), upper_limit: z.number(), multiples: z.array(z.number()) }),
    run: () => 1,
  });
  const future = defineSkill({
    name: "future_value",
    description: "The future value of an investment.",
    parameters: z.object({
      initial_investment: z.number(),
      years: z.number(),
      contribution: z.number().optional().describe("Additional yearly contributions."),
    }),
    run: () => 1,
  });
  const route = defineSkill({
    name: "route_plan",
    description: "Plan a driving route.",
    parameters: z.object({ start: z.string(), end: z.string(), preference: z.enum(["Shortest", "Scenic"]) }),
    run: () => 1,
  });
  const topCases = defineSkill({
    name: "top_cases",
    description: "The landmark cases of a field of law.",
    parameters: z.object({ field: z.string(), top_number: z.number() }),
    run: () => 1,
  });
  const translate = defineSkill({
    name: "translate_text",
    description: "Translate a text.",
    parameters: z.object({ text: z.string(), from_lang: z.string(), to_lang: z.string() }),
    run: () => 1,
  });
  const stockReturn = defineSkill({
    name: "stock_return",
    description: "The projected return of a stock.",
    parameters: z.object({ investment_amount: z.number(), holding_period: z.number() }),
    run: () => 1,
  });
  const registry = new Registry([
    stockReturn,
    translate,
    topCases,
    lookup,
    circle,
    calculatorSkill,
    rectangle,
    quadratic,
    stats,
    multiples,
    future,
    route,
  ]);
  const schema = buildActionJsonSchema(registry);
  const crafted = (
    id: string,
    question: string,
    reply: object,
    taken?: string[],
    more: Partial<GroundingOptions> = {},
  ): CorpusCase => ({
    id: `crafted/${id}`,
    schema,
    grounding: { mode: "soft", source: [question], question, ...(taken && { taken }), ...more },
    reply: JSON.stringify(reply),
  });
  const items = ["The winning percentage of the Lakers in 2018.", "The winning percentage of the Bulls in 2018."];
  // a `calls` list over two items of the question: the second call's team written as a reference first
  const itemized: CorpusCase = {
    id: "crafted/item-references",
    schema: buildActionJsonSchema(registry, { parallelCalls: true }),
    grounding: { mode: "soft", source: [items[0]], items, question: items.join(" ") },
    reply: JSON.stringify({
      calls: [
        { skill_name: "find_place", arguments: { location: "Lakers" } },
        { skill_name: "find_place", arguments: { location: { $ref: "calls[0].result" } } },
      ],
    }),
  };
  // the second call's height written as the first call's, where its own item gives that 5 to `width`
  const sides = ["A rectangle of width 3 and the height 5.", "A rectangle of width 5 and the height 8."];
  const previous: CorpusCase = {
    id: "crafted/previous-call",
    schema: buildActionJsonSchema(registry, { parallelCalls: true }),
    grounding: { mode: "soft", source: [sides[0]], items: sides, question: sides.join(" ") },
    reply: JSON.stringify({
      calls: [
        { skill_name: "rectangle_area", arguments: { width: 3, height: 5 } },
        { skill_name: "rectangle_area", arguments: { width: 5, height: 5 } },
      ],
    }),
  };
  return [
    itemized,
    previous,
    crafted("runaway-string", "Restaurants in New York.", {
      skill_name: "find_place",
      arguments: { location: "New York, NY, you should format it as City, State, and so on" },
    }),
    crafted("runaway-digits", "Find the Safeway store 12.", {
      skill_name: "find_place",
      arguments: { location: "Safeway 1000000000" },
    }),
    crafted("expression", "What is 17 times 23 plus 4?", {
      skill_name: "calculator",
      arguments: { expression: "17 times 23 plus 4" },
    }),
    crafted("runaway-number", "The area of a circle of radius 50.", {
      skill_name: "circle_area",
      arguments: { radius: 5000000000000000 },
    }),
    crafted(
      "taken",
      "The area of a circle of radius 5 in Paris.",
      { skill_name: "circle_area", arguments: { radius: 5, city: "Paris" } },
      ["3", "Boston"],
    ),
    crafted("key-word", "Where do cells of the neuron type live?", {
      skill_name: "find_place",
      arguments: { location: "brain", cell_type: "cell neuron" },
    }),
    // a chain's next hop: the city the question anchors was the call before's, the newest result comes first
    crafted(
      "chain",
      "The area of a circle of radius 2 in the city of Paris.",
      { skill_name: "circle_area", arguments: { radius: 2, city: "Lyon" } },
      ["Paris"],
      {
        source: ["Lyon", "The area of a circle of radius 2 in the city of Paris."],
      },
    ),
    // a call again after `no entry for "New Yorks"`: the value that failed is not written again
    crafted(
      "failed",
      "Find a place in New Yorks.",
      { skill_name: "find_place", arguments: { location: "New York" } },
      undefined,
      {
        failed: [{ skill: "find_place", key: "location", value: "New Yorks" }],
      },
    ),
    // a quadratic's coefficients where the model likes the numerals in another order
    crafted("coefficients", "Find the roots of 5x^2 - 7x + 3 = 0.", {
      skill_name: "quadratic_roots",
      arguments: { a: 3, b: 5, c: 7 },
    }),
    // the pronoun "I" written as a place
    crafted("pronoun", "I am in Boston and I'd like a place to eat.", {
      skill_name: "find_place",
      arguments: { location: "I" },
    }),
    // a quoted text that begins with "I" is a value whole
    crafted("quoted-pronoun", "Find a place for the note 'I will be back soon'.", {
      skill_name: "find_place",
      arguments: { location: "I will be back soon" },
    }),
    // a range's ends written the other way round
    crafted("range", "Find the sum of the multiples of 3 and 5 between 1 and 1000.", {
      skill_name: "sum_of_multiples",
      arguments: { lower_limit: 1000, upper_limit: 1, multiples: [3, 5] },
    }),
    // a list that writes its last item again and again
    crafted("repeated-item", "The points, assists and rebounds of LeBron James.", {
      skill_name: "player_stats",
      arguments: { player: "LeBron James", fields: ["points", "assists", "rebounds", "rebounds", "rebounds"] },
    }),
    // an optional number named after a negation asks for none; named plainly, it does
    crafted(
      "negated-optional",
      "The future value of an initial investment of $5000 over 10 years; he will not make any additional contributions.",
      { skill_name: "future_value", arguments: { initial_investment: 5000, years: 10 } },
    ),
    crafted(
      "named-optional",
      "The future value of an initial investment of $5000 over 10 years; he will make additional contributions yearly.",
      { skill_name: "future_value", arguments: { initial_investment: 5000, years: 10 } },
    ),
    // an enum value the question writes goes on as written, not as another value of the schema's it begins
    crafted("anchored-enum", "Plan the shortest route from Boston to Albany.", {
      skill_name: "route_plan",
      arguments: { start: "Boston", end: "Albany", preference: "Shortest" },
    }),
    // a number key whose head word ("number") the question does not write: the numeral after its other word
    crafted("top-number", "I have two questions. List the top 5 landmark cases in constitutional law.", {
      skill_name: "top_cases",
      arguments: { field: "constitutional law", top_number: 5 },
    }),
    // a pair's sides: the name after "from" for `from_lang`, after "to" for `to_lang`
    crafted("pair-sides", "Translate 'Goodbye' from French to English.", {
      skill_name: "translate_text",
      arguments: { text: "Goodbye", from_lang: "French", to_lang: "English" },
    }),
    // number keys whose head words the question does not write, their other words in another form
    crafted("key-word-forms", "I am investing $5000 in a stock and I plan to hold the stock for 10 years.", {
      skill_name: "stock_return",
      arguments: { investment_amount: 5000, holding_period: 10 },
    }),
    // a final round after an answer refused as the prompt's text; "no" begins the result's "note" too
    crafted("refused", "Where can I buy a piano?", { final_answer: "no more skill calls" }, undefined, {
      source: ['{"status":"recorded","note":"The call was recorded."}', "Where can I buy a piano?"],
      refused: ["no more skill calls"],
    }),
  ];
}

/** The steer's output for `c` at every character of its reply, one line per character; and the rules it asked. */
export function steerCase(
  c: CorpusCase,
  vocabulary: GroundingVocabulary,
  text: (t: Token) => string,
  rulesOff: readonly string[] = [],
): { outputs: string[]; asked: Set<string> } {
  const asked = new Set<string>();
  const steer = replySteerFor(vocabulary, { ...c.grounding, rulesOff, onRule: (r) => asked.add(r) }, c.schema);
  const outputs: string[] = [];
  if (!steer) return { outputs, asked };
  for (let i = 0; i <= c.reply.length; i++) {
    const s = steer.next(c.reply.slice(0, i));
    outputs.push(
      s.type === "bias"
        ? [...s.logits]
            .sort((a, b) => a[0] - b[0])
            .map(([t, l]) => `${text(t)}=${l}`)
            .join("|")
        : s.type,
    );
    const token = vocabulary.tokensFor(c.reply[i] ?? "")?.[0];
    if (token !== undefined) steer.picked(token, undefined);
  }
  return { outputs, asked };
}

/**
 * The steer's bias on each token right after the first `marker` in the reply of crafted case `id` (`crafted/<id>`),
 * with `rulesOff` off: none where the steer did not bias there.
 */
export function biasesAfter(
  corpus: ReturnType<typeof groundingCorpus>,
  id: string,
  marker: string,
  rulesOff: readonly string[] = [],
): Map<string, number> {
  const c = corpus.cases.find((x) => x.id === `crafted/${id}`)!;
  const at = c.reply.indexOf(marker) + marker.length;
  const output = steerCase(c, corpus.vocabulary, corpus.text, rulesOff).outputs[at];
  const biases = new Map<string, number>();
  if (!output.includes("=")) return biases;
  for (const part of output.split("|")) {
    const sign = part.lastIndexOf("=");
    biases.set(part.slice(0, sign), Number(part.slice(sign + 1)));
  }
  return biases;
}
