// What grounding reads of each skill's arguments is the same in a reply that may hold several calls (the `calls`
// branch, whose items' arguments may also be references to an earlier call's result) as in a one-call reply.
import { describe, expect, it } from "vitest";
import { buildActionJsonSchema } from "../../src/actions/index.js";
import { bfclRegistry } from "../../src/eval/bfcl/bfcl-skills.js";
import { skillArgumentKeys } from "../../src/model/grounding/grounding-setup.js";

const registry = bfclRegistry([
  {
    name: "average_temperature",
    description: "Average temperature of a city over days.",
    parameters: {
      type: "dict",
      properties: {
        location: { type: "string", description: "The city." },
        days: { type: "integer", description: "The number of days." },
        since: { type: "string", description: "The first day in YYYY-MM-DD format." },
        temp_unit: { type: "string", description: "The unit ('Celsius' or 'Fahrenheit'). Default is 'Fahrenheit'." },
      },
      required: ["location", "days"],
    },
  },
]);

describe("skillArgumentKeys over the calls branch", () => {
  it("reads a parallel schema's keys as the one-call schema's: types, formats and values past the reference branch", () => {
    const one = skillArgumentKeys(buildActionJsonSchema(registry)).get("average_temperature");
    const parallel = buildActionJsonSchema(registry, { parallelCalls: true });
    // the calls branch alone (no one-call branch to read first): its second item's arguments may be references
    const callsOnly = {
      anyOf: (parallel as { anyOf: object[] }).anyOf.filter((b) => "calls" in (b as { properties: object }).properties),
    };
    expect(JSON.stringify(callsOnly)).toContain("$ref");
    const keys = skillArgumentKeys(callsOnly).get("average_temperature");
    expect(one?.integer).toEqual(["days"]);
    expect(one?.dateFormats).toEqual({ since: "yyyy-mm-dd" });
    expect(one?.askedBy.temp_unit).toContain("Celsius");
    expect(keys).toEqual(one);
    expect(skillArgumentKeys(parallel).get("average_temperature")).toEqual(one);
  });
});
