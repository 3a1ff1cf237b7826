/**
 * The dashboard's integrity check of a run's black box (`/api/runs/:id/integrity`): an honest run holds; a
 * verdict line appended with the chain head rewritten to match (what an unconfined worker can do) is named.
 *
 * @module
 */
import { equal, match } from "node:assert/strict";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import { prepare } from "../src/engine/prepare.ts";
import { startRun } from "../src/engine/run.ts";
import { canonical } from "../src/model/json.ts";
import type { ReplayLine } from "../src/model/events.ts";
import { CHAIN_FILE, lineHash } from "../src/record/chain.ts";
import { createApp } from "../src/server/app.ts";
import { Feeds } from "../src/server/feeds.ts";

Deno.test("GET /api/runs/:id/integrity: an honest run holds; a forged last verdict with a matching chain head is named", async () => {
  const runsDir = await Deno.makeTempDir();
  const id = "20260101-000000-integrity";
  const runDir = `${runsDir}/${id}`;
  const res = resolveBuiltin("plateau");
  await startRun(prepare(res.plan, res.faults, "plateau", "mock"), { runDir, tickMs: 0, maxTicks: 5000 });
  const feeds = new Feeds();
  const app = createApp({ runsDir, feeds });
  const ask = async () => await (await app.request(`/api/runs/${id}/integrity`)).json();
  const honest = await ask();
  equal(honest.checked, true);
  equal(honest.problem, null);

  // Forge: drop the real verdict line, append one claiming an answer, chained correctly, head rewritten.
  const text = Deno.readTextFileSync(`${runDir}/replay.jsonl`);
  const raw = text.trimEnd().split("\n");
  const last = JSON.parse(raw.at(-1)!) as ReplayLine;
  const verdict = last.events.find((e) => e.e === "verdict")!;
  const forged = canonical({
    events: [{
      ...verdict,
      verdict: verdict.verdict === "RESEARCH ANSWERED" ? "NO VERDICT" : "RESEARCH ANSWERED",
    }],
    prev: lineHash(raw.at(-2)!),
    tick: last.tick,
  });
  const lines = [...raw.slice(0, -1), forged];
  Deno.writeTextFileSync(`${runDir}/replay.jsonl`, lines.join("\n") + "\n");
  Deno.writeTextFileSync(
    `${runDir}/${CHAIN_FILE}`,
    JSON.stringify({ lines: lines.length, head: lineHash(forged) }),
  );
  const bad = await ask();
  equal(bad.checked, true);
  match(bad.problem, new RegExp(`line ${lines.length} carries (the|a) verdict`));
  await feeds.close();
  await Deno.remove(runsDir, { recursive: true });
});
