/**
 * Parallel: three isolated looks at one review (sections), one of them a vote of three differently worded judges.
 * With one local model the calls still run one at a time: the gain is that each call is short and sees only its own
 * question, not speed. A model server with several slots runs them at once.
 *
 *   npm start -s -- run examples/workflows/parallel.ts "The battery lasts two days but the screen scratches easily." --model script:examples/workflows/replies/parallel.json
 *   npm start -s -- run examples/workflows/parallel.ts "Great soup, rude waiter." --model ~/.cache/gemma-agent/test-models/SmolLM2-135M-Instruct.Q4_1.gguf --threads 1
 *
 * Skills: none. In your own project, import from "gemma-agent".
 */
import { z } from "zod";
import { defineWorkflow, parallel, prompt, type VoteResult } from "../../src/workflows/index.js";

const sentiment = z.enum(["positive", "negative", "mixed"]);

/** Three judges, each asked in its own words: the majority wins, and the counts are kept. */
const mood = parallel({
  votes: [
    prompt("Is this review positive, negative or mixed?\nReview:", { schema: sentiment, maxTokens: 16 }),
    prompt("How does the writer of this review feel: positive, negative or mixed?\nReview:", {
      schema: sentiment,
      maxTokens: 16,
    }),
    prompt("Classify the tone of this review as positive, negative or mixed.\nReview:", {
      schema: sentiment,
      maxTokens: 16,
    }),
  ],
});

const topic = prompt("What is this review about?\nReview:", {
  schema: z.enum(["food", "service", "product", "place", "other"]),
  name: "topic",
  maxTokens: 16,
});

const gist = prompt("Sum this review up in at most eight words.\nReview:", { name: "gist", maxTokens: 32 });

export default defineWorkflow({
  name: "parallel",
  skills: [],
  description: "Looks at a review three ways at once (a vote on its mood, its topic, its gist) and merges them.",
  run: parallel({
    sections: { mood, topic, gist },
    merge: (out) => {
      const vote = out.mood as VoteResult<string>;
      return `${vote.value} (${vote.count} of ${vote.total} judges), about ${String(out.topic)}: ${String(out.gist).trim()}`;
    },
  }),
});
