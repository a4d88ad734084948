import { Help, type Command, type Option } from "commander";

/**
 * The sections of a command's `--help`, in the order they are printed. Each flag is declared in its section (see
 * {@link inSection}); the levers come last, since their defaults are the measured best and they are there to measure.
 */
export const SECTION = {
  model: "Model:",
  server: "Model server:",
  run: "Run:",
  tasks: "Tasks:",
  bfcl: "BFCL:",
  atOnce: "What runs at once:",
  output: "Output:",
  levers: "Levers, for measurements (the defaults are the measured best):",
} as const;

const ORDER: readonly string[] = Object.values(SECTION);

/** Declare the flags `add` adds in the section `heading` of the help. */
export function inSection(command: Command, heading: string, add: (command: Command) => Command): Command {
  return add(command.optionsGroup(heading)).optionsGroup("");
}

/**
 * Print the command's help in {@link SECTION}'s order, whatever order its flags were declared in (commander prints a
 * section where its first flag was declared). Anything else (`-h, --help`'s "Options:") comes after.
 */
export function sectionedHelp(command: Command): Command {
  return command.configureHelp({
    groupItems<T extends Command | Option>(unsorted: T[], visible: T[], getGroup: (item: T) => string) {
      const byGroup = getGroup as (item: Command | Option) => string;
      const groups = Help.prototype.groupItems.call(this, unsorted, visible, byGroup) as Map<string, T[]>;
      const rank = (heading: string) => (ORDER.includes(heading) ? ORDER.indexOf(heading) : ORDER.length);
      return new Map([...groups].sort(([a], [b]) => rank(a) - rank(b)));
    },
  });
}
