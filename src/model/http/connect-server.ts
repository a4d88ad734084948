import { gemma3ChatFormat, gemma4ChatFormat, type ChatFormat } from "../../prompt/chat-format.js";
import { detectDialect, listServerModels, probe, type ProbeTarget } from "./detect-dialect.js";
import { DIALECTS, type DialectOption, type ServerDialect } from "./dialects.js";
import { HttpModelError } from "./http-model-error.js";
import { serverRoot } from "./server-url.js";

/** What the handle learned of its server, once. */
export interface ServerConnection {
  dialect: ServerDialect;
  /** How the dialect was chosen: the answer that decided, or `given` when the options named it. */
  detectedBy: string;
  /** The model name requests carry. */
  model: string;
  /** The models the server lists (undefined: it lists none). */
  models?: readonly string[];
  /** llama-server: the context of one slot, in tokens. */
  contextSize?: number;
  /** llama-server: its parallel slots (how many requests it decodes at once). */
  slots?: number;
  /** llama-server: the BOS text it adds to a raw prompt itself (a rendered prompt's own is dropped). */
  bosText?: string;
  /** The Gemma chat format the server's chat template matches (`<start_of_turn>` or `<|turn>`), when it does. */
  templateFormat?: ChatFormat;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The Gemma format a chat template is written in, by its turn markers. */
function chatFormatOfTemplate(template: unknown): ChatFormat | undefined {
  if (typeof template !== "string") return undefined;
  if (template.includes("<|turn>")) return gemma4ChatFormat;
  if (template.includes("<start_of_turn>")) return gemma3ChatFormat;
  return undefined;
}

/** What `/props` says of slots, context, BOS and template. */
function fromProps(props: Record<string, unknown> | undefined): Partial<ServerConnection> {
  if (!props) return {};
  const settings = isRecord(props.default_generation_settings) ? props.default_generation_settings : {};
  const out: Partial<ServerConnection> = {};
  if (typeof settings.n_ctx === "number" && settings.n_ctx > 0) out.contextSize = settings.n_ctx;
  if (typeof props.total_slots === "number") out.slots = props.total_slots;
  if (typeof props.bos_token === "string" && props.bos_token !== "") out.bosText = props.bos_token;
  const format = chatFormatOfTemplate(props.chat_template);
  if (format) out.templateFormat = format;
  return out;
}

/** `wanted` among the listed names (Ollama's `name` also matches `name:latest`). */
function findModel(wanted: string, models: readonly string[], dialect: ServerDialect): string | undefined {
  if (models.includes(wanted)) return wanted;
  if (dialect === "ollama" && !wanted.includes(":") && models.includes(`${wanted}:latest`)) return wanted;
  return undefined;
}

/**
 * The model requests will name: the one asked for when the server lists it, the server's only model when none was
 * asked for; `unknown_model` (listing the server's models) otherwise. A llama-server serving one model answers
 * under any name, so any name is taken there.
 */
function chooseModel(wanted: string, models: readonly string[] | undefined, dialect: ServerDialect, url: string) {
  const list = models ?? [];
  if (wanted === "") {
    if (list.length === 1) return list[0];
    throw new HttpModelError(
      "unknown_model",
      list.length === 0
        ? `name the model to use after # (${url}#MODEL): the server lists none`
        : `name the model to use after # (${url}#MODEL): the server has ${list.join(", ")}`,
      { url, models: list },
    );
  }
  if (models === undefined || findModel(wanted, list, dialect) !== undefined) return wanted;
  if (dialect === "llama-server" && list.length === 1) return wanted;
  throw new HttpModelError(
    "unknown_model",
    `the model server at ${url} does not serve "${wanted}"; it lists: ${list.join(", ") || "(none)"}`,
    { url, models: list },
  );
}

/**
 * Find out, once, what the server is: its dialect (asked when `auto`), its models (and that the one asked for is
 * there), and for llama-server its slots, context, BOS and chat template (`GET /props`).
 */
export async function connectServer(
  target: ProbeTarget,
  wanted: { dialect: DialectOption; model: string },
): Promise<ServerConnection> {
  let dialect: ServerDialect;
  let detectedBy = "given";
  let props: Record<string, unknown> | undefined;
  if (wanted.dialect === "auto") {
    const detected = await detectDialect(target);
    ({ dialect, detectedBy, props } = detected);
  } else {
    dialect = wanted.dialect;
    if (DIALECTS[dialect].rawCompletion) {
      const answer = await probe(target, `${serverRoot(target.baseURL)}/props`);
      if (isRecord(answer)) props = answer;
    }
  }
  const models = await listServerModels(target, dialect);
  const model = chooseModel(wanted.model, models, dialect, target.baseURL);
  return { dialect, detectedBy, model, models, ...fromProps(props) };
}
