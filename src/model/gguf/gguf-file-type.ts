/**
 * GGUF `general.file_type` values (llama.cpp's `llama_ftype`) and the quantization names people use for them.
 * Numbers never change meaning upstream; deprecated types keep their number and name.
 */
const FILE_TYPE_NAMES: Readonly<Record<number, string>> = Object.freeze({
  0: "F32",
  1: "F16",
  2: "Q4_0",
  3: "Q4_1",
  4: "Q4_1_SOME_F16",
  5: "Q4_2",
  6: "Q4_3",
  7: "Q8_0",
  8: "Q5_0",
  9: "Q5_1",
  10: "Q2_K",
  11: "Q3_K_S",
  12: "Q3_K_M",
  13: "Q3_K_L",
  14: "Q4_K_S",
  15: "Q4_K_M",
  16: "Q5_K_S",
  17: "Q5_K_M",
  18: "Q6_K",
  19: "IQ2_XXS",
  20: "IQ2_XS",
  21: "Q2_K_S",
  22: "IQ3_XS",
  23: "IQ3_XXS",
  24: "IQ1_S",
  25: "IQ4_NL",
  26: "IQ3_S",
  27: "IQ3_M",
  28: "IQ2_S",
  29: "IQ2_M",
  30: "IQ4_XS",
  31: "IQ1_M",
  32: "BF16",
  33: "Q4_0_4_4",
  34: "Q4_0_4_8",
  35: "Q4_0_8_8",
  36: "TQ1_0",
  37: "TQ2_0",
  38: "MXFP4_MOE",
  39: "NVFP4",
  40: "Q1_0",
  41: "Q2_0",
});

/**
 * The quantization name of a GGUF `general.file_type` (15 → `Q4_K_M`); `unknown` when the file does not say, or says
 * a number this table does not know (a newer llama.cpp), so callers never have to handle `undefined`.
 */
export function quantizationName(fileType: number | undefined): string {
  if (fileType === undefined || !Object.hasOwn(FILE_TYPE_NAMES, fileType)) return "unknown";
  return FILE_TYPE_NAMES[fileType];
}
