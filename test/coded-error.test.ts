import { describe, expect, it } from "vitest";
import { CodedError, errorFromJson, errorToJson } from "../src/coded-error.js";
import { ModelLoadError } from "../src/model/errors.js";

describe("CodedError through JSON (the evaluation worker's errors)", () => {
  it("keeps the class name, code, message and path of a coded error", () => {
    const json = errorToJson(new ModelLoadError("not_gguf", "x.bin is not a GGUF file", "x.bin"));
    expect(JSON.parse(JSON.stringify(json))).toEqual({
      name: "ModelLoadError",
      code: "not_gguf",
      message: "x.bin is not a GGUF file",
      path: "x.bin",
    });
    const back = errorFromJson(json);
    expect(back).toBeInstanceOf(CodedError);
    expect(back).toMatchObject({ name: "ModelLoadError", code: "not_gguf", message: "x.bin is not a GGUF file" });
  });

  it("keeps a plain error plain: a system error's code is not a setup code", () => {
    const system = Object.assign(new TypeError("no such file"), { code: "ENOENT" });
    const back = errorFromJson(errorToJson(system));
    expect(back).not.toBeInstanceOf(CodedError);
    expect(back).toMatchObject({ name: "TypeError", message: "no such file" });
    expect(errorFromJson(errorToJson("boom"))).toMatchObject({ name: "Error", message: "boom" });
  });
});
