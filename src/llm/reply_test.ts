import { deepEqual } from "node:assert/strict";
import { parseReply } from "./reply.ts";

Deno.test("parseReply() takes the one bash block as the command, note or not", () => {
  deepEqual(parseReply("Listing first.\n```bash\nls -la\n```\n"), { kind: "command", command: "ls -la" });
  deepEqual(parseReply("```sh\ncat <<'EOF' > a.py\nprint(1)\nEOF\n```"), {
    kind: "command",
    command: "cat <<'EOF' > a.py\nprint(1)\nEOF",
  });
  deepEqual(parseReply("```\necho untagged\n```"), { kind: "command", command: "echo untagged" });
});

Deno.test("parseReply() ends the episode on a DONE line with no command", () => {
  deepEqual(parseReply("results.json is written.\nDONE"), { kind: "done" });
  deepEqual(parseReply("  DONE  \n"), { kind: "done" });
});

Deno.test("parseReply() explains replies it cannot act on", () => {
  const reason = (t: string) => (parseReply(t) as { reason: string }).reason;
  deepEqual(
    reason("```bash\nls\n```\n```bash\npwd\n```"),
    "the reply holds 2 command blocks; send exactly one",
  );
  deepEqual(
    reason("```bash\nls\n```\nDONE"),
    "the reply holds both a command and DONE; run the command first, say DONE in a later reply",
  );
  deepEqual(reason("```bash\n   \n```"), "the command block is empty");
  deepEqual(reason("I am done, I think."), "the reply holds no ```bash block and no DONE line");
  deepEqual(
    reason("```python\nprint(1)\n```"),
    "no ```bash block was found (an unterminated fence, or another language)",
  );
  deepEqual(reason("```bash\nls"), "no ```bash block was found (an unterminated fence, or another language)");
  deepEqual(parseReply("The word DONE inside a sentence is not a DONE line.").kind, "invalid");
});
