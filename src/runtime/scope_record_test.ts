import { deepEqual, equal } from "node:assert/strict";
import { loadPlan } from "../graph/load.ts";
import { initialState } from "../model/state.ts";
import { Fingerprinter } from "./fingerprint.ts";
import { ScopeRecord } from "./scope_record.ts";

const PLAN = `
question: q
protocol: { version: v, metric: m, direction: maximize }
nodes:
  - { id: A, kind: fast, role: data }
  - { id: B, kind: fast, role: baseline }
`;

Deno.test("ScopeRecord.record() leaves untouched scopes alone, so a late foreign write is still flagged", async () => {
  const dir = await Deno.makeTempDir();
  const state = initialState(loadPlan(PLAN, "p.yaml").plan!, { scenario: "t", mode: "mock" });
  const rec = new ScopeRecord(dir, new Fingerprinter(), (n) => `${dir}/nodes/${n.scope}`);
  Deno.mkdirSync(`${dir}/nodes/A`, { recursive: true });
  Deno.mkdirSync(`${dir}/nodes/B`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/nodes/A/out.txt`, "mine");
  rec.record(state);
  deepEqual(Object.keys(rec.scopes.A!), ["out.txt"]);
  Deno.writeTextFileSync(`${dir}/nodes/A/leak.txt`, "foreign");
  Deno.writeTextFileSync(`${dir}/nodes/B/work.txt`, "B ran this tick");
  rec.record({ ...state, tick: 1 }, new Set(["B"]));
  deepEqual(Object.keys(rec.scopes.A!), ["out.txt"], "A did not run: its record keeps the last good content");
  deepEqual(Object.keys(rec.scopes.B!), ["work.txt"]);
  rec.revert(state.plan.nodes[0]!, ["nodes/A/leak.txt"]);
  equal(Deno.statSync(`${dir}/nodes/A/out.txt`).isFile, true);
  equal(await Deno.stat(`${dir}/nodes/A/leak.txt`).then(() => true, () => false), false, "reverted");
  await Deno.remove(dir, { recursive: true });
});
