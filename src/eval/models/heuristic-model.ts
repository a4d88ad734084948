import type { GenerateOptions, ModelHandle, ModelInfo } from "../../model/model-handle.js";
import { gemma3ChatFormat, gemma4ChatFormat } from "../../prompt/chat-format.js";
import { renderPrompt } from "../../prompt-texts.js";
import { abortError } from "../../abort.js";
import { scriptedModelInfo } from "../../testing/scripted-model-info.js";

/** A lookup skill the planner may use: its name, the argument that takes the key, and the keys its table holds. */
export interface HeuristicLookup {
  skillName: string;
  parameter: string;
  keys: readonly string[];
}

/** What the planner knows of a task: the query and the skills it may call. */
export interface HeuristicContext {
  query: string;
  /** Names of the skills the run may call (built-ins are recognised by name). */
  skillNames: readonly string[];
  lookups?: readonly HeuristicLookup[];
}

/** A few cities the planner can put in a time zone. */
const CITY_ZONES: Readonly<Record<string, string>> = {
  Tokyo: "Asia/Tokyo",
  London: "Europe/London",
  Paris: "Europe/Paris",
  Berlin: "Europe/Berlin",
  "New York": "America/New_York",
  Sydney: "Australia/Sydney",
  "Los Angeles": "America/Los_Angeles",
};

type Step = { skill: string; args: Record<string, unknown> } | { answer: string };

const WORD_OPERATORS: [RegExp, string][] = [
  [/\bmultiply\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)/gi, "$1*$2"],
  [/\bdivide\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)/gi, "$1/$2"],
  [/\bto the power of\b/gi, "^"],
  [/\bmultiplied by\b|\btimes\b|[×x](?=\s*[\d(])/gi, "*"],
  [/\bdivided by\b|÷/gi, "/"],
  [/\bplus\b/gi, "+"],
  [/\bminus\b/gi, "-"],
  [/\bsquared\b/gi, "^2"],
  [/\bcubed\b/gi, "^3"],
  [/(\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\b/gi, "$1/100*"],
  [/\bsquare root of\s*/gi, "sqrt "],
];

/** "the average of 12, 18, 27 and 43" → "(12+18+27+43)/4". */
function averageExpression(text: string): string | undefined {
  const match = /\b(?:average|mean) of\s+([\d.,\s]+(?:and\s+[\d.]+))/i.exec(text);
  const numbers = match?.[1].match(/\d+(?:\.\d+)?/g);
  return numbers && numbers.length > 1 ? `(${numbers.join("+")})/${numbers.length}` : undefined;
}

/** An arithmetic expression in the text ("17 times 23 plus 4" → "17*23+4"), or undefined when there is none. */
export function findExpression(text: string): string | undefined {
  const average = averageExpression(text);
  if (average) return average;
  let t = text.replace(/(\d),(?=\d{3}\b)/g, "$1");
  for (const [pattern, op] of WORD_OPERATORS) t = t.replace(pattern, op);
  t = t.replace(/,\s*(?=[+\-*/^])/g, " ");
  t = t.replace(/sqrt\s+(\d+(?:\.\d+)?)/g, "sqrt($1)");
  const candidates = t.match(/(?:sqrt)?[\d(][\d\s.+\-*/^()%sqrt]*[\d)]/g) ?? [];
  const best = candidates
    .map((c) => c.trim())
    .filter((c) => /[+\-*/^]|sqrt/.test(c) && /\d/.test(c))
    .sort((a, b) => b.length - a.length)[0];
  return best?.replace(/\s+/g, "");
}

/** "5 miles to km", "100 °F in Celsius": the conversion asked for, or undefined. */
export function findConversion(text: string): { value: number; from: string; to: string } | undefined {
  const howMany =
    /how many\s+((?:degrees?\s+)?[a-z]+(?:\s(?:oz|ounces?))?)\s+(?:is|are|in)\s+(?:there\s+in\s+|in\s+)?(-?\d+(?:\.\d+)?)\s*((?:degrees?\s+|°\s*)?[a-z]+(?:\s(?:oz|ounces?|miles?|gallons?))?)/i.exec(
      text,
    );
  if (howMany) return { value: Number(howMany[2]), from: howMany[3].trim(), to: howMany[1].trim() };
  const match =
    /(-?\d+(?:\.\d+)?)\s*((?:degrees?\s+|°\s*)?[a-z]+(?:\s(?:oz|ounces?|miles?|ton|tons|gallons?|pints?))?)\s+(?:to|in|into)\s+((?:degrees?\s+|°\s*)?[a-z]+(?:\s(?:oz|ounces?|miles?|ton|tons|gallons?|pints?))?)/i.exec(
      text,
    );
  if (!match) return undefined;
  return { value: Number(match[1]), from: match[2].trim(), to: match[3].trim() };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The result text shown for each of `skills`' most recent calls in the prompt, read back with the observation template. */
function lastResult(prompt: string, skillName: string): string | undefined {
  const [prefix] = renderPrompt("observation", { skill_name: skillName, result: "\u0000" }).split("\u0000");
  const at = prompt.lastIndexOf(prefix);
  if (at < 0) return undefined;
  const rest = prompt.slice(at + prefix.length);
  const ends = [gemma3ChatFormat.endOfTurn, gemma4ChatFormat.endOfTurn, "\n\n"]
    .map((m) => rest.indexOf(m))
    .filter((i) => i >= 0);
  return rest.slice(0, Math.min(rest.length, ...ends)).trim();
}

/** A number as a person writes it: two decimals at most, the exact value in brackets when rounding changed it. */
function showNumber(value: unknown): string {
  if (typeof value !== "number") return String(value);
  const rounded = Math.round(value * 100) / 100;
  return rounded === value ? String(value) : `${rounded.toFixed(2)} (exactly ${value})`;
}

/** A result as an answer: `{"result": 1.6, "to": "km"}` → "1.6 km", `{"value": 3, "unit": "days"}` → "3 days". */
function resultToAnswer(result: string): string {
  try {
    const value: unknown = JSON.parse(result);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const v = value as Record<string, unknown>;
      if ("result" in v) return `${showNumber(v.result)}${typeof v.to === "string" ? ` ${v.to}` : ""}`;
      if ("value" in v) return `${showNumber(v.value)}${typeof v.unit === "string" ? ` ${v.unit}` : ""}`;
      if (typeof v.weekday === "string")
        return `${v.weekday}, ${String(v.date)} ${String(v.time)} (${String(v.timeZone)})`;
    }
    return typeof value === "string" ? value : typeof value === "number" ? showNumber(value) : result;
  } catch {
    return result;
  }
}

/**
 * A model without a model: keyword rules choose the next call or the answer, for demos and tests of the harness.
 * In order: a unit conversion ("5 miles to km", "how many grams is 12 ounces"), a key of a lookup table seen in the
 * query or in a result so far (which chains lookups: the capital found by one lookup is the key of the next), an
 * arithmetic expression in the query ("17 times 23 plus 4", "the average of 2, 4 and 9"), the sum or difference of
 * looked-up numbers ("combined", "more than"), a date difference or the current time; then it answers with the last
 * result, rounded as a person would write it ("I don't know" without one).
 * It makes each call at most once, so it always ends. It reads results back from the prompt, so it sees exactly
 * what a model would see.
 */
export class HeuristicModel implements ModelHandle {
  readonly info: ModelInfo = scriptedModelInfo("heuristic");
  readonly #ctx: HeuristicContext;
  readonly #done = new Set<string>();
  #lastSkill: string | undefined;
  /** Numbers that lookups returned so far, in order (for "combined", "more than"). */
  #numericResults: number[] = [];

  constructor(context: HeuristicContext) {
    this.#ctx = context;
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    if (options.signal?.aborted) throw abortError(options.signal.reason);
    const step = this.#plan(prompt);
    const text =
      "answer" in step
        ? JSON.stringify({ thought: "I have what I need.", final_answer: step.answer })
        : JSON.stringify({ thought: `Use ${step.skill}.`, skill_name: step.skill, arguments: step.args });
    options.onToken?.(text);
    return text;
  }

  #plan(prompt: string): Step {
    const results = this.#ctx.skillNames
      .map((name) => lastResult(prompt, name))
      .filter((r): r is string => r !== undefined);
    const lookupNames = new Set((this.#ctx.lookups ?? []).map((l) => l.skillName));
    if (this.#lastSkill && lookupNames.has(this.#lastSkill)) {
      const value = Number(lastResult(prompt, this.#lastSkill));
      if (Number.isFinite(value) && this.#numericResults.at(-1) !== value) this.#numericResults.push(value);
    }
    const seen = [this.#ctx.query, ...results].join("\n");
    for (const step of this.#candidates(seen)) {
      if ("answer" in step) return step;
      const key = `${step.skill} ${JSON.stringify(step.args)}`;
      if (this.#done.has(key)) continue;
      this.#done.add(key);
      this.#lastSkill = step.skill;
      return step;
    }
    const last = this.#lastSkill && lastResult(prompt, this.#lastSkill);
    if (last) return { answer: resultToAnswer(last) };
    const echo = /\b(?:say|reply with|repeat)\s+(?:the word\s+)?["'“]?([^"'”.?!]+)["'”]?/i.exec(this.#ctx.query);
    return { answer: echo ? echo[1].trim() : "I don't know." };
  }

  *#candidates(seen: string): Generator<Step> {
    const has = (name: string) => this.#ctx.skillNames.includes(name);
    const { query } = this.#ctx;
    const conversion = has("convert_units") ? findConversion(query) : undefined;
    if (conversion) yield { skill: "convert_units", args: conversion };
    for (const lookup of this.#ctx.lookups ?? []) {
      if (!has(lookup.skillName)) continue;
      const keys = [...lookup.keys].sort((a, b) => b.length - a.length);
      for (const key of keys) {
        if (new RegExp(`(?<![\\w])${escapeRegExp(key)}(?![\\w])`, "i").test(seen))
          yield { skill: lookup.skillName, args: { [lookup.parameter]: key } };
      }
    }
    const expression = has("calculator") ? findExpression(query) : undefined;
    if (expression) yield { skill: "calculator", args: { expression } };
    const numbers = this.#numericResults;
    if (has("calculator") && numbers.length >= 2) {
      if (/\b(combined|total|sum|together)\b/i.test(query))
        yield { skill: "calculator", args: { expression: numbers.join("+") } };
      if (/\b(more|less|fewer|difference)\b/i.test(query))
        yield { skill: "calculator", args: { expression: `${numbers[0]}-${numbers[1]}` } };
    }
    if (has("datetime")) {
      const dates = query.match(/\d{4}-\d{2}-\d{2}/g);
      const unit = /\b(days|weeks|months|years|hours)\b/i.exec(query)?.[1].toLowerCase();
      if (dates && dates.length >= 2)
        yield {
          skill: "datetime",
          args: { action: "difference", from: dates[0], to: dates[1], ...(unit && { unit }) },
        };
      else if (/\b(what time|current time|today|date is it|day of the week)\b/i.test(query)) {
        const city = Object.keys(CITY_ZONES).find((c) => new RegExp(`\\b${c}\\b`, "i").test(query));
        yield { skill: "datetime", args: { action: "now", ...(city && { timeZone: CITY_ZONES[city] }) } };
      }
    }
  }
}
