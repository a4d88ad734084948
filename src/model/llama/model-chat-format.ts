import {
  SpecialToken,
  SpecialTokensText,
  resolveChatWrapper,
  type ChatHistoryItem,
  type LlamaModel,
} from "node-llama-cpp";
import { neutralizeControlText, type ChatFormat, type ChatMessage } from "../../prompt/chat-format.js";

/**
 * LlamaText as plain text, special tokens written as their token text (so tokenizing with specials restores them).
 * The wrappers' BOS is dropped when the GGUF asks for none (`tokenizer.ggml.add_bos_token` false): SmolLM2's BOS is
 * `<|im_start|>`, and writing it made every prompt open with `<|im_start|><|im_start|>`, which its own template never
 * renders.
 */
function llamaTextToString(model: LlamaModel, text: { values: readonly unknown[] }): string {
  let out = "";
  for (const value of text.values) {
    if (value instanceof SpecialToken && value.value === "BOS" && !model.tokens.shouldPrependBosToken) continue;
    if (value instanceof SpecialToken) out += model.detokenize(model.tokenize(value.value, "builtin"), true);
    else if (value instanceof SpecialTokensText) out += value.value;
    else out += value;
  }
  return out;
}

/**
 * A {@link ChatFormat} for an architecture this package has no format of its own for: the model's own chat template
 * (its Jinja template, or node-llama-cpp's matching chat wrapper) renders the turns. Contents are neutralized like
 * the built-in formats do. Whether the rendering is append-only depends on the template (most are); when it is not,
 * the loader still answers correctly, it only re-evaluates more of the prompt. It always renders up to the model's next
 * turn: `addGenerationPrompt: false` throws.
 */
export function modelChatFormat(model: LlamaModel): ChatFormat {
  const wrapper = resolveChatWrapper(model, { warningLogs: false });
  const render = (messages: readonly ChatMessage[], addGenerationPrompt: boolean) => {
    const history: ChatHistoryItem[] = messages.map((m) => {
      const text = neutralizeControlText(m.content);
      if (m.role === "system") return { type: "system", text };
      if (m.role === "user") return { type: "user", text };
      return { type: "model", response: [text] };
    });
    if (addGenerationPrompt) history.push({ type: "model", response: [] });
    return wrapper.generateContextState({ chatHistory: history });
  };
  const probe = render([{ role: "user", content: "" }], true);
  const stops = probe.stopGenerationTriggers
    .map((trigger) => llamaTextToString(model, trigger))
    .filter((s) => s !== "");
  // The end of a model turn: the template's own marker (`<end_of_turn>`, `<|im_end|>`), else end of turn / sequence.
  const endOfTurn =
    stops.find((s) => s !== model.tokens.eosString && s.trim() === s) ??
    stops[0] ??
    model.tokens.eotString ??
    model.tokens.eosString ??
    "";
  const controlStrings = [
    ...new Set(
      [model.tokens.bosString, model.tokens.eosString, model.tokens.eotString, ...stops].filter(
        (s): s is string => !!s,
      ),
    ),
  ];
  return {
    name: `template:${wrapper.wrapperName}`,
    controlStrings,
    endOfTurn,
    render(messages, { addGenerationPrompt = true } = {}) {
      // node-llama-cpp's chat wrappers always render up to the model's next turn.
      if (!addGenerationPrompt)
        throw new TypeError(
          `chat format ${wrapper.wrapperName}: rendering without the generation prompt is not supported`,
        );
      return llamaTextToString(model, render(messages, true).contextText);
    },
  };
}
