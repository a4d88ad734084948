import { PRIMITIVE_DEPENDENCIES, PRIMITIVES } from "./gbnf-json-primitives.js";
import type { Schema } from "./json-schema-keywords.js";

/** Quote text as a GBNF string literal. */
export function gbnfLiteral(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A JSON value as a GBNF literal of its compact JSON text. */
export function jsonLiteral(value: unknown): string {
  return gbnfLiteral(JSON.stringify(value));
}

/** Join the non-empty parts of a GBNF sequence. */
export function seq(...parts: string[]): string {
  return parts.filter((p) => p !== "").join(" ");
}

/** The GBNF repetition suffix for `min..max` occurrences (`max` undefined = unbounded); never called with max 0. */
export function repetition(min: number, max: number | undefined): string {
  if (max === undefined) return min === 0 ? "*" : min === 1 ? "+" : `{${min},}`;
  if (min === max) return min === 1 ? "" : `{${min}}`;
  return min === 0 && max === 1 ? "?" : `{${min},${max}}`;
}

/** What a keyword's compiler gets: the rule table and the way back into the whole compiler (for nested schemas). */
export interface GbnfCompiler {
  readonly rules: GbnfRules;
  /** A rule expression (usually a rule name) that matches exactly the compact JSON texts `schema` allows. */
  compile(schema: Schema, hint: string): string;
}

/** The named rules of one grammar, in the order they were made: naming, sharing equal bodies, and the final text. */
export class GbnfRules {
  readonly #rules = new Map<string, string>();
  readonly #byBody = new Map<string, string>();

  /** The grammar text, `root` first, one rule per line, rules that `root` cannot reach left out. */
  render(rootExpression: string): string {
    const reachable = new Set<string>();
    const pending = [rootExpression];
    while (pending.length > 0) {
      // Rule references are the bare words of a body once string literals and character classes are removed.
      const body = pending.pop()!.replace(/"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|\{[0-9,]*\}/g, " ");
      for (const name of body.match(/[A-Za-z0-9-]+/g) ?? []) {
        if (!reachable.has(name) && this.#rules.has(name)) {
          reachable.add(name);
          pending.push(this.#rules.get(name)!);
        }
      }
    }
    const lines = [`root ::= ${rootExpression}`];
    for (const [name, body] of this.#rules) if (reachable.has(name)) lines.push(`${name} ::= ${body}`);
    return `${lines.join("\n")}\n`;
  }

  /** The name of the fixed JSON rule `name` (see PRIMITIVES), added with what it needs on first use. */
  primitive(name: string): string {
    if (!this.#rules.has(name)) {
      this.#rules.set(name, "");
      for (const dep of PRIMITIVE_DEPENDENCIES[name] ?? []) this.primitive(dep);
      this.#rules.set(name, PRIMITIVES[name]);
    }
    return name;
  }

  /** A rule name not taken yet, made from `hint` (`s-` + its letters and digits, a number added when taken). */
  uniqueName(hint: string): string {
    const base =
      hint
        .replace(/[^A-Za-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .toLowerCase()
        .slice(0, 40) || "r";
    let name = `s-${base}`;
    for (let i = 2; this.#rules.has(name); i++) name = `s-${base}-${i}`;
    return name;
  }

  /** Set the body of the rule `name` (a name from uniqueName; an empty body reserves it while its body compiles). */
  define(name: string, body: string): void {
    this.#rules.set(name, body);
  }

  /** A named rule for `body` (the same body always gets the same name). */
  rule(hint: string, body: string): string {
    if (/^[A-Za-z0-9-]+$/.test(body) && this.#rules.has(body)) return body;
    const existing = this.#byBody.get(body);
    if (existing) return existing;
    const name = this.uniqueName(hint);
    this.#rules.set(name, body);
    this.#byBody.set(body, name);
    return name;
  }
}
