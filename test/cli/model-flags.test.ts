/**
 * The model flags as the loader takes them: the grammar levers reach `loadModel` only when turned off, so that the
 * loader's defaults (all on) decide otherwise.
 */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { modelFlags, modelOptions, type ModelCommandOptions } from "../../src/cli/model-options.js";

function flags(argv: string[]) {
  const command = modelOptions(new Command("ask").exitOverride());
  command.parse(argv, { from: "user" });
  return modelFlags(command.opts<ModelCommandOptions>());
}

describe("modelFlags", () => {
  it("--no-candidate-sampling and --no-jump-forward turn their lever off; absent, the loader's default holds", () => {
    expect(flags(["--no-candidate-sampling"])).toMatchObject({ candidateSampling: false });
    expect(flags(["--no-jump-forward"])).toMatchObject({ jumpForward: false });
    expect(flags([])).not.toHaveProperty("candidateSampling");
    expect(flags([])).not.toHaveProperty("jumpForward");
    expect(flags(["--no-jump-forward"])).not.toHaveProperty("candidateSampling");
  });

  it("--no-speculation turns speculation off; absent, the loader's default holds", () => {
    expect(flags(["--no-speculation"])).toMatchObject({ speculation: false });
    expect(flags([])).not.toHaveProperty("speculation");
    expect(flags(["--no-candidate-sampling"])).not.toHaveProperty("speculation");
  });
});
