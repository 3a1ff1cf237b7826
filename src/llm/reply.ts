/**
 * The agent's reply format: exactly one fenced ```bash block holding the next command, or — once
 * results.json is written — a line with DONE alone and no command. Anything else is a format error that is
 * explained back to the agent and costs a step.
 *
 * @module
 */

export type AgentReply =
  | { kind: "command"; command: string }
  | { kind: "done" }
  | { kind: "invalid"; reason: string };

/** Longest command accepted. */
export const MAX_COMMAND = 64 << 10;

const FENCE = /^```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
const SHELLS = new Set(["", "bash", "sh", "shell", "console"]);

export function parseReply(text: string): AgentReply {
  const blocks = [...text.matchAll(FENCE)];
  const commands = blocks.filter((b) => SHELLS.has(b[1]!.toLowerCase())).map((b) => b[2]!.replace(/\n$/, ""));
  const outside = text.replace(FENCE, "");
  const done = outside.split("\n").some((l) => l.trim() === "DONE");
  if (commands.length > 1) {
    return { kind: "invalid", reason: `the reply holds ${commands.length} command blocks; send exactly one` };
  }
  if (commands.length === 1) {
    if (done) {
      return {
        kind: "invalid",
        reason: "the reply holds both a command and DONE; run the command first, say DONE in a later reply",
      };
    }
    const command = commands[0]!;
    if (!command.trim()) return { kind: "invalid", reason: "the command block is empty" };
    if (command.length > MAX_COMMAND) {
      return { kind: "invalid", reason: `the command is longer than ${MAX_COMMAND} characters` };
    }
    return { kind: "command", command };
  }
  if (done) return { kind: "done" };
  if (/```/.test(text)) {
    return {
      kind: "invalid",
      reason: "no ```bash block was found (an unterminated fence, or another language)",
    };
  }
  return { kind: "invalid", reason: "the reply holds no ```bash block and no DONE line" };
}
