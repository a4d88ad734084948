/** One turn of a conversation, before it is rendered into a model's chat markup. */
export interface ChatMessage {
  role: "system" | "user" | "model";
  content: string;
}

/**
 * How a model family marks turns. `render` must be append-only: rendering a conversation extended by a model turn and
 * a user turn begins with the rendering of the shorter conversation (generation prompt included), so a loader can
 * reuse its KV cache across the steps of a run.
 */
export interface ChatFormat {
  /** e.g. `gemma3`, `gemma4`. */
  readonly name: string;
  /** Strings that the tokenizer turns into control tokens; {@link neutralizeControlText} breaks them in untrusted text. */
  readonly controlStrings: readonly string[];
  /** Text that ends a model turn (a loader stops generation on it). */
  readonly endOfTurn: string;
  /** Render the conversation; with `addGenerationPrompt` (default true) the text ends where the model writes next. */
  render(messages: readonly ChatMessage[], options?: { addGenerationPrompt?: boolean }): string;
  /**
   * Optional: render user and model turns as they continue a conversation, so that `render(a.concat(b))` equals
   * `render(a, { addGenerationPrompt: false }) + renderContinuation(b)` for any `a` and any `b` without system
   * messages. A format that has it lets a long run render its prompt incrementally.
   */
  renderContinuation?(messages: readonly ChatMessage[], options?: { addGenerationPrompt?: boolean }): string;
}

/** Zero-width space: inserted after the `<` of a control-token look-alike, so it tokenizes as plain text. */
const BREAK = "\u200b";
/**
 * Anything shaped like a chat-control token, in the spellings Gemma 2/3/3n/4 vocabularies use: `<bos>`, `<eos>`,
 * `<start_of_turn>`, `<end_of_turn>`, `<|turn>`, `<turn|>`, `<|tool_call>`, `<|"|>`, `<unused12>`, `</s>`, ...
 * Matching the shape rather than a fixed list also covers control tokens of vocabularies we have not seen.
 */
const CONTROL_SHAPE = /<(?=\|?\/?[A-Za-z_"][\w"]*\|?>)/g;

/**
 * Make untrusted text (a user query, a skill result, a model's earlier reply) safe to embed in a prompt: every
 * control-token look-alike gets a zero-width space after its `<`, so no tokenizer can read it as a control token.
 * Visible text is unchanged; the operation is idempotent.
 */
export function neutralizeControlText(text: string): string {
  return text.replace(CONTROL_SHAPE, `<${BREAK}`);
}

function renderTurns(
  messages: readonly ChatMessage[],
  addGenerationPrompt: boolean,
  open: (role: "user" | "model" | "system") => string,
  close: string,
): string {
  let out = "";
  for (const m of messages) out += open(m.role) + neutralized(m) + close;
  return addGenerationPrompt ? out + open("model") : out;
}

/** Each message's text with control strings broken, computed once per message object (a run renders its history every step). */
const NEUTRALIZED = new WeakMap<ChatMessage, { content: string; text: string }>();

function neutralized(message: ChatMessage): string {
  const cached = NEUTRALIZED.get(message);
  if (cached?.content === message.content) return cached.text;
  const text = neutralizeControlText(message.content);
  NEUTRALIZED.set(message, { content: message.content, text });
  return text;
}

/**
 * Gemma 2 / 3 / 3n turns: `<start_of_turn>user ... <end_of_turn>`. There is no system role: the system text opens the
 * first user turn, separated by a blank line (as Gemma's own chat template does).
 */
export const gemma3ChatFormat: ChatFormat = {
  name: "gemma3",
  controlStrings: ["<bos>", "<eos>", "<pad>", "<start_of_turn>", "<end_of_turn>", "<start_of_image>", "<end_of_image>"],
  endOfTurn: "<end_of_turn>",
  render(messages, { addGenerationPrompt = true } = {}) {
    const merged: ChatMessage[] = [];
    let pendingSystem: string | undefined;
    for (const m of messages) {
      if (m.role === "system")
        pendingSystem = pendingSystem === undefined ? m.content : `${pendingSystem}\n\n${m.content}`;
      else if (m.role === "user" && pendingSystem !== undefined) {
        merged.push({ role: "user", content: `${pendingSystem}\n\n${m.content}` });
        pendingSystem = undefined;
      } else merged.push(m);
    }
    if (pendingSystem !== undefined) merged.push({ role: "user", content: pendingSystem });
    return "<bos>" + renderTurns(merged, addGenerationPrompt, gemma3Open, "<end_of_turn>\n");
  },
  renderContinuation(messages, { addGenerationPrompt = true } = {}) {
    return renderTurns(messages, addGenerationPrompt, gemma3Open, "<end_of_turn>\n");
  },
};

function gemma3Open(role: ChatMessage["role"]): string {
  return `<start_of_turn>${role === "model" ? "model" : "user"}\n`;
}

/**
 * Gemma 4 turns: `<|turn>system ... <turn|>`, with a real system role. Reasoning (the `<|think|>` switch in the system
 * turn) stays off: the agent loop wants one action JSON per turn, and thinking tokens would only slow small models.
 */
export const gemma4ChatFormat: ChatFormat = {
  name: "gemma4",
  controlStrings: [
    "<bos>",
    "<eos>",
    "<pad>",
    "<|turn>",
    "<turn|>",
    "<|think|>",
    "<|channel>",
    "<channel|>",
    "<|tool>",
    "<tool|>",
    "<|tool_call>",
    "<tool_call|>",
    "<|tool_response>",
    "<tool_response|>",
    '<|"|>',
  ],
  endOfTurn: "<turn|>",
  render(messages, { addGenerationPrompt = true } = {}) {
    return "<bos>" + renderTurns(messages, addGenerationPrompt, gemma4Open, "<turn|>\n");
  },
  renderContinuation(messages, { addGenerationPrompt = true } = {}) {
    return renderTurns(messages, addGenerationPrompt, gemma4Open, "<turn|>\n");
  },
};

function gemma4Open(role: ChatMessage["role"]): string {
  return `<|turn>${role}\n`;
}

/** The chat formats this package renders itself, by GGUF architecture. Others fall back to the model's own template. */
export function chatFormatForArchitecture(architecture: string): ChatFormat | undefined {
  if (architecture === "gemma4") return gemma4ChatFormat;
  if (architecture === "gemma3" || architecture === "gemma3n" || architecture === "gemma2" || architecture === "gemma")
    return gemma3ChatFormat;
  return undefined;
}
