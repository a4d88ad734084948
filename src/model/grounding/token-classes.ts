import type { Token } from "./token.js";

/** What classifying needs of a model's vocabulary: node-llama-cpp's LlamaModel has it as it is. */
export interface TokenVocabulary {
  iterateAllTokens(): Iterable<Token>;
  isEogToken(token: Token): boolean;
  detokenize(tokens: readonly Token[], specialTokens?: boolean): string;
  getTokenAttributes(token: Token): { readonly unknown: boolean };
}

/** Token sets the loader needs, computed once per model by looking at every token of the vocabulary. */
export interface TokenClasses {
  vocabularySize: number;
  /**
   * Tokens never sampled: those whose text is empty (`<pad>`, `<mask>`, `<unusedN>`, image markers, `<start_of_turn>`)
   * and unknown-token markers, end-of-generation tokens excepted. An empty token passes any grammar without moving
   * it, so a model can spin on it; and a turn marker written by the model would forge a turn.
   */
  banned: Token[];
  /** Tokens that end a JSON string and maybe containers (`"`, `"}`, `"]}`): favoured to wrap up inside a string. */
  stringClosers: Token[];
  /**
   * Tokens that end a JSON string and may go on with the punctuation that follows a value (`"`, `",`, `","`, `"}`):
   * the grounding bias closes a value with all of them alike, so that what follows (another property, or the end of
   * the object) stays the model's choice. Favouring `"` and `"}` alone dropped the remaining optional properties.
   */
  stringEnds: Token[];
  /** Tokens that end a number the same way (`,`, `,"`, `}`, `]}`): see stringEnds. */
  numberEnds: Token[];
  /** Tokens made only of `}` and `]`: favoured to wrap up between JSON values. */
  containerClosers: Token[];
  /** The `,` token(s): favoured less, to move on to the next required property when nothing can close yet. */
  separators: Token[];
  /**
   * The tokens of each token text, for the grounding bias's lookups of source pieces: several tokens can share one
   * text (a byte-fallback `<0x32>` and `2`), and the bias must reach the one the model would write.
   */
  byText: ReadonlyMap<string, readonly Token[]>;
  /** The longest token text in characters (at most 32: longer ones are not looked up). */
  maxTokenChars: number;
}

/** Token texts longer than this are not looked up by the grounding bias (a copied piece is rarely one token). */
const MAX_LOOKUP_CHARS = 32;
const STRING_CLOSER = /^"[}\]]*$/;
const CONTAINER_CLOSER = /^[}\]]+$/;
/** A string's closing quote, then only what may follow a value (no `:`). */
const STRING_END = /^"[\s,{}[\]"]*$/;
/** What ends a number: a separator or a container's close, then only what may follow. */
const NUMBER_END = /^[,}\]][\s,{}[\]"]*$/;

/**
 * Whether a token's text ends a JSON string (`"`, `",`, `","`, `"}`) or a number (`,`, `,"`, `}`, `]}`) and goes on only
 * with what may follow a value; else undefined (`":` ends a key, not a value).
 */
export function valueEndKind(text: string): "string" | "number" | undefined {
  if (STRING_END.test(text)) return "string";
  return NUMBER_END.test(text) ? "number" : undefined;
}

/** Classify every token of `model`'s vocabulary (a few hundred ms for Gemma's 262,144 tokens). */
export function classifyTokens(model: TokenVocabulary): TokenClasses {
  const banned: Token[] = [];
  const stringClosers: Token[] = [];
  const stringEnds: Token[] = [];
  const numberEnds: Token[] = [];
  const containerClosers: Token[] = [];
  const separators: Token[] = [];
  const byText = new Map<string, Token[]>();
  let maxTokenChars = 0;
  let vocabularySize = 0;
  for (const token of model.iterateAllTokens()) {
    vocabularySize++;
    if (model.isEogToken(token)) continue;
    const text = model.detokenize([token], false);
    if (text !== "" && text.length <= MAX_LOOKUP_CHARS) {
      const same = byText.get(text);
      if (same) same.push(token);
      else byText.set(text, [token]);
      maxTokenChars = Math.max(maxTokenChars, text.length);
    }
    if (text === "" || model.getTokenAttributes(token).unknown) {
      banned.push(token);
      continue;
    }
    const ends = valueEndKind(text);
    if (ends === "string") stringEnds.push(token);
    else if (ends === "number") numberEnds.push(token);
    if (STRING_CLOSER.test(text)) stringClosers.push(token);
    else if (CONTAINER_CLOSER.test(text)) containerClosers.push(token);
    else if (text === ",") separators.push(token);
  }
  return {
    vocabularySize,
    banned,
    stringClosers,
    stringEnds,
    numberEnds,
    containerClosers,
    separators,
    byText,
    maxTokenChars,
  };
}
