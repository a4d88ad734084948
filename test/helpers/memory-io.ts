import { PassThrough, Writable } from "node:stream";
import type { CliIO } from "../../src/cli/cli-io.js";

/** A writable that keeps what was written. */
class Capture extends Writable {
  text = "";
  isTTY = false;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** CLI streams in memory: stdout and stderr captured, stdin empty, not a terminal. */
export function memoryIO(
  env: NodeJS.ProcessEnv = {},
): CliIO & { out: Capture; err: Capture; controller: AbortController } {
  const out = new Capture();
  const err = new Capture();
  const controller = new AbortController();
  const stdin = new PassThrough();
  stdin.end();
  return { stdout: out, stderr: err, stdin, env, cwd: process.cwd(), signal: controller.signal, out, err, controller };
}
