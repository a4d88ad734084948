import { neutralizeControlText, type ChatFormat, type ChatMessage } from "../../prompt/chat-format.js";

/** A chat message as the OpenAI protocol (and Ollama's) sends it. */
export interface ServerMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** The first line of a prompt rendered by {@link messagesChatFormat}. */
const HEADER = "gemma-agent:messages\n";

function encode(messages: readonly ChatMessage[]): string {
  let out = "";
  for (const m of messages) out += `${JSON.stringify({ role: m.role, content: neutralizeControlText(m.content) })}\n`;
  return out;
}

/**
 * The chat format of a server that applies its own chat template: the agent's turns are carried to the handle as
 * JSON lines (one message each, under a header), which the handle sends as `messages`. Append-only, as every chat
 * format: a run's prompt grows by lines. Contents are neutralized like the Gemma formats do, since a server renders
 * them with its template and may read control-token look-alikes as control tokens.
 */
export const messagesChatFormat: ChatFormat = {
  name: "messages",
  controlStrings: [],
  endOfTurn: "",
  render: (messages) => HEADER + encode(messages),
  renderContinuation: (messages) => encode(messages),
};

/**
 * The messages of a prompt rendered by {@link messagesChatFormat}; any other prompt (a caller's plain text) is one
 * user message. The model's turns become `assistant` messages.
 */
export function decodeMessages(prompt: string): ServerMessage[] {
  if (!prompt.startsWith(HEADER)) return [{ role: "user", content: prompt }];
  const messages: ServerMessage[] = [];
  for (const line of prompt.slice(HEADER.length).split("\n")) {
    if (line === "") continue;
    const m = JSON.parse(line) as ChatMessage;
    messages.push({ role: m.role === "model" ? "assistant" : m.role, content: m.content });
  }
  return messages;
}
