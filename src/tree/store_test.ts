import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { canonical, canonicalPretty } from "../model/json.ts";
import { fakeStart, folds, ok as okResult } from "../../tests/tree_fake.ts";
import { step } from "./step.ts";
import { settles, STORE_FORMAT, TreeStore } from "./store.ts";
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
      results: [{ ...okResult("n0", folds(0.8)), claim: { score: 0.99, problem: null } }],
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

Deno.test("TreeStore writes the snapshot only when a step settles a cycle; a resume checks it against the events up to it", async () => {
  const { reopen } = await import("./run.ts");
  const { opening } = await import("../../tests/tree_fake.ts");
  const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-store-" });
  try {
    const path = `${dir}/tree.db`;
    const s0 = fakeStart();
    const store = TreeStore.create(path, {});
    store.append(0, { e: "init", state: s0 }, s0, []);
    let state = s0;
    const settledAt: number[] = [];
    opening().forEach((ev, i) => {
      const out = step(state, ev);
      state = out.state;
      store.append(i + 1, ev, state, out.incidents);
      if (settles(ev, state)) settledAt.push(i + 1);
    });
    // The opening ends with hypotheses proposed: executors are pending, mid-cycle.
    equal(state.pending?.a, "execute");
    equal(settles(opening().at(-1)!, state), false);
    const snap = store.snapshot()!;
    equal(snap.seq, settledAt.at(-1) ?? 0, "the snapshot is the last settled step's");
    ok(snap.seq < 3);
    const r = reopen(store);
    equal(canonical(r.state), canonical(state), "the events fold to the last state");
    equal(r.snapshotDiffered, false);
    store.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("TreeBlackBox writes state.json when a step settles a cycle, and the rest when flushed", async () => {
  const { TreeBlackBox } = await import("./blackbox.ts");
  const { opening } = await import("../../tests/tree_fake.ts");
  const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-box-" });
  try {
    const box = new TreeBlackBox(dir);
    const s0 = fakeStart();
    box.append({ e: "init", state: s0 }, s0, []);
    const onDisk = () => Deno.readTextFileSync(`${dir}/state.json`);
    let state = s0, settled = s0;
    for (const ev of opening()) {
      const out = step(state, ev);
      state = out.state;
      box.append(ev, state, out.incidents);
      if (settles(ev, state)) settled = state;
      equal(JSON.parse(onDisk()).tick, settled.tick, "state.json is the last settled step's");
    }
    ok(settled !== state, "the opening ends mid-cycle");
    box.flush();
    equal(onDisk(), canonicalPretty(state));
    equal(Deno.readTextFileSync(`${dir}/tree/replay.jsonl`).trim().split("\n").length, 1 + opening().length);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
