import { basename, isAbsolute, relative } from "node:path";

/** The name the package and its executable share. */
export const PROGRAM = "gemma-agent";

/**
 * How the user started this process, as a command prefix to put in front of a hint (`npx gemma-agent pull ...`), so
 * that every command the tool suggests can be pasted back as is:
 * - `npx gemma-agent` (or `npm exec`): npm says so in `npm_lifecycle_event`; a script of the user's own project that
 *   runs the copy in `node_modules/.bin` gets it too, since `gemma-agent` is not on their PATH;
 * - `npm start --` in this package's own folder (`npm start -- ask ...`);
 * - `node dist/cli/main.js` when a checkout's file was run directly (path relative to the working directory);
 * - `gemma-agent` otherwise (an installed or linked executable on the PATH, or an installed package's own file).
 */
export function invocation(env: NodeJS.ProcessEnv, script: string | undefined, cwd: string): string {
  if (env.npm_lifecycle_event === "npx") return `npx ${PROGRAM}`;
  if (env.npm_lifecycle_event === "start" && env.npm_package_name === PROGRAM) return "npm start --";
  if (script === undefined) return PROGRAM;
  if (/[\\/]node_modules[\\/]\.bin[\\/]/.test(script)) return `npx ${PROGRAM}`;
  // an installed package's own file: a global install run through its shim (Windows' .cmd passes the real path)
  if (/[\\/]node_modules[\\/]gemma-agent[\\/]/.test(script)) return PROGRAM;
  const name = basename(script).replace(/\.(cmd|ps1|exe)$/i, "");
  if (name === PROGRAM) return PROGRAM;
  if (/\.[cm]?js$/.test(name)) {
    const shown = isAbsolute(script) ? relative(cwd, script) : script;
    return `node ${shown.startsWith("..") || isAbsolute(shown) ? script : shown}`;
  }
  return PROGRAM;
}

/**
 * `text` with each suggested command (`gemma-agent pull ...`, `gemma-agent models`) written as `command` starts them.
 * Messages from the layers below the CLI name the program plainly; this is where they learn how it was started.
 */
export function withInvocation(text: string, command: string): string {
  if (command === PROGRAM) return text;
  // a hint already written as started (`npx gemma-agent pull`) is left alone
  const lead = command.endsWith(PROGRAM) ? command.slice(0, -PROGRAM.length) : "";
  const written = lead ? `(?<!${lead.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")})` : "";
  const pattern = new RegExp(
    `(^|[^\\w/.-])${written}${PROGRAM} (?=(ask|run|chat|agent|models|pull|inspect|doctor|eval)\\b)`,
    "g",
  );
  return text.replace(pattern, (_m, before: string) => `${before}${command} `);
}
