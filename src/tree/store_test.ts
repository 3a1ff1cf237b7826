import { deepEqual, equal, throws } from "node:assert/strict";
import { canonical } from "../model/json.ts";
import { fakeStart, folds, ok } from "../../tests/tree_fake.ts";
import { step } from "./step.ts";
import { STORE_FORMAT, TreeStore } from "./store.ts";
import type { TreeEvent } from "./types.ts";

Deno.test("TreeStore keeps each step's event, state, nodes and incidents, and gives them back after reopening", () => {
  const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-store-" });
  try {
    const path = `${dir}/tree.db`;
    const s0 = fakeStart();
    const store = TreeStore.create(path, { data: "/data/small.csv" });
    const init: TreeEvent = { e: "init", state: s0 };
    store.append(0, init, s0, []);
    const ev: TreeEvent = {
      e: "executed",
      results: [{ ...ok("n0", folds(0.8)), claim: { score: 0.99, problem: null } }],
    };
    const out = step(s0, ev);
    equal(out.incidents.length, 1);
    store.append(1, ev, out.state, out.incidents);
    store.timing({
      seq: 1,
      kind: "executed",
      wall_ms: 10,
      child_ms: 8,
      fit_ms: 5,
      overhead_ms: 2,
      cpu_ms: 1,
      loop_ms: 1,
    });
    store.close();

    const again = TreeStore.open(path);
    equal(again.meta("format"), STORE_FORMAT);
    equal(again.meta("data"), "/data/small.csv");
    deepEqual(again.events().map((e) => canonical(e)), [canonical(init), canonical(ev)]);
    equal(canonical(again.snapshot()!.state), canonical(out.state));
    equal(again.snapshot()!.seq, 1);
    deepEqual(again.incidents(), out.incidents);
    equal(again.timings()[0]!.overhead_ms, 2);
    throws(() => again.append(1, ev, out.state, []), "a step is written once");
    equal(again.events().length, 2, "a refused step leaves nothing behind");
    again.close();
    throws(() => TreeStore.create(path, {}), /it exists/);
    throws(() => TreeStore.open(`${dir}/none.db`), /is missing/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
