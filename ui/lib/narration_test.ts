import { deepEqual as assertEquals } from "node:assert/strict";
import type { ReplayLine } from "../../src/model/events.ts";
import { sentenceOf, sentencesUpTo } from "./narration.ts";

Deno.test("sentenceOf() tells status changes, incidents and the verdict, and skips bookkeeping", () => {
  assertEquals(
    sentenceOf(3, { e: "status", node: "N4", from: "pending", to: "running" })?.text,
    "N4 started",
  );
  assertEquals(
    sentenceOf(3, { e: "status", node: "N4", from: "running", to: "blocked" })?.text,
    "N4 is blocked",
  );
  assertEquals(sentenceOf(3, { e: "metric", node: "N4", step: 1, value: 0.1 }), null);
  assertEquals(
    sentenceOf(9, {
      e: "verdict",
      verdict: "RESULT WITHHELD",
      detail: { metric: "m", direction: "maximize", baseline: null, baseline_score: null, methods: [] },
    })?.text,
    "Verdict: RESULT WITHHELD",
  );
  const s = sentenceOf(9, {
    e: "incident",
    incident: {
      tick: 9,
      type: "SCOPE_VIOLATION",
      node: "N4",
      ladder: "blame_routing",
      evidence: { writer: "N4", scope: "nodes/N4", paths: ["nodes/N3/x"], attempts: [], blocked: [] },
      laps: 0,
      tokens: 0,
    },
  });
  assertEquals(s?.text, "N4 wrote outside its lane (N3/x) — reverted, blamed");
  assertEquals(s?.tone, "blame_routing");
});

Deno.test("sentencesUpTo() keeps the latest sentences up to a line, oldest first", () => {
  const lines: ReplayLine[] = [1, 2, 3].map((t) => ({
    tick: t,
    events: [{ e: "status", node: `N${t}`, from: "pending", to: "running" }],
  }));
  assertEquals(sentencesUpTo(lines, 1, 5).map((s) => s.text), ["N1 started", "N2 started"]);
  assertEquals(sentencesUpTo(lines, 2, 2).map((s) => s.text), ["N2 started", "N3 started"]);
});
