/** The model-facing texts live in src/prompt-texts.ts (a leaf every layer uses); this path stays for callers. */
export * from "../prompt-texts.js";
