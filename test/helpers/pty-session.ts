/**
 * The built CLI in a real pseudo-terminal (util-linux `script` allocates one), typed into step by step as a person
 * would: each step waits for its text on the screen, then types.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";

const CLI = resolve("dist/cli/main.js");
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Each step waits for `until` to appear in the screen (after the previous step's text), then types `type`. */
export interface Step {
  until: string | RegExp;
  type: string;
}

/** Run the CLI under a pty and play the steps; killed after `killAfterMs`. */
export function chatSession(
  args: string[],
  steps: Step[],
  killAfterMs = 60_000,
): Promise<{ code: number | null; screen: string; typedAt: number[]; endedAt: number }> {
  return new Promise((done, fail) => {
    const command = `stty cols 120 rows 40; ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
    const { CI: _ci, npm_lifecycle_event: _npm, ...env } = process.env;
    const child = spawn("script", ["-q", "-e", "-f", "-c", command, "/dev/null"], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    let from = 0;
    let next = 0;
    const typedAt: number[] = [];
    child.stdout.on("data", (d) => {
      screen += d;
      while (next < steps.length) {
        const { until, type } = steps[next];
        const rest = screen.slice(from);
        const match = typeof until === "string" ? rest.indexOf(until) : rest.search(until);
        if (match < 0) break;
        from += match + 1;
        next++;
        typedAt.push(Date.now());
        child.stdin.write(type);
      }
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, screen, typedAt, endedAt: Date.now() });
    });
  });
}
