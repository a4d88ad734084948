/**
 * Orchestrator-workers: the model splits a many-part question into subtasks (structured output), the router workflow
 * (./router.ts) answers each one with a narrow call and a skill, and a last call writes the answer from the results.
 *
 *   npm start -s -- run examples/workflows/orchestrator-workers.ts "What is 15% of 80, and how many km is 5 miles?" --model script:examples/workflows/replies/orchestrator-workers.json
 *   npm start -s -- run examples/workflows/orchestrator-workers.ts "What is 15% of 80, and how many km is 5 miles?" --model ~/.cache/gemma-agent/test-models/SmolLM2-135M-Instruct.Q4_1.gguf --threads 1
 *
 * Skills: calculator, convert_units. In your own project, import from "gemma-agent".
 */
import { defineWorkflow, orchestratorWorkers } from "../../src/workflows/index.js";
import routerWorkflow from "./router.js";

export default defineWorkflow({
  name: "orchestrator-workers",
  skills: ["calculator", "convert_units"],
  description: "Splits a question into at most 3 parts, answers each with the router, and sums the results up.",
  run: orchestratorWorkers({
    maxWorkers: 3,
    worker: routerWorkflow,
    synthesize: {
      prompt: (question, results) =>
        `Answer the question in one or two sentences, using these results.\nQuestion: ${question}\nResults:\n${results
          .map((r) => `- ${r.task}: ${r.ok ? String(r.value) : "(failed)"}`)
          .join("\n")}`,
    },
  }),
});
