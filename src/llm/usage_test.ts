import { deepEqual, equal } from "node:assert/strict";
import { appendJsonl, readJsonl } from "./jsonl.ts";
import { UsageLedger, usageLine } from "./usage.ts";

Deno.test("UsageLedger counts each call id once and reads only what was appended since", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/u/N3.jsonl`;
    const ledger = new UsageLedger(path);
    equal(ledger.tokens(), 0);
    const line = usageLine(
      "N3:1:1",
      { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost: 0.5 },
      "m",
      3,
      "worker",
    );
    appendJsonl(path, line);
    appendJsonl(path, line);
    appendJsonl(path, usageLine("N3:1:2", null, "m", 3, "worker"));
    equal(ledger.tokens(), 15);
    equal(ledger.cost(), 0.5);
    appendJsonl(
      path,
      usageLine(
        "N3:1:3",
        { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost: null },
        "m",
        3,
        "worker",
      ),
    );
    equal(ledger.tokens(), 17);
    equal(ledger.has("N3:1:2"), true);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("appendJsonl() starts a fresh line after a torn one; readJsonl() skips what does not parse", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/t.jsonl`;
    Deno.writeTextFileSync(path, '{"a":1}\n{"b":');
    appendJsonl(path, { c: 3 });
    const r = readJsonl(path);
    deepEqual(r.records, [{ a: 1 }, { c: 3 }]);
    equal(r.skipped, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
