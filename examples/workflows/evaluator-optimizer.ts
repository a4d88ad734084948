/**
 * Evaluator-optimizer: write a short title, let a judge (a schema'd critique: { pass, feedback }) check it, and revise
 * with the feedback until it passes or two rounds are spent.
 *
 *   npm start -s -- run examples/workflows/evaluator-optimizer.ts "A guide to growing tomatoes on a balcony" --model script:examples/workflows/replies/evaluator-optimizer.json
 *   npm start -s -- run examples/workflows/evaluator-optimizer.ts "A guide to growing tomatoes on a balcony" --model ~/.cache/gemma-agent/test-models/SmolLM2-135M-Instruct.Q4_1.gguf --threads 1
 *
 * Skills: none. In your own project, import from "gemma-agent".
 */
import {
  defineWorkflow,
  evaluatorOptimizer,
  prompt,
  type DraftRequest,
  type DraftReview,
} from "../../src/workflows/index.js";

const write = prompt<DraftRequest>(
  ({ query, draft, feedback }) =>
    draft === undefined
      ? `Write a title of at most six words for this text.\nText: ${query}`
      : `Improve this title for the text below. Feedback: ${feedback}\nTitle: ${draft}\nText: ${query}`,
  { name: "write", maxTokens: 24 },
);

const judge = prompt<DraftReview>(
  ({ query, draft }) =>
    `Does this title have at most six words and name the main subject of the text?\nTitle: ${draft}\nText: ${query}`,
  { name: "judge", maxTokens: 64 },
);

export default defineWorkflow({
  name: "evaluator-optimizer",
  skills: [],
  description: "Writes a short title, has it judged, and revises it with the judge's feedback (two rounds at most).",
  run: evaluatorOptimizer({ generate: write, evaluate: judge, maxRounds: 2 }),
});
