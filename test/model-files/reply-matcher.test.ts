/**
 * The reply's grammar position that candidate sampling and jump-forward share, over a made-up vocabulary: whole
 * tokens, and a character split over two byte tokens (its first byte alone detokenizes to U+FFFD, as node-llama-cpp
 * gives it).
 */
import type { Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { ReplyMatcher, TokenTexts } from "../../src/model/decoding/reply-matcher.js";

const VOCAB = ['{"', "name", '":"', "Zo", "é", "<0xC3>", "<0xA9>", '"}', "}", "", "x", '"x'];
const id = (text: string): Token => {
  const token = VOCAB.indexOf(text);
  if (token < 0) throw new Error(`no token ${text}`);
  return token as Token;
};

/** Detokenize: byte tokens join into UTF-8; a trailing lone first byte is U+FFFD. */
function detokenize(tokens: readonly Token[]): string {
  const bytes: number[] = [];
  for (const token of tokens) {
    const text = VOCAB[token];
    const byte = /^<0x([0-9A-F]{2})>$/.exec(text);
    if (byte) bytes.push(Number.parseInt(byte[1], 16));
    else bytes.push(...new TextEncoder().encode(text));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

const GRAMMAR = parseGbnf(String.raw`root ::= "{\"name\":\"" [^"\\]* "\"}"`);
const reply = () => new ReplyMatcher(new GbnfMatcher(GRAMMAR), new TokenTexts(detokenize));

describe("ReplyMatcher", () => {
  it("allows what the grammar allows next, and takes it", () => {
    const r = reply();
    expect([id('{"'), id("name"), id("}")].map((t) => r.allows(t))).toEqual([true, false, false]);
    expect(r.take(id('{"'))).toBe('{"');
    expect(r.take(id("name"))).toBe("name");
    expect(r.take(id('":"'))).toBe('":"');
    expect(r.complete).toBe(false);
    // inside the string `}` is content; a quote closes it, and only `}` may follow
    expect([id("Zo"), id('"}'), id("}"), id('"x')].map((t) => r.allows(t))).toEqual([true, true, true, false]);
    r.take(id('"}'));
    expect([r.complete, r.finished]).toEqual([true, true]);
  });

  it("an empty token is never allowed (it would not move the grammar)", () => {
    const r = reply();
    r.take(id('{"'));
    expect(r.allows(id(""))).toBe(false);
  });

  it("a first byte of a character is allowed inside the string, held, and whole with its second byte", () => {
    const r = reply();
    expect(r.allows(id("<0xC3>"))).toBe(false); // outside a string no multi-byte character may come
    for (const text of ['{"', "name", '":"']) r.take(id(text));
    expect(r.allows(id("<0xC3>"))).toBe(true);
    expect(r.take(id("<0xC3>"))).toBe("");
    expect([r.midCharacter, r.complete]).toEqual([true, false]);
    expect(r.allows(id("<0xA9>"))).toBe(true);
    expect(r.take(id("<0xA9>"))).toBe("é");
    expect(r.midCharacter).toBe(false);
    expect(r.take(id('"}'))).toBe('"}');
    expect(r.finished).toBe(true);
  });

  it("a token the grammar does not allow loses the matcher: nothing is allowed after it", () => {
    const r = reply();
    expect(r.take(id("x"))).toBeUndefined();
    expect(r.active).toBe(false);
    expect(r.allows(id('{"'))).toBe(false);
  });
});
