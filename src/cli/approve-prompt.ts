import type { ApprovalDecision, ApprovalHook } from "../skills/guards.js";
import type { CliIO } from "./cli-io.js";
import { askQuestion } from "./terminal-question.js";

/**
 * `--approve`: before each call, ask on the terminal: y (run it), n (deny; the model is told), e (edit the arguments
 * as JSON; they are validated again before the call runs). No answer (end of input, Ctrl-C) denies.
 */
export function terminalApprover(io: CliIO, beforeAsk: () => void = () => {}): ApprovalHook {
  return async (call): Promise<ApprovalDecision> => {
    beforeAsk();
    for (;;) {
      const reply = (
        await askQuestion(io, `Run ${call.skillName} ${JSON.stringify(call.arguments)}? [y]es / [n]o / [e]dit: `)
      )?.toLowerCase();
      if (reply === undefined) return { decision: "deny", reason: "no answer from the user" };
      if (reply === "y" || reply === "yes") return "allow";
      if (reply === "n" || reply === "no") return { decision: "deny", reason: "the user said no" };
      if (reply === "e" || reply === "edit") {
        const text = await askQuestion(io, "New arguments (JSON): ");
        if (text === undefined) return { decision: "deny", reason: "no answer from the user" };
        try {
          const value: unknown = JSON.parse(text);
          if (typeof value === "object" && value !== null && !Array.isArray(value))
            return { decision: "correct", arguments: value as Record<string, unknown> };
        } catch {
          // fall through to asking again
        }
        io.stderr.write("That is not a JSON object; try again.\n");
      }
    }
  };
}
