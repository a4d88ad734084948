import { CodedError } from "../coded-error.js";

/**
 * The known sections of a SOUL.md file, by key, with the heading the system prompt gives them, in the order it
 * renders them (whatever their order in the file).
 */
export const SOUL_SECTIONS = [
  { key: "name_and_role", heading: "Name & Role" },
  { key: "personality", heading: "Personality" },
  { key: "rules", heading: "Rules" },
  { key: "tools", heading: "Tools" },
  { key: "output_format", heading: "Output format" },
  { key: "handoffs", heading: "Handoffs" },
] as const;

/** The key of a known SOUL.md section. */
export type SoulSectionKey = (typeof SOUL_SECTIONS)[number]["key"];

/** One `## ` section of a SOUL.md file. */
export interface SoulSection {
  /** The heading as written (without `## `). */
  heading: string;
  /** The known section it is, or undefined for a section of the author's own (kept verbatim). */
  key?: SoulSectionKey;
  /** The text under the heading, blank lines at its ends removed. */
  body: string;
  /** 1-based line of the heading. */
  line: number;
}

/** An agent's identity, parsed from a SOUL.md file (see {@link parseSoul}). */
export interface Soul {
  /** Every section, in file order. */
  readonly sections: readonly SoulSection[];
  /** Text before the first section (a title, a comment); kept, not rendered. */
  readonly preamble: string;
  /** Skill names listed as bullets under `## Tools`: they scope the registry when a definition gives no `tools`. */
  readonly tools: readonly string[];
  /** Entries listed as bullets under `## Handoffs`: other agents (a name or a definition file) it may delegate to. */
  readonly handoffs: readonly string[];
  /** Where it was read from, when it came from a file. */
  readonly source?: string;
}

/** Why a SOUL.md file was refused. */
export type SoulErrorCode = "no_sections" | "repeated_section" | "not_found" | "unreadable";

/** A SOUL.md file that cannot be used; the message names the file and, where there is one, the line. */
export class SoulError extends CodedError<SoulErrorCode> {
  override readonly name = "SoulError";
  constructor(
    code: SoulErrorCode,
    message: string,
    readonly path?: string,
    readonly line?: number,
  ) {
    super(code, message);
  }
}

const H2 = /^##(?!#)\s*(.*?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;
const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;

/** `Name and Role`, `name & role`, `NAME &  ROLE` → the same key. */
function normalizeHeading(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/\band\b/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

function knownKey(heading: string): SoulSectionKey | undefined {
  const normalized = normalizeHeading(heading);
  return SOUL_SECTIONS.find((s) => normalizeHeading(s.heading) === normalized)?.key;
}

/** The first word of each bullet (backticks and a trailing `:` dropped): a skill name, an agent name or a file. */
function bulletEntries(body: string): string[] {
  const entries: string[] = [];
  for (const line of body.split("\n")) {
    const item = BULLET.exec(line)?.[1]?.trim();
    if (!item) continue;
    const first = /^`([^`]+)`|^(\S+)/.exec(item);
    const entry = (first?.[1] ?? first?.[2] ?? "").replace(/[:,;]$/, "");
    if (entry) entries.push(entry);
  }
  return entries;
}

/** Lines without blank lines at either end. */
function trimBlankLines(lines: string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim() === "") start++;
  while (end > start && lines[end - 1].trim() === "") end--;
  return lines.slice(start, end).join("\n");
}

/** Where the file's `## ` headings are (not those inside fenced code blocks). */
function headingLines(lines: readonly string[]): number[] {
  const found: number[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const opened = FENCE.exec(line)?.[1];
    if (opened) fence = fence === undefined ? opened : fence === opened ? undefined : fence;
    else if (fence === undefined && H2.test(line)) found.push(i);
  });
  return found;
}

/**
 * Parse a SOUL.md text: its `## ` sections (Name & Role, Personality, Rules, Tools, Output format, Handoffs, in any
 * order; missing ones allowed; others kept verbatim). A text with no `## ` section at all, or with a section twice,
 * throws {@link SoulError} naming the line. `source` names the file in messages.
 */
export function parseSoul(text: string, options: { source?: string } = {}): Soul {
  const where = options.source ?? "SOUL.md";
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const starts = headingLines(lines);
  if (starts.length === 0)
    throw new SoulError(
      "no_sections",
      `${where}: no "## " section found; write the identity under headings: ${SOUL_SECTIONS.map((s) => `## ${s.heading}`).join(", ")}`,
      options.source,
    );
  const sections: SoulSection[] = [];
  const seen = new Map<string, number>();
  starts.forEach((start, i) => {
    const heading = H2.exec(lines[start])![1];
    const line = start + 1;
    const normalized = normalizeHeading(heading);
    const first = seen.get(normalized);
    if (first !== undefined)
      throw new SoulError(
        "repeated_section",
        `${where}:${line}: the section "## ${heading}" appears a second time (first at line ${first}); merge the two`,
        options.source,
        line,
      );
    seen.set(normalized, line);
    const body = trimBlankLines(lines.slice(start + 1, starts[i + 1] ?? lines.length));
    sections.push({ heading, body, line, ...(knownKey(heading) && { key: knownKey(heading) }) });
  });
  const bodyOf = (key: SoulSectionKey) => sections.find((s) => s.key === key)?.body ?? "";
  return {
    sections,
    preamble: trimBlankLines(lines.slice(0, starts[0])),
    tools: bulletEntries(bodyOf("tools")),
    handoffs: bulletEntries(bodyOf("handoffs")),
    source: options.source,
  };
}

/** Whether `value` is a parsed {@link Soul} (and not a soul text). */
export function isSoul(value: unknown): value is Soul {
  return typeof value === "object" && value !== null && Array.isArray((value as Soul).sections);
}

/**
 * The soul as the system prompt shows it: the known sections in the fixed order (Name & Role, Personality, Rules,
 * Tools, Output format, Handoffs), then the author's own sections in file order, each under a `# ` heading; empty
 * sections and the preamble are left out.
 */
export function renderSoul(soul: Soul): string {
  const known = SOUL_SECTIONS.flatMap(({ key, heading }) => {
    const section = soul.sections.find((s) => s.key === key);
    return section ? [{ heading, body: section.body }] : [];
  });
  const own = soul.sections.filter((s) => s.key === undefined);
  return [...known, ...own]
    .filter((s) => s.body !== "")
    .map((s) => `# ${s.heading}\n${s.body}`)
    .join("\n\n");
}
