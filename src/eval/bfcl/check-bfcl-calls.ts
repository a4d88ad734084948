import type { SkillCall } from "../../actions/action.js";
import type { BfclCheckKind, BfclFunction, BfclGroundTruth } from "./bfcl-files.js";

/** BFCL's verdict on the calls of one question. `errorType` uses BFCL's names (`value_error:string`, ...). */
export interface BfclVerdict {
  valid: boolean;
  error?: string;
  errorType?: string;
}

type ValueClass = "string" | "number" | "boolean" | "list" | "dict" | "null";

/**
 * The value class each BFCL type expects, as BFCL's Python checker maps them (`any` is checked as a string, `tuple`
 * as a list). JSON has one number type, so `integer` additionally needs a whole number and `float` takes any number
 * (BFCL converts an int to float too). Plain JSON Schema spellings are accepted for files that use them.
 */
const EXPECTED_CLASS: Readonly<Record<string, ValueClass>> = {
  string: "string",
  any: "string",
  integer: "number",
  float: "number",
  number: "number",
  boolean: "boolean",
  array: "list",
  tuple: "list",
  dict: "dict",
  object: "dict",
};

const OK: BfclVerdict = { valid: true };
const fail = (errorType: string, error: string): BfclVerdict => ({ valid: false, errorType, error });

function classOf(value: unknown): ValueClass {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "list";
  if (typeof value === "object") return "dict";
  return typeof value === "string"
    ? "string"
    : typeof value === "number"
      ? "number"
      : typeof value === "boolean"
        ? "boolean"
        : "null";
}

function typeName(schema: unknown): string | undefined {
  const type = (schema as { type?: unknown } | undefined)?.type;
  return typeof type === "string" ? type : undefined;
}

function typeMatches(value: unknown, type: string): boolean {
  if (type === "integer") return typeof value === "number" && Number.isInteger(value);
  return Object.hasOwn(EXPECTED_CLASS, type) && classOf(value) === EXPECTED_CLASS[type];
}

/** Python's type of a JSON value: a whole number reads as int, any other number as float. */
function pythonType(value: unknown): string {
  return typeof value === "number" ? (Number.isInteger(value) ? "int" : "float") : classOf(value);
}

/** The class of the first allowed value that is not `""` (the "may be omitted" marker), as BFCL reads a variable's type. */
function allowedClass(allowed: readonly unknown[]): ValueClass | undefined {
  const first = allowed.find((a) => a !== "");
  return first === undefined ? undefined : classOf(first);
}

/** BFCL's string normal form: no spaces nor `,./-_*^`, lower case, single quotes as double quotes. */
export function standardizeString(text: string): string {
  return text
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replaceAll("'", '"');
}

/** Structural equality of JSON values (what Python's `==` does for them). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(b)) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every(
        (k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

const std = (v: unknown) => (typeof v === "string" ? standardizeString(v) : v);
const includesValue = (list: readonly unknown[], value: unknown) => list.some((item) => jsonEqual(item, value));

/** Every element of a list value has the array's item type (or the class of that allowed list's first element). */
function nestedTypesMatch(value: unknown[], itemType: string, allowed: readonly unknown[]): boolean {
  return allowed.some((item) => {
    if (!Array.isArray(item)) return true;
    const itemClass = allowedClass(item);
    return value.every((v) => typeMatches(v, itemType) || (itemClass !== undefined && classOf(v) === itemClass));
  });
}

function dictMatches(value: Record<string, unknown>, allowed: readonly unknown[]): boolean {
  return allowed.some((candidate) => {
    if (candidate === "" || classOf(candidate) !== "dict") return false;
    const possible = candidate as Record<string, unknown>;
    for (const [key, v] of Object.entries(value)) {
      if (!Object.hasOwn(possible, key) || !Array.isArray(possible[key])) return false;
      if (!includesValue((possible[key] as unknown[]).map(std), std(v))) return false;
    }
    return Object.entries(possible).every(
      ([key, list]) => Object.hasOwn(value, key) || (Array.isArray(list) && list.includes("")),
    );
  });
}

function listOfDictsMatches(value: unknown[], allowed: readonly unknown[]): boolean {
  return allowed.some(
    (candidate) =>
      Array.isArray(candidate) &&
      candidate.length === value.length &&
      value.every(
        (item, i) => classOf(item) === "dict" && dictMatches(item as Record<string, unknown>, [candidate[i]]),
      ),
  );
}

/** One parameter value against its allowed values, with BFCL's type check and per-type comparison. */
function checkValue(param: string, value: unknown, allowed: readonly unknown[], schema: unknown): BfclVerdict {
  const type = typeName(schema);
  if (type === undefined || !Object.hasOwn(EXPECTED_CLASS, type)) {
    return includesValue(allowed, value)
      ? OK
      : fail("value_error:others", `${param}: ${JSON.stringify(value)} is not among ${JSON.stringify(allowed)}`);
  }
  const gtClass = allowedClass(allowed);
  let isVariable = gtClass !== undefined && gtClass !== EXPECTED_CLASS[type];
  const itemType = type === "array" || type === "tuple" ? typeName((schema as { items?: unknown }).items) : undefined;
  let typeOk = typeMatches(value, type);
  if (typeOk && itemType !== undefined && !nestedTypesMatch(value as unknown[], itemType, allowed)) typeOk = false;
  if (!typeOk) {
    // A value of the wrong type still passes when it has the type of the allowed values (BFCL's "variable" case).
    const first = allowed.find((a) => a !== "");
    if (first === undefined || pythonType(value) !== pythonType(first))
      return fail("type_error:simple", `${param}: expected type ${type}, got ${JSON.stringify(value)}`);
    isVariable = true;
  }
  let ok: boolean;
  if (isVariable) ok = includesValue(allowed, value);
  else if (type === "dict" || type === "object") ok = dictMatches(value as Record<string, unknown>, allowed);
  else if (EXPECTED_CLASS[type] === "list" && (itemType === "dict" || itemType === "object"))
    ok = listOfDictsMatches(value as unknown[], allowed);
  else if (EXPECTED_CLASS[type] === "string")
    ok = allowed
      .filter((a) => typeof a === "string")
      .map(std)
      .includes(std(value));
  else if (EXPECTED_CLASS[type] === "list")
    ok = allowed.some((a) => Array.isArray(a) && jsonEqual((value as unknown[]).map(std), a.map(std)));
  else ok = includesValue(allowed, value);
  return ok
    ? OK
    : fail(
        `value_error:${EXPECTED_CLASS[type]}`,
        `${param}: ${JSON.stringify(value)} is not among ${JSON.stringify(allowed)}`,
      );
}

/** One expected call of a ground truth: the function's name and the allowed values per parameter. */
function expectedCall(entry: BfclGroundTruth[number]): { name: string; params: Record<string, unknown[]> } {
  const [name] = Object.keys(entry);
  return { name, params: entry[name] };
}

/**
 * BFCL's rule for one call: the function name; every required parameter present; every parameter given declared and
 * expected, of the declared type and among the allowed values (strings compared in BFCL's normal form); every
 * expected parameter left out allowed to be (`""` among its values).
 */
function checkBfclCall(fn: BfclFunction, call: SkillCall, entry: BfclGroundTruth[number]): BfclVerdict {
  return callMismatches(fn, call, entry)[0] ?? OK;
}

/** Every way `call` breaks BFCL's rule for one call (see checkBfclCall), in the rule's order; none where it holds. */
function callMismatches(fn: BfclFunction, call: SkillCall, entry: BfclGroundTruth[number]): BfclVerdict[] {
  const expected = expectedCall(entry);
  if (call.skillName !== expected.name)
    return [fail("simple_function_checker:wrong_func_name", `expected ${expected.name}, got ${call.skillName}`)];
  const found: BfclVerdict[] = [];
  const properties = (fn.parameters.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(fn.parameters.required) ? (fn.parameters.required as string[]) : [];
  for (const param of required) {
    if (!Object.hasOwn(call.arguments, param))
      found.push(fail("simple_function_checker:missing_required", `missing required parameter ${param}`));
  }
  for (const [param, value] of Object.entries(call.arguments)) {
    if (!Object.hasOwn(properties, param) || !Object.hasOwn(expected.params, param)) {
      found.push(fail("simple_function_checker:unexpected_param", `unexpected parameter ${param}`));
      continue;
    }
    const verdict = checkValue(param, value, expected.params[param], properties[param]);
    if (!verdict.valid) found.push(verdict);
  }
  for (const [param, allowed] of Object.entries(expected.params)) {
    if (!Object.hasOwn(call.arguments, param) && !allowed.includes("") && !required.includes(param))
      found.push(fail("simple_function_checker:missing_optional", `parameter ${param} left out but not optional`));
  }
  return found;
}

/**
 * Why no call left matches an expected call: the nearest one's every mismatch (the call of the expected function with
 * the fewest), not the last one tried's first ("radius: 20 is not among [5]" where the nearest call's only fault was
 * a missing `units`).
 */
function nearestMismatch(
  fn: BfclFunction,
  calls: readonly SkillCall[],
  matched: ReadonlySet<number>,
  entry: BfclGroundTruth[number],
): string {
  let nearest: { index: number; faults: BfclVerdict[] } | undefined;
  calls.forEach((call, index) => {
    if (matched.has(index)) return;
    const faults = callMismatches(fn, call, entry);
    const named = faults[0]?.errorType !== "simple_function_checker:wrong_func_name";
    if (named && (nearest === undefined || faults.length < nearest.faults.length)) nearest = { index, faults };
  });
  if (nearest === undefined) return `no call of ${expectedCall(entry).name} left`;
  return `nearest is call ${nearest.index}: ${nearest.faults.map((f) => f.error).join("; ")}`;
}

function describeFunction(functions: readonly BfclFunction[], name: string): BfclFunction | undefined {
  return functions.find((f) => f.name === name);
}

/**
 * Score the calls a model made on one question by BFCL's AST rule for the category's kind: `simple` and `multiple`
 * need exactly the one expected call; `parallel` needs as many calls as expected, matched in any order; `irrelevance`
 * needs no call and `relevance` at least one. Independent of how the calls were made (one step or several).
 */
export function checkBfclCalls(
  kind: BfclCheckKind,
  functions: readonly BfclFunction[],
  calls: readonly SkillCall[],
  groundTruth: BfclGroundTruth | undefined,
): BfclVerdict {
  if (kind === "irrelevance")
    return calls.length === 0 ? OK : fail("irrelevance_error:decoder_success", `expected no call, got ${calls.length}`);
  if (kind === "relevance")
    return calls.length > 0 ? OK : fail("relevance_error:decoder_failed", "expected at least one call, got none");
  if (!groundTruth) return fail("no_ground_truth", "the question has no ground truth");
  if (calls.length !== groundTruth.length)
    return fail(`${kind}_function_checker:wrong_count`, `expected ${groundTruth.length} call(s), got ${calls.length}`);
  if (kind !== "parallel") {
    const fn = describeFunction(functions, expectedCall(groundTruth[0]).name) ?? functions[0];
    return fn ? checkBfclCall(fn, calls[0], groundTruth[0]) : fail("no_function", "the question declares no function");
  }
  const matched = new Set<number>();
  for (let i = 0; i < groundTruth.length; i++) {
    const expected = expectedCall(groundTruth[i]);
    const fn = describeFunction(functions, expected.name);
    if (!fn)
      return fail(
        "parallel_function_checker_no_order:cannot_find_description",
        `the ground truth names ${expected.name}, which is not declared`,
      );
    const index = calls.findIndex((call, j) => !matched.has(j) && checkBfclCall(fn, call, groundTruth[i]).valid);
    if (index < 0)
      return fail(
        "parallel_function_checker_no_order:cannot_find_match",
        `no call matches expected call ${i} (${expected.name}); ${nearestMismatch(fn, calls, matched, groundTruth[i])}`,
      );
    matched.add(index);
  }
  return OK;
}
