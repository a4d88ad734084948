/* Reading a download server's answer: its status, its Content-Range and Content-Length, and dropping its body. */

/** A Content-Range header (`bytes 100-199/1000`, or `bytes` star `/1000` in a 416 answer) → its start and total. */
export function parseContentRange(header: string | null): { start?: number; total?: number } | undefined {
  const match = header?.trim().match(/^bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)$/i);
  if (!match) return undefined;
  return {
    start: match[1] === undefined ? undefined : Number(match[1]),
    total: match[3] === "*" ? undefined : Number(match[3]),
  };
}

/** Drops the rest of a response's body (the connection is then free), ignoring a failure to. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** What an error status most likely means for a model pull, as a clause to append; "" when nothing helps. */
export function httpErrorHint(status: number, tokenSent: boolean): string {
  if (status === 404) return " (no such file: check the alias, URI or URL)";
  if ((status === 401 || status === 403) && tokenSent)
    return ": the Hugging Face token in HF_TOKEN was refused for this repository (check the token, and accept the model's licence on its page)";
  if (status === 401 || status === 403)
    return ": the repository is gated or private (accept the model's licence on its Hugging Face page, then set HF_TOKEN to an access token)";
  return "";
}

/** The whole file's size a 200 answer announces (Content-Length of an unencoded body), or undefined. */
export function announcedLength(response: Response): number | undefined {
  const length = Number(response.headers.get("content-length") ?? NaN);
  const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
  return Number.isSafeInteger(length) && !encoded ? length : undefined;
}
