import { equal, match } from "node:assert/strict";
import type { ReplayLine } from "../model/events.ts";
import { parseReplay } from "./replay.ts";
import { verdictProblem } from "./verdict_check.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const golden = (name: string) =>
  parseReplay(Deno.readTextFileSync(`${ROOT}tests/golden/${name}/replay.jsonl`)).lines;
const names = [...Deno.readDirSync(`${ROOT}tests/golden`)].filter((e) => e.isDirectory).map((e) => e.name)
  .sort();

Deno.test("verdictProblem() finds nothing wrong in any honest black box (every golden scenario)", () => {
  equal(names.length > 5, true);
  for (const n of names) equal(verdictProblem(golden(n)), null, n);
});

Deno.test("verdictProblem() names a forged verdict: another verdict, or one while nodes still run", () => {
  const lines = golden("green");
  const last = lines.at(-1)!;
  const at = last.events.findIndex((e) => e.e === "verdict");
  equal(at >= 0, true);
  const v = last.events[at] as Extract<ReplayLine["events"][number], { e: "verdict" }>;
  const other = v.verdict === "RESEARCH ANSWERED" ? "NO VERDICT" : "RESEARCH ANSWERED";
  const forged: ReplayLine = {
    ...last,
    events: last.events.map((e, i) => i === at ? { ...v, verdict: other } : e),
  };
  match(
    verdictProblem([...lines.slice(0, -1), forged]) ?? "",
    new RegExp(`line ${lines.length} carries the verdict ${other}`),
  );
  // A verdict appended mid-run (a node still running at that point).
  const mid = lines.findIndex((l) => l.events.some((e) => e.e === "status" && e.to === "running"));
  const early: ReplayLine = { tick: lines[mid]!.tick + 0.5, events: [v] };
  match(verdictProblem([...lines.slice(0, mid + 1), early]) ?? "", /while .* still run/);
});
