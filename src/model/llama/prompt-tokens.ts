import type { Token } from "node-llama-cpp";

/** What a context sequence logically holds: the text of the last prompt plus what was generated, and its tokens. */
export interface HeldContent {
  text: string;
  tokens: readonly Token[];
}

/**
 * The tokens of `prompt`, reusing the held tokens when the prompt extends the held text (an agent's append-only
 * prompt: last prompt + the model's reply + new turns). The held part keeps exactly the tokens the model generated,
 * and only the new text is tokenized, so the KV cache matches and nothing is evaluated twice; re-tokenizing the reply
 * could merge its tokens differently and force an erase. Otherwise the whole prompt is tokenized.
 */
export function promptTokens(
  prompt: string,
  held: HeldContent,
  tokenize: (text: string) => Token[],
  bos?: Token,
): Token[] {
  if (held.tokens.length > 0 && prompt.startsWith(held.text)) {
    const rest = prompt.slice(held.text.length);
    return rest === "" ? held.tokens.slice() : [...held.tokens, ...tokenize(rest)];
  }
  return withBos(tokenize(prompt), bos);
}

/**
 * A whole prompt's tokens with `bos` first, unless they already start with it (a chat format that writes `<bos>`) or
 * the model asks for none (`bos` undefined). Without the BOS it was trained with, Gemma 3 270M answered
 * "Question: What is the capital of France?\nAnswer:" with "\nAnswer:\nAnswer:..." instead of " Paris".
 */
export function withBos(tokens: Token[], bos: Token | undefined): Token[] {
  return bos === undefined || tokens[0] === bos ? tokens : [bos, ...tokens];
}

/** Length of the common prefix of two token lists. */
export function commonPrefixLength(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
