import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { EvalSetupError } from "../../src/eval/errors.js";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import {
  checkFailureRates,
  FAILURE_KINDS,
  FAILURE_PROFILES,
  type FailureKind,
} from "../../src/eval/models/failure-profiles.js";
import { fitFailureProfile, type FittedProfile } from "../../src/eval/models/fit-profile.js";
import { parseModelSpec } from "../../src/eval/models/model-spec.js";
import { fitProfileFromReport, readProfileFile } from "../../src/eval/models/profile-file.js";
import type { Aggregate, EvalReport } from "../../src/eval/report/eval-report.js";
import type { RunRecord } from "../../src/eval/runner/run-record.js";
import { memoryIO } from "../helpers/memory-io.js";
import { fitProfileCommand } from "../../scripts/fit-profile.js";

const ROOT = join(import.meta.dirname, "../..");
const BASIC = join(ROOT, "evals/basic.json");
const SEEDS = 20;

/**
 * Kinds the TrajectoryModel injects on every draw: each drawn failure is one counted failure, so their measured rate
 * per model call estimates the profile's rate without bias (the draws are independent of when a run stops: Wald).
 */
const ALWAYS: FailureKind[] = ["empty_answer", "malformed_json", "unknown_skill"];
/**
 * Kinds that apply to some steps only: a drawn `invalid_arguments` at an answer step (or a call without arguments),
 * or a drawn `repeated_call` before the run's first call, becomes a correct step. Measured, they come out below the
 * drawn rate by the share of model calls where they apply.
 */
const SOMETIMES: FailureKind[] = ["invalid_arguments", "repeated_call"];

/**
 * Four standard deviations of a binomial proportion `p` over `n` model calls: with ~2,500 calls at p = 0.1 that is
 * about 0.023. The runs are seeded, so the outcome is fixed; the bound says how far off a correct counter could be.
 */
const tolerance = (p: number, n: number) => 4 * Math.sqrt((p * (1 - p)) / n);

const oneLine = (fn: () => unknown, code: string, message: RegExp) => {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(EvalSetupError);
  expect((thrown as EvalSetupError).code).toBe(code);
  expect((thrown as Error).message).toMatch(message);
  expect((thrown as Error).message).not.toContain("\n");
};

function record(overrides: Partial<RunRecord>): RunRecord {
  return {
    model: "m",
    taskId: "t",
    budget: 8,
    seed: 1,
    success: true,
    failures: [],
    stopReason: "answer",
    iterations: 4,
    skillCalls: 1,
    validationErrors: 0,
    validationErrorsByType: {},
    toolErrors: 0,
    emptyAnswers: 0,
    repeatedCalls: 0,
    promptTokens: null,
    evaluatedPromptTokens: null,
    generatedTokens: null,
    wallMs: 1,
    ...overrides,
  };
}

function report(runs: RunRecord[], extra: Partial<EvalReport> = {}): EvalReport {
  return {
    schemaVersion: 1,
    kind: "suite",
    title: "hand-made",
    source: "x",
    models: [...new Set(runs.map((r) => r.model))],
    budgets: [...new Set(runs.map((r) => r.budget))],
    seeds: [1],
    tasks: 1,
    grammar: false,
    interrupted: false,
    aggregates: [],
    convergence: [],
    categories: [],
    runs,
    timing: { startedAt: "2025-01-01T00:00:00Z", wallMs: 1 },
    ...extra,
  };
}

describe("fitFailureProfile on a chaotic run (every rate 0.1)", () => {
  let dir: string;
  let chaotic: EvalReport;
  let at8: Aggregate;
  let fitted: FittedProfile;
  let reportPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fit-profile-"));
    chaotic = await evaluateSuite(BASIC, { models: ["profile:chaotic"], budgets: [2, 8], seeds: SEEDS });
    reportPath = join(dir, "report.json");
    writeFileSync(reportPath, JSON.stringify(chaotic));
    at8 = chaotic.aggregates.find((a) => a.budget === 8)!;
    fitted = fitFailureProfile(chaotic);
  });

  it("counts the runs of the largest budget only, and each rate is its counter over their model calls", () => {
    expect(fitted.basis).toMatchObject({
      model: "profile:chaotic",
      budget: 8,
      runs: at8.runs,
      modelCalls: at8.modelCalls,
      scale: 1,
    });
    const counts = fitted.basis!.counts;
    expect(counts.empty_answer).toBe(at8.emptyAnswers);
    expect(counts.repeated_call).toBe(at8.repeatedCalls);
    expect(counts.malformed_json).toBe(at8.validationErrorsByType.json_syntax);
    expect(counts.unknown_skill).toBe(at8.validationErrorsByType.unknown_skill);
    // tool errors (here the blocked third repeats) count as refused arguments
    expect(counts.invalid_arguments).toBe(at8.validationErrorsByType.invalid_arguments + at8.toolErrors);
    // the others are the aggregate's ratesPerModelCall (no missing_field or invalid_reference in a trajectory run)
    for (const kind of FAILURE_KINDS.filter((k) => k !== "invalid_arguments"))
      expect(fitted.rates[kind]).toBeCloseTo(at8.ratesPerModelCall[kind], 4);
    expect(fitted.rates.invalid_arguments).toBeCloseTo(
      (at8.validationErrorsByType.invalid_arguments + at8.toolErrors) / at8.modelCalls,
      5,
    );
    expect(() => checkFailureRates(fitted.rates)).not.toThrow();
    expect(fitted).toMatchObject({ name: "fit:profile:chaotic", source: 'report "basic"' });
    expect(fitted.description).toMatch(
      /^Measured, not assumed: model "profile:chaotic" .* budget 8 \(\d+ model calls, grammar on\)/,
    );
  });

  it("recovers 0.1 for the kinds injected on every draw, and less for the kinds that apply to some steps only", () => {
    const n = fitted.basis!.modelCalls;
    expect(n).toBeGreaterThan(2000);
    for (const kind of ALWAYS) expect(Math.abs(fitted.rates[kind] - 0.1), kind).toBeLessThanOrEqual(tolerance(0.1, n));
    for (const kind of SOMETIMES) {
      // never above the drawn rate (a drawn failure can only be dropped) and not far below: most of basic.json's model
      // calls sit at a call step with arguments, after a first call
      expect(fitted.rates[kind], kind).toBeLessThan(0.1);
      expect(fitted.rates[kind], kind).toBeGreaterThan(0.1 * 0.3);
    }
  });

  it("round trip: profile:fit:<report.json> runs, and measures its own rates again", async () => {
    const again = await evaluateSuite(BASIC, { models: [`profile:fit:${reportPath}`], budgets: [8], seeds: SEEDS });
    expect(again.models).toEqual(["profile:fit:profile:chaotic"]);
    const measured = again.aggregates[0];
    expect(measured.runs).toBe(at8.runs);
    for (const kind of ALWAYS) {
      const p = fitted.rates[kind];
      expect(Math.abs(measured.ratesPerModelCall[kind] - p), kind).toBeLessThanOrEqual(
        tolerance(p, measured.modelCalls),
      );
    }
    for (const kind of SOMETIMES) {
      const p = fitted.rates[kind];
      expect(measured.ratesPerModelCall[kind], kind).toBeLessThanOrEqual(p + tolerance(p, measured.modelCalls));
      expect(measured.ratesPerModelCall[kind], kind).toBeGreaterThan(p * 0.3);
    }
  });

  it("the script writes a profile file that profile:file: reads, and it runs exactly like profile:fit:", async () => {
    const profile = fitProfileCommand([reportPath]);
    expect(profile).toEqual(fitProfileFromReport(reportPath));
    const file = join(dir, "profile.json");
    writeFileSync(file, JSON.stringify(profile, null, 2));
    expect(readProfileFile(file)).toEqual(profile);
    const options = { budgets: [4], seeds: 2 };
    const fromFile = await evaluateSuite(BASIC, { models: [`profile:file:${file}`], ...options });
    const fromFit = await evaluateSuite(BASIC, { models: [`profile:fit:${reportPath}`], ...options });
    expect(fromFile.models).toEqual(["profile:fit:profile:chaotic"]);
    expect(fromFile.aggregates.map(({ wallMs: _, ...a }) => a)).toEqual(
      fromFit.aggregates.map(({ wallMs: _, ...a }) => a),
    );
    expect(fitProfileCommand([reportPath, "--name", "chaotic-measured"]).name).toBe("chaotic-measured");
  });

  it("the script prints the profile file on stdout", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", join(ROOT, "scripts/fit-profile.ts"), reportPath],
      { cwd: ROOT },
    );
    expect(JSON.parse(stdout)).toEqual(JSON.parse(JSON.stringify(fitProfileFromReport(reportPath))));
  });
});

describe("fitFailureProfile counting", () => {
  it("folds missing_field into malformed JSON, invalid_reference and tool errors into invalid arguments, wrong answers; lists the rest", () => {
    const fitted = fitFailureProfile(
      report([
        record({
          iterations: 10,
          emptyAnswers: 1,
          repeatedCalls: 1,
          toolErrors: 2,
          validationErrorsByType: {
            json_syntax: 1,
            missing_field: 1,
            unknown_skill: 1,
            invalid_arguments: 1,
            invalid_reference: 1,
            non_empty_final_answer: 1,
            my_validator: 1,
          },
        }),
        record({ iterations: 10, stopReason: "answer", success: false }),
        // a smaller budget is not counted
        record({ budget: 2, iterations: 2, emptyAnswers: 2 }),
      ]),
    );
    expect(fitted.rates).toEqual({
      empty_answer: 0.05,
      malformed_json: 0.1,
      unknown_skill: 0.05,
      invalid_arguments: 0.2,
      repeated_call: 0.05,
      wrong_answer: 0.05,
    });
    expect(fitted.basis).toMatchObject({
      budget: 8,
      runs: 2,
      modelCalls: 20,
      grammar: false,
      unmodelled: { my_validator: 0.05 },
      scale: 1,
    });
    expect(fitted.description).toContain("Not modelled (taken as correct steps), per model call: my_validator 0.05.");
  });

  it("scales rates that sum above 1 (parallel repeated calls) down proportionally, and says so", () => {
    const fitted = fitFailureProfile(
      report([record({ iterations: 2, emptyAnswers: 1, repeatedCalls: 3 })], { interrupted: true }),
    );
    expect(() => checkFailureRates(fitted.rates)).not.toThrow();
    expect(fitted.rates.empty_answer).toBeCloseTo(0.25, 5);
    expect(fitted.rates.repeated_call).toBeCloseTo(0.75, 5);
    expect(fitted.basis!.scale).toBe(0.5);
    expect(fitted.description).toContain("The measured rates summed to 2; they are scaled by 0.5 to sum to 1.");
    expect(fitted.description).toContain("The eval was interrupted");
  });

  it("takes the largest budget at which the model made calls (harness errors elsewhere)", () => {
    const fitted = fitFailureProfile(
      report([
        record({ budget: 16, iterations: 0, stopReason: "harness_error" }),
        record({ budget: 8, iterations: 4, emptyAnswers: 1 }),
      ]),
    );
    expect(fitted.basis).toMatchObject({ budget: 8, modelCalls: 4 });
  });
});

describe("fitted profile errors, one line each", () => {
  let dir: string;
  let twoModels: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fit-profile-errors-"));
    twoModels = join(dir, "two.json");
    writeFileSync(
      twoModels,
      JSON.stringify(
        await evaluateSuite(BASIC, { models: ["profile:chaotic", "profile:e2b-like"], budgets: [4], seeds: 1 }),
      ),
    );
  });

  it("a missing file, a file that is not JSON, and JSON that is not a report are profile_invalid", () => {
    oneLine(
      () => parseModelSpec(`profile:fit:${join(dir, "none.json")}`),
      "profile_invalid",
      /cannot read report .*none\.json: no such file/,
    );
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "{ nope");
    oneLine(() => parseModelSpec(`profile:fit:${notJson}`), "profile_invalid", /not\.json is not JSON: /);
    oneLine(
      () => parseModelSpec(`profile:fit:${BASIC}`),
      "profile_invalid",
      /basic\.json is not an eval report\.json \(schemaVersion: /,
    );
    oneLine(() => parseModelSpec("profile:fit:"), "model_spec", /needs a report\.json path/);
  });

  it("a report of several models needs #model, and an unknown #model is named", () => {
    oneLine(
      () => parseModelSpec(`profile:fit:${twoModels}`),
      "model_spec",
      /holds several models \(profile:chaotic, profile:e2b-like\): pick one with .*two\.json#<model>/,
    );
    oneLine(
      () => parseModelSpec(`profile:fit:${twoModels}#gemma`),
      "model_spec",
      /has no model "gemma" \(models: profile:chaotic, profile:e2b-like\)/,
    );
    oneLine(() => parseModelSpec(`profile:fit:${twoModels}#`), "model_spec", /name a model after #/);
    const spec = parseModelSpec(`profile:fit:${twoModels}#profile:e2b-like`);
    expect(spec).toMatchObject({ kind: "profile", name: "profile:fit:profile:e2b-like" });
  });

  it("a model without model calls is profile_invalid", () => {
    oneLine(
      () => fitFailureProfile(report([record({ iterations: 0, stopReason: "harness_error" })])),
      "profile_invalid",
      /model "m" made no model calls/,
    );
  });

  it("a profile file must hold five known rates that sum to at most 1, under a name that is not a built-in's", () => {
    const write = (name: string, data: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(data));
      return path;
    };
    const good = {
      name: "measured",
      description: "d",
      source: "s",
      rates: { ...FAILURE_PROFILES.perfect, empty_answer: 0.2 },
    };
    expect(parseModelSpec(`profile:file:${write("good.json", good)}`)).toEqual({
      kind: "profile",
      name: "profile:measured",
      profile: "measured",
      rates: good.rates,
    });
    oneLine(
      () =>
        parseModelSpec(`profile:file:${write("sum.json", { ...good, rates: { ...good.rates, unknown_skill: 0.9 } })}`),
      "profile_invalid",
      /sum to 1\.1/,
    );
    oneLine(
      () =>
        parseModelSpec(`profile:file:${write("typo.json", { ...good, rates: { ...good.rates, empty_answers: 0.1 } })}`),
      "profile_invalid",
      /not a failure profile \(rates: /,
    );
    oneLine(
      () => parseModelSpec(`profile:file:${write("missing.json", { ...good, rates: { empty_answer: 0.1 } })}`),
      "profile_invalid",
      /rates\.malformed_json/,
    );
    oneLine(
      () => parseModelSpec(`profile:file:${write("builtin.json", { ...good, name: "chaotic" })}`),
      "profile_invalid",
      /"chaotic" is a built-in profile's name/,
    );
    oneLine(
      () => parseModelSpec(`profile:file:${join(dir, "none.json")}`),
      "profile_invalid",
      /cannot read profile .*none\.json: no such file/,
    );
  });

  it("the eval command refuses a bad profile:fit: with one line and exit 2", async () => {
    const io = memoryIO();
    const code = await runCli(["eval", BASIC, "--model", `profile:fit:${twoModels}`], io);
    expect(code).toBe(2);
    expect(io.err.text).toContain("holds several models");
    expect(io.err.text.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("the wrong_answer kind", () => {
  it("ends a run with a wrong answer, so a profile fitted to a model that gives up scores like it", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "wrong-answer-")), "p.json");
    const rates = {
      empty_answer: 0,
      malformed_json: 0,
      unknown_skill: 0,
      invalid_arguments: 0,
      repeated_call: 0,
      wrong_answer: 1,
    };
    writeFileSync(file, JSON.stringify({ name: "gives-up", description: "always gives up", source: "test", rates }));
    const result = await evaluateSuite(BASIC, { models: [`profile:file:${file}`], budgets: [8] });
    expect(result.runs.filter((r) => !(r.stopReason === "answer" && !r.success && r.iterations === 1))).toEqual([]);
    expect(result.aggregates[0].ratesPerModelCall.wrong_answer).toBe(1);
    expect(fitFailureProfile(result).rates.wrong_answer).toBe(1);
  });
});
