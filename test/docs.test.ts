/**
 * What a reader of the README and the guides in docs/ relies on: every relative link leads to a file (and a `#anchor`
 * to a heading of it; the results' prose and the READMEs beside the data too), lines fit 120 columns, no internal issue
 * number shows, and docs/cli.md documents every command and every flag the CLI has.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { createProgram } from "../src/cli/program.js";

const ROOT = resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** The README and the guides its "Read more" table points to: held to the width and the wording checked below. */
const GUIDES = ["README.md", ...[...read("README.md").matchAll(/^\| \[(docs\/[\w-]+\.md)\]/gm)].map((m) => m[1])];
/** Files whose links must resolve: every guide, the results' prose, and the READMEs beside the examples and data. */
const LINKED = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, "docs/results"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/results/${f}`),
  "examples/README.md",
  "models/README.md",
  "evals/bfcl/README.md",
].filter((file) => existsSync(join(ROOT, file)));

/** The text outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, ... */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) {
    const title = match[1].replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/`/g, "");
    const slug = title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Relative link targets of a Markdown file, outside code: `[text](target)`. */
function links(text: string): string[] {
  const outsideCode = prose(text).replace(/`[^`\n]*`/g, "");
  return [...outsideCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe("the README and the guides", () => {
  it.each(LINKED)("%s: every relative link resolves, anchors included", (file) => {
    const broken: string[] = [];
    for (const target of links(read(file))) {
      const [path, anchor] = target.split("#");
      const full = path ? resolve(dirname(join(ROOT, file)), decodeURIComponent(path)) : join(ROOT, file);
      if (!existsSync(full)) broken.push(`${target} (no ${relative(ROOT, full)})`);
      else if (anchor && full.endsWith(".md") && !anchors(readFileSync(full, "utf8")).has(anchor))
        broken.push(`${target} (no heading for #${anchor})`);
    }
    expect(broken).toEqual([]);
  });

  it("the README's Read more table names the guides", () => {
    expect(GUIDES.length).toBeGreaterThan(10);
  });

  it.each(GUIDES)("%s: lines fit 120 columns", (file) => {
    const long = read(file)
      .split("\n")
      .map((line, i) => ({ line: i + 1, length: line.length }))
      .filter(({ length }) => length > 120);
    expect(long, "wrap these lines at 120 characters").toEqual([]);
  });

  // the guides a user reads; docs/results/ holds records of how each figure was made, checked for links only
  it.each(GUIDES)("%s: no internal issue numbers", (file) => {
    const found = read(file)
      .split("\n")
      .filter((line) => /\bissues? #?\d+/i.test(line));
    expect(found).toEqual([]);
  });
});

describe("docs/cli.md", () => {
  const cli = read("docs/cli.md");

  async function commands(): Promise<Command[]> {
    const io = {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      env: {},
      cwd: ROOT,
      signal: new AbortController().signal,
    };
    const program = await createProgram(io, () => {});
    return program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands.map((sub) => sub) : [c]));
  }

  it("has a section for every command, and names every one of its flags", async () => {
    const missing: string[] = [];
    for (const command of await commands()) {
      const name = command.parent?.parent ? `${command.parent.name()} ${command.name()}` : command.name();
      if (!cli.includes(`## ${name}\n`)) missing.push(`## ${name}`);
      for (const option of command.options) {
        const flag = option.long;
        if (flag && flag !== "--help" && !new RegExp(`${flag}(?![\\w-])`).test(cli)) missing.push(`${name} ${flag}`);
      }
    }
    expect(missing, "add these to docs/cli.md").toEqual([]);
  });
});
