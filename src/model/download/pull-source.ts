import { loadCatalog, lookupCatalogSpec, type Catalog, type CatalogEntry, type CatalogFile } from "../catalog.js";
import { DownloadError } from "../errors.js";
import { hfEndpoint, hfUriToUrl, parseHfUri } from "./hf-uri.js";

/** What `pullModel` downloads, where from, and what the catalog knows about it. */
export interface PullSource {
  /** The http(s) URL the bytes come from. */
  url: string;
  /** The name the file gets in the models directory. */
  fileName: string;
  /** True for an alias or an `hf:` URI: the request goes to the Hugging Face endpoint (and may carry `HF_TOKEN`). */
  huggingFace: boolean;
  /** The catalog entry and file, when the source is an alias or a catalog `hf:` URI. */
  entry?: CatalogEntry;
  file?: CatalogFile;
}

/**
 * Turns a pull source into a URL and a file name:
 * - an alias (`gemma-4-e2b`, `gemma-4-e2b:Q8_0`) → its catalog file's `hf:` URI;
 * - `hf:owner/repo/file.gguf` → `<GEMMA_AGENT_HF_ENDPOINT or https://huggingface.co>/owner/repo/resolve/main/file.gguf`;
 * - `https://…` or `http://…` → itself, named after the last path segment (or `fileName`).
 * Throws `DownloadError("bad_source")` for anything else, with what would have been accepted.
 */
export function resolvePullSource(
  source: string,
  options: { catalog?: Catalog; fileName?: string; env?: NodeJS.ProcessEnv } = {},
): PullSource {
  const trimmed = source.trim();
  const catalog = options.catalog ?? loadCatalog();
  const env = options.env ?? process.env;
  if (/^https?:\/\//i.test(trimmed)) return fromUrl(trimmed, options.fileName);
  if (trimmed.startsWith("hf:")) return fromHfUri(trimmed, catalog, options.fileName, env);
  return fromAlias(trimmed, catalog, options.fileName, env);
}

function fromUrl(source: string, fileName: string | undefined): PullSource {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new DownloadError("bad_source", `"${source}" is not a valid URL.`);
  }
  const lastSegment = url.pathname.split("/").pop() ?? "";
  let decoded: string;
  try {
    decoded = decodeURIComponent(lastSegment);
  } catch {
    decoded = lastSegment;
  }
  return { url: url.href, fileName: checkFileName(fileName ?? decoded, source), huggingFace: false };
}

function fromHfUri(source: string, catalog: Catalog, fileName: string | undefined, env: NodeJS.ProcessEnv): PullSource {
  const uri = parseHfUri(source);
  if (!uri)
    throw new DownloadError("bad_source", `"${source}" is not a valid hf: URI; expected hf:<owner>/<repo>/<file>.gguf`);
  const match = catalog.models
    .flatMap((entry) => entry.files.map((file) => ({ entry, file })))
    .find(({ file }) => file.uri === source);
  return {
    url: hfUriToUrl(uri, { endpoint: endpoint(env), revision: match?.file.revision }),
    fileName: checkFileName(fileName ?? uri.fileName, source),
    huggingFace: true,
    ...match,
  };
}

function fromAlias(source: string, catalog: Catalog, fileName: string | undefined, env: NodeJS.ProcessEnv): PullSource {
  const found = lookupCatalogSpec(source, catalog);
  if ("missing" in found) {
    throw new DownloadError(
      "bad_source",
      found.missing === "alias"
        ? `Cannot pull "${source}": not a catalog alias (known: ${found.knownAliases}), an hf:<owner>/<repo>/<file>.gguf URI, or an http(s) URL.`
        : found.message,
    );
  }
  const { entry, file } = found;
  const uri = parseHfUri(file.uri)!;
  return {
    url: hfUriToUrl(uri, { endpoint: endpoint(env), revision: file.revision }),
    fileName: checkFileName(fileName ?? file.fileName, source),
    huggingFace: true,
    entry,
    file,
  };
}

function endpoint(env: NodeJS.ProcessEnv): string {
  try {
    return hfEndpoint(env);
  } catch (error) {
    throw new DownloadError("bad_source", (error as Error).message, { cause: error });
  }
}

/** A file name that stays inside the models directory and is listed as a model: no separators, ends in `.gguf`. */
function checkFileName(fileName: string, source: string): string {
  // eslint-disable-next-line no-control-regex
  if (!fileName || fileName === "." || fileName === ".." || /[\\/\u0000-\u001f]/.test(fileName)) {
    throw new DownloadError("bad_source", `"${source}" does not end in a usable file name.`);
  }
  if (!fileName.toLowerCase().endsWith(".gguf")) {
    throw new DownloadError("bad_source", `"${source}" does not name a .gguf file (got "${fileName}").`);
  }
  return fileName;
}
