import type { CharSet, GbnfSequence, ParsedGbnf } from "./gbnf-parse.js";

/**
 * Where a match stands inside one sequence: the element at `index` is next, and `reps` repetitions of it (when it is
 * a repeat) are done. Frames link to the sequence that referenced theirs, as llama.cpp's grammar stacks do.
 */
interface Frame {
  readonly seq: GbnfSequence;
  readonly index: number;
  readonly reps: number;
  readonly parent: Frame | null;
  readonly key: string;
}

/** The frames a match may be in: each waits on a character, or (null) the grammar is complete. */
type Leaves = Map<string, Frame | null>;

/** Deeper nesting than this is a left-recursive grammar, which llama.cpp refuses too. */
const MAX_DEPTH = 2000;

function frame(seq: GbnfSequence, index: number, reps: number, parent: Frame | null): Frame {
  return { seq, index, reps, parent, key: `${seq.id}.${index}.${reps}/${parent?.key ?? ""}` };
}

function matches(set: CharSet, code: number): boolean {
  let inside = false;
  for (const [lo, hi] of set.ranges) {
    if (code >= lo && code <= hi) {
      inside = true;
      break;
    }
  }
  return inside !== set.negated;
}

/** The one code point a set allows, if it allows exactly one. */
function onlyCodePoint(set: CharSet): number | undefined {
  if (set.negated || set.ranges.length === 0) return undefined;
  const [lo, hi] = set.ranges[0];
  if (lo !== hi) return undefined;
  return set.ranges.every(([a, b]) => a === lo && b === lo) ? lo : undefined;
}

/**
 * Follows a GBNF grammar over text, character by character, the way llama.cpp's grammar does over tokens, to answer
 * one question its token-level state cannot: which text the grammar forces from here (`{"skill_name":"` at the start
 * of an action, the rest of a skill name once its prefix is unique, the keys and separators between values). The
 * loader feeds forced text to the model as one batch instead of sampling it token by token (jump-forward).
 */
export class GbnfMatcher {
  readonly #grammar: ParsedGbnf;
  #leaves: Leaves;

  constructor(grammar: ParsedGbnf) {
    this.#grammar = grammar;
    this.#leaves = new Map();
    const seen = new Set<string>();
    for (const seq of grammar.rules[grammar.root]) this.#expand(frame(seq, 0, 0, null), this.#leaves, seen, 0);
  }

  /** An independent copy at the same point (frames are shared: they never change). */
  clone(): GbnfMatcher {
    const copy = new GbnfMatcher(this.#grammar);
    copy.#leaves = new Map(this.#leaves);
    return copy;
  }

  /** False once text was given that the grammar does not allow. */
  get alive(): boolean {
    return this.#leaves.size > 0;
  }

  /** Whether the text so far is a complete match (generation may end here). */
  get complete(): boolean {
    return this.#leaves.has("");
  }

  /** Whether the text so far is complete and nothing may follow it. */
  get finished(): boolean {
    return this.#leaves.size === 1 && this.complete;
  }

  /** Take `text`; returns false (and the matcher is dead) when the grammar does not allow it. */
  accept(text: string): boolean {
    for (const char of text) {
      this.#leaves = this.#step(this.#leaves, char.codePointAt(0)!);
      if (this.#leaves.size === 0) return false;
    }
    return true;
  }

  /** Whether the grammar allows `text` from here (not taken). Pure. */
  allows(text: string): boolean {
    let leaves = this.#leaves;
    for (const char of text) {
      leaves = this.#step(leaves, char.codePointAt(0)!);
      if (leaves.size === 0) return false;
    }
    return true;
  }

  /**
   * Whether, after `text` (not taken), every character from U+0080 up may come next (inside a JSON string): a token
   * that ends in part of a multi-byte character may then be taken before the character is whole. Pure.
   */
  anyNonAsciiAfter(text: string): boolean {
    let leaves = this.#leaves;
    for (const char of text) leaves = this.#step(leaves, char.codePointAt(0)!);
    for (const leaf of leaves.values()) {
      const element = leaf?.seq.items[leaf.index];
      if (element?.kind === "char" && element.set.negated && element.set.ranges.every(([, hi]) => hi < 0x80))
        return true;
    }
    return false;
  }

  /**
   * Whether, after `text` (not taken), what comes next is free text: some way on allows more than one character at
   * its next position (a string's or number's content), not only a choice among literal characters (keys, `,` `}`).
   */
  freeAfter(text: string): boolean {
    let leaves = this.#leaves;
    for (const char of text) leaves = this.#step(leaves, char.codePointAt(0)!);
    for (const leaf of leaves.values()) {
      const element = leaf?.seq.items[leaf.index];
      if (element?.kind === "char" && onlyCodePoint(element.set) === undefined) return true;
    }
    return false;
  }

  /** Whether, after `text` (not taken), the match would be complete with nothing allowed after it. Pure. */
  finishedAfter(text: string): boolean {
    let leaves = this.#leaves;
    for (const char of text) leaves = this.#step(leaves, char.codePointAt(0)!);
    return leaves.size === 1 && leaves.has("");
  }

  /** The text the grammar forces from here (every way on starts with it), at most `limit` characters. Pure. */
  forced(limit = 256): string {
    let leaves = this.#leaves;
    let text = "";
    while (text.length < limit && !leaves.has("")) {
      let only: number | undefined;
      for (const leaf of leaves.values()) {
        const element = leaf!.seq.items[leaf!.index];
        const code = element.kind === "char" ? onlyCodePoint(element.set) : undefined;
        if (code === undefined || (only !== undefined && code !== only)) return text;
        only = code;
      }
      if (only === undefined) return text;
      text += String.fromCodePoint(only);
      leaves = this.#step(leaves, only);
    }
    return text;
  }

  #step(leaves: Leaves, code: number): Leaves {
    const next: Leaves = new Map();
    const seen = new Set<string>();
    for (const leaf of leaves.values()) {
      if (leaf === null) continue;
      const element = leaf.seq.items[leaf.index];
      if (element.kind === "char" && matches(element.set, code))
        this.#expand(frame(leaf.seq, leaf.index + 1, 0, leaf.parent), next, seen, 0);
    }
    return next;
  }

  /** Add to `out` every frame reachable from `at` without reading a character: those waiting on one, or completion. */
  #expand(at: Frame | null, out: Leaves, seen: Set<string>, depth: number): void {
    if (depth > MAX_DEPTH) throw new RangeError("GbnfMatcher: grammar nests too deep (left recursion?)");
    if (at === null) {
      out.set("", null);
      return;
    }
    if (at.index === at.seq.items.length) {
      this.#expand(this.#completed(at.parent), out, seen, depth + 1);
      return;
    }
    // each frame once per step: a repeat whose body may match nothing cannot loop, and shared paths are walked once
    if (seen.has(at.key)) return;
    seen.add(at.key);
    const element = at.seq.items[at.index];
    if (element.kind === "char") {
      out.set(at.key, at);
      return;
    }
    const rules = this.#grammar.rules;
    if (element.kind === "rule") {
      for (const seq of rules[element.rule]) this.#expand(frame(seq, 0, 0, at), out, seen, depth + 1);
      return;
    }
    if (at.reps < element.max)
      for (const seq of rules[element.rule]) this.#expand(frame(seq, 0, 0, at), out, seen, depth + 1);
    if (at.reps >= element.min) this.#expand(frame(at.seq, at.index + 1, 0, at.parent), out, seen, depth + 1);
  }

  /** The frame after `parent`'s current element matched once more (null: the root sequence is done). */
  #completed(parent: Frame | null): Frame | null {
    if (parent === null) return null;
    const element = parent.seq.items[parent.index];
    if (element.kind === "repeat") {
      // past `min`, an unbounded repeat's count no longer matters: keep it there, so that frames stay finite
      const reps = element.max === Infinity ? Math.min(parent.reps + 1, element.min) : parent.reps + 1;
      return frame(parent.seq, parent.index, reps, parent.parent);
    }
    return frame(parent.seq, parent.index + 1, 0, parent.parent);
  }
}
