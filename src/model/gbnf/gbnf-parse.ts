/**
 * A reader of GBNF, llama.cpp's grammar format, into a small rule table that {@link GbnfMatcher} walks character by
 * character. It reads what llama.cpp's own parser reads (rules, alternatives, groups, literals, character classes,
 * `.`, `*` `+` `?` `{m}` `{m,}` `{m,n}`, comments); the loader uses it to know which text a grammar forces next.
 */

import { CodedError } from "../../coded-error.js";

/** A set of code points: inclusive ranges `[lo, hi]`, or everything but them. */
export interface CharSet {
  readonly ranges: readonly (readonly [number, number])[];
  readonly negated: boolean;
}

/** One element of a sequence: a character, a rule, or a rule repeated between `min` and `max` times. */
export type GbnfElement =
  | { readonly kind: "char"; readonly set: CharSet }
  | { readonly kind: "rule"; readonly rule: number }
  | { readonly kind: "repeat"; readonly rule: number; readonly min: number; readonly max: number };

/** One alternative of a rule; `id` is unique across the grammar. */
export interface GbnfSequence {
  readonly id: number;
  readonly items: readonly GbnfElement[];
}

/** A parsed grammar: each rule's alternatives, and the rule generation starts from. */
export interface ParsedGbnf {
  readonly rules: readonly (readonly GbnfSequence[])[];
  readonly root: number;
}

/**
 * Why a grammar could not be read: `syntax` (the text at an offset is not GBNF), `undefined_rule` (a rule is used but
 * never defined), `no_root` (the start rule is missing). Stable: callers switch on it.
 */
export type GbnfParseErrorCode = "syntax" | "undefined_rule" | "no_root";

/** A grammar this reader cannot take: the message names the offset (or the rule). */
export class GbnfParseError extends CodedError<GbnfParseErrorCode> {
  override readonly name = "GbnfParseError";
}

const NAME = /[a-zA-Z0-9-]/;
const ANY: CharSet = { ranges: [], negated: true };

/** Parse GBNF text; `root` names the start rule (default "root"). */
export function parseGbnf(text: string, root = "root"): ParsedGbnf {
  const parser = new Parser(text);
  parser.parseRules();
  return parser.finish(root);
}

class Parser {
  readonly #text: string;
  #pos = 0;
  #sequenceId = 0;
  readonly #ids = new Map<string, number>();
  readonly #defined = new Set<number>();
  readonly #rules: GbnfSequence[][] = [];

  constructor(text: string) {
    this.#text = text;
  }

  finish(root: string): ParsedGbnf {
    for (const [name, id] of this.#ids) {
      if (!this.#defined.has(id) && !name.startsWith("\u0000"))
        throw new GbnfParseError("undefined_rule", `rule "${name}" is not defined`);
    }
    const rootId = this.#ids.get(root);
    if (rootId === undefined || !this.#defined.has(rootId)) throw new GbnfParseError("no_root", `no rule "${root}"`);
    return { rules: this.#rules, root: rootId };
  }

  parseRules(): void {
    this.#space(true);
    while (this.#pos < this.#text.length) {
      const name = this.#name();
      this.#space(false);
      if (!this.#text.startsWith("::=", this.#pos)) this.#fail('expected "::="');
      this.#pos += 3;
      this.#space(true);
      const id = this.#ruleId(name);
      if (this.#defined.has(id)) this.#fail(`rule "${name}" is defined twice`);
      this.#defined.add(id);
      this.#rules[id] = this.#alternatives(false);
      this.#space(true);
    }
  }

  #alternatives(nested: boolean): GbnfSequence[] {
    const alternatives = [this.#sequence(nested)];
    while (this.#text[this.#pos] === "|") {
      this.#pos++;
      this.#space(true);
      alternatives.push(this.#sequence(nested));
    }
    return alternatives;
  }

  #sequence(nested: boolean): GbnfSequence {
    const items: GbnfElement[] = [];
    for (;;) {
      const start = items.length;
      const ch = this.#text[this.#pos];
      if (ch === '"') this.#literal(items);
      else if (ch === "[") items.push({ kind: "char", set: this.#charClass() });
      else if (ch === ".") {
        this.#pos++;
        items.push({ kind: "char", set: ANY });
      } else if (ch === "(") {
        this.#pos++;
        this.#space(true);
        const rule = this.#anonymous(this.#alternatives(true));
        if (this.#text[this.#pos] !== ")") this.#fail('expected ")"');
        this.#pos++;
        items.push({ kind: "rule", rule });
      } else if (ch !== undefined && NAME.test(ch) && !this.#atRuleStart()) {
        items.push({ kind: "rule", rule: this.#ruleId(this.#name()) });
      } else break;
      this.#space(nested);
      this.#postfix(items, start);
    }
    return { id: this.#sequenceId++, items };
  }

  /** `*`, `+`, `?` or `{m,n}` after the item(s) from `start` on: they become one repeated rule. */
  #postfix(items: GbnfElement[], start: number): void {
    for (;;) {
      const bounds = this.#repetition();
      if (!bounds) return;
      const repeated = items.splice(start);
      const only = repeated[0];
      const rule =
        repeated.length === 1 && only.kind === "rule"
          ? only.rule
          : this.#anonymous([{ id: this.#sequenceId++, items: repeated }]);
      items.push({ kind: "repeat", rule, min: bounds[0], max: bounds[1] });
      this.#space(false);
    }
  }

  #repetition(): [number, number] | undefined {
    const ch = this.#text[this.#pos];
    if (ch === "*" || ch === "+" || ch === "?") {
      this.#pos++;
      return ch === "*" ? [0, Infinity] : ch === "+" ? [1, Infinity] : [0, 1];
    }
    if (ch !== "{") return undefined;
    const match = /^\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}/.exec(this.#text.slice(this.#pos, this.#pos + 40));
    if (!match) this.#fail("expected {m}, {m,} or {m,n}");
    this.#pos += match[0].length;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
    if (max < min) this.#fail("repetition {m,n} with n < m");
    return [min, max];
  }

  #literal(items: GbnfElement[]): void {
    this.#pos++;
    while (this.#text[this.#pos] !== '"') {
      if (this.#pos >= this.#text.length) this.#fail("unterminated literal");
      const code = this.#char();
      items.push({ kind: "char", set: { ranges: [[code, code]], negated: false } });
    }
    this.#pos++;
  }

  #charClass(): CharSet {
    this.#pos++;
    const negated = this.#text[this.#pos] === "^";
    if (negated) this.#pos++;
    const ranges: [number, number][] = [];
    while (this.#text[this.#pos] !== "]") {
      if (this.#pos >= this.#text.length) this.#fail("unterminated character class");
      const lo = this.#char();
      let hi = lo;
      if (this.#text[this.#pos] === "-" && this.#text[this.#pos + 1] !== "]") {
        this.#pos++;
        hi = this.#char();
      }
      ranges.push([lo, hi]);
    }
    this.#pos++;
    return { ranges, negated };
  }

  /** One character of a literal or class, escapes decoded, as a code point. */
  #char(): number {
    const text = this.#text;
    if (text[this.#pos] !== "\\") {
      const code = text.codePointAt(this.#pos)!;
      this.#pos += code > 0xffff ? 2 : 1;
      return code;
    }
    const kind = text[this.#pos + 1];
    const digits = kind === "x" ? 2 : kind === "u" ? 4 : kind === "U" ? 8 : 0;
    if (digits > 0) {
      const hex = text.slice(this.#pos + 2, this.#pos + 2 + digits);
      if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) this.#fail(`bad \\${kind} escape`);
      this.#pos += 2 + digits;
      return Number.parseInt(hex, 16);
    }
    this.#pos += 2;
    const simple: Record<string, number> = { n: 10, r: 13, t: 9 };
    if (kind === undefined) this.#fail("escape at the end");
    return Object.hasOwn(simple, kind) ? simple[kind] : kind.codePointAt(0)!;
  }

  #name(): string {
    const start = this.#pos;
    while (this.#pos < this.#text.length && NAME.test(this.#text[this.#pos])) this.#pos++;
    if (this.#pos === start) this.#fail("expected a rule name");
    return this.#text.slice(start, this.#pos);
  }

  /** Whether a `name ::=` starts here (a new rule, not a reference at the end of a sequence). */
  #atRuleStart(): boolean {
    return /^[a-zA-Z0-9-]+\s*::=/.test(this.#text.slice(this.#pos, this.#pos + 200));
  }

  #ruleId(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.#rules.length;
      this.#ids.set(name, id);
      this.#rules.push([]);
    }
    return id;
  }

  #anonymous(alternatives: GbnfSequence[]): number {
    const id = this.#ruleId(`\u0000${this.#rules.length}`);
    this.#rules[id] = alternatives;
    return id;
  }

  /** Skip spaces and comments; newlines only where `newlines` (inside a group, between rules). */
  #space(newlines: boolean): void {
    const text = this.#text;
    while (this.#pos < text.length) {
      const ch = text[this.#pos];
      if (ch === "#") {
        while (this.#pos < text.length && text[this.#pos] !== "\n") this.#pos++;
      } else if (ch === " " || ch === "\t" || ((ch === "\n" || ch === "\r") && newlines)) this.#pos++;
      else break;
    }
  }

  #fail(message: string): never {
    throw new GbnfParseError("syntax", `GBNF at offset ${this.#pos}: ${message}`);
  }
}
