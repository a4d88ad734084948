import { DOWNLOAD_TIMEOUT_ENV } from "./defaults.js";

/** A network failure in words: what happened and what to do about it, with the raw code kept for searching. */
export interface NetworkFailure {
  what: string;
  hint: string;
  /** The error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, …), when there is one. */
  code?: string;
}

const TLS_CODES = /^(CERT_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|ERR_TLS_|ERR_SSL_)/;

/** What to do when the bytes so far are kept: the next pull resumes them. */
const RESUME = "pull again: the download resumes where it stopped";
const TIMED_OUT = { what: "the connection timed out", hint: "check your network, firewall or proxy, then pull again" };
const CLOSED = { what: "the server closed the connection", hint: RESUME };

/** The words for each code Node's fetch (undici) and the resolver give. */
const FAILURES: Readonly<Record<string, Omit<NetworkFailure, "code">>> = {
  ECONNREFUSED: {
    what: "the connection was refused: no server is listening at that address and port",
    hint: "check the address and port (and GEMMA_AGENT_HF_ENDPOINT if you set it), or whether you need a proxy",
  },
  ENOTFOUND: {
    what: "the host name could not be found",
    hint: "check that you are online and that the host name is right",
  },
  EAI_AGAIN: {
    what: "the host name could not be looked up (DNS did not answer)",
    hint: "check that you are online, then pull again",
  },
  ETIMEDOUT: TIMED_OUT,
  UND_ERR_CONNECT_TIMEOUT: TIMED_OUT,
  ENETUNREACH: { what: "the network is unreachable", hint: "check that you are online" },
  EHOSTUNREACH: { what: "the host is unreachable", hint: "check that you are online, and your firewall or proxy" },
  ECONNRESET: CLOSED,
  EPIPE: CLOSED,
  UND_ERR_SOCKET: CLOSED,
  UND_ERR_CLOSED: { what: "the connection was closed", hint: RESUME },
  UND_ERR_HEADERS_TIMEOUT: { what: "the server stopped answering", hint: "pull again later" },
  UND_ERR_BODY_TIMEOUT: { what: "the server stopped sending data", hint: RESUME },
};

/**
 * Node's fetch (as browsers do) never connects to the ports the Fetch standard blocks (9, 25, 6000, ...: ports of
 * other protocols) and says only "bad port".
 */
const BLOCKED_PORT: NetworkFailure = {
  what: "fetch never connects to that port (the Fetch standard blocks it, as browsers do: it belongs to another protocol)",
  hint: "serve the file on another port, 8080 for one",
};

/** The error code of a failed fetch: on the error, its cause, or the first of an AggregateError's errors. */
function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const candidate = current as { code?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof candidate.code === "string") return candidate.code;
    current = candidate.cause ?? candidate.errors?.[0];
  }
  return undefined;
}

/** The innermost message of an error chain (`fetch failed` says nothing; its cause does). */
function innermostMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 4; depth++) {
    const cause = (current as { cause?: unknown } | undefined)?.cause;
    if (!(cause instanceof Error) || cause.message === "") break;
    message = cause.message;
    current = cause;
  }
  return message;
}

/**
 * What a failed request or transfer means for the user, in words (`the server closed the connection`), with what to do
 * (`pull again: the download resumes where it stopped`) and the raw code. An unknown failure keeps its own message.
 */
export function describeNetworkFailure(error: unknown): NetworkFailure {
  const code = codeOf(error);
  if (code !== undefined && Object.hasOwn(FAILURES, code)) return { ...FAILURES[code], code };
  if (code === undefined && innermostMessage(error) === "bad port") return BLOCKED_PORT;
  if (code !== undefined && TLS_CODES.test(code)) {
    return {
      what: "the server's TLS certificate could not be verified",
      hint: "behind a proxy that inspects HTTPS, point NODE_EXTRA_CA_CERTS at its certificate",
      code,
    };
  }
  return {
    what: innermostMessage(error),
    hint: "check your network, then pull again",
    code,
  };
}

/** `60 s`, `1.5 s`. */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What {@link transferFailureText} needs to know of a failed pull. */
export interface TransferFailure {
  error: unknown;
  /** `connect`: no answer had come yet; `transfer`: the body was streaming. */
  stage: "connect" | "transfer";
  host: string;
  /** Bytes on disk (a resumed `.part` included). */
  received: number;
  /** The sentence saying where those bytes are kept and that a pull resumes them; `""` when none are. */
  kept: string;
  /** True when the pull gave up because nothing came for `stallTimeoutMs`. */
  stalled: boolean;
  stallTimeoutMs: number;
}

/**
 * The message of a pull that failed on the network: what happened in words (a silent server, a stalled transfer, a
 * refused or closed connection), then what to do; the raw code in parentheses, never alone.
 */
export function transferFailureText(f: TransferFailure): string {
  if (f.stalled) {
    const seconds = formatSeconds(f.stallTimeoutMs);
    return f.stage === "connect"
      ? `No answer from ${f.host} in ${seconds}: the request went out but nothing came back. Check your network or proxy (a proxy needs NODE_USE_ENV_PROXY=1, see docs/models.md), then pull again; ${DOWNLOAD_TIMEOUT_ENV}=<seconds> waits longer.${f.kept}`
      : `No data from ${f.host} for ${seconds}, after ${f.received} bytes: the transfer stalled.${f.kept || " Pull again."}`;
  }
  const failure = describeNetworkFailure(f.error);
  const where =
    f.stage === "connect"
      ? `Could not download from ${f.host}`
      : `The download from ${f.host} broke off after ${f.received} bytes`;
  // once bytes are kept, what to do is to pull again (the .part resumes); before any, the failure's own advice
  const next = f.stage === "transfer" && f.kept ? f.kept : ` ${capitalize(failure.hint)}.${f.kept}`;
  return `${where}: ${failure.what}${failure.code ? ` (${failure.code})` : ""}.${next}`;
}
