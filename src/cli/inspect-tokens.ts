/** Token counts for `inspect`, with the model's own tokenizer (its vocabulary only: no weights are loaded). */
export async function countTokens(modelPath: string, texts: readonly string[]): Promise<number[]> {
  // node-llama-cpp loads only when a model file is there to read
  const { getLlamaRuntime } = await import("../model/llama/llama-runtime.js");
  const { llama } = await getLlamaRuntime(false);
  const model = await llama.loadModel({ modelPath, vocabOnly: true });
  try {
    // control text (`<start_of_turn>`) counts as the single token it becomes in a prompt
    return texts.map((text) => model.tokenize(text, true).length);
  } finally {
    await model.dispose();
  }
}
