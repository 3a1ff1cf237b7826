import { deepEqual, equal } from "node:assert/strict";
import { loadPlan } from "../../graph/load.ts";
import { initialState } from "../../model/state.ts";
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

/** A run directory with nodes A and B spawned, and a record over it. */
async function setup() {
  const dir = await Deno.makeTempDir();
  const state = initialState(loadPlan(PLAN, "p.yaml").plan!, { scenario: "t", mode: "mock" });
  for (const id of ["A", "B"]) {
    state.nodes[id]!.spawned = true;
    Deno.mkdirSync(`${dir}/nodes/${id}/sub`, { recursive: true });
  }
  const open = () => new ScopeRecord(dir, new Fingerprinter(), (n) => `${dir}/nodes/${n.scope}`);
  return { dir, state, open, A: state.plan.nodes[0]! };
}

const read = (p: string) => Deno.readTextFileSync(p);
const exists = (p: string) => {
  try {
    Deno.lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

Deno.test("ScopeRecord.restore() in a fresh process puts every scope back as recorded at the tick", async () => {
  const { dir, state, open } = await setup();
  const a = `${dir}/nodes/A`;
  const rec = open();
  Deno.writeTextFileSync(`${a}/keep.txt`, "v1");
  Deno.writeTextFileSync(`${a}/sub/log.txt`, "line 1\n");
  Deno.writeTextFileSync(`${a}/__proto__`, "a hostile name");
  Deno.symlinkSync("/etc/hostname", `${a}/link`);
  rec.record(state);
  Deno.writeTextFileSync(`${a}/keep.txt`, "v2");
  Deno.writeTextFileSync(`${a}/sub/log.txt`, "line 1\nline 2\n");
  Deno.writeTextFileSync(`${a}/new.txt`, "tick 1");
  rec.record({ ...state, tick: 1 }, new Set(["A"]));
  // The crash: tick 1 never reached the black box; the scope moved on meanwhile.
  Deno.writeTextFileSync(`${a}/keep.txt`, "v3");
  Deno.removeSync(`${a}/link`);
  Deno.writeTextFileSync(`${a}/late.txt`, "after the last record");
  const resumed = open();
  resumed.truncate(0);
  deepEqual(resumed.restore(state), []);
  equal(read(`${a}/keep.txt`), "v1");
  equal(read(`${a}/sub/log.txt`), "line 1\n", "the grown log holds its recorded content again");
  equal(read(`${a}/__proto__`), "a hostile name");
  equal(Deno.readLinkSync(`${a}/link`), "/etc/hostname");
  equal(exists(`${a}/new.txt`) || exists(`${a}/late.txt`), false, "paths the record does not know go");
  deepEqual(Object.keys(resumed.scopes.A!), ["__proto__", "keep.txt", "link", "sub/log.txt"]);
  equal(read(`${dir}/.arrow/scopes.jsonl`).trimEnd().split("\n").length, 1, "tick 1's record is dropped");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("ScopeRecord.changed() agrees with comparing the plain record path by path", async () => {
  const { dir, state, open, A } = await setup();
  const a = `${dir}/nodes/A`;
  const rec = open();
  for (const f of ["x", "y", "sub/z", "10", "9"]) Deno.writeTextFileSync(`${a}/${f}`, f);
  rec.record(state);
  Deno.writeTextFileSync(`${a}/y`, "changed");
  Deno.removeSync(`${a}/sub/z`);
  Deno.writeTextFileSync(`${a}/sub/new`, "added");
  Deno.writeTextFileSync(`${a}/10`, "10 and more");
  const print = rec.fingerprints.scan(a);
  const before = rec.scopes.A!;
  const plain = [...new Set([...Object.keys(before), ...print.files.keys()])]
    .filter((k) => before[k]?.v !== print.files.get(k)).sort().map((k) => `nodes/A/${k}`);
  deepEqual(rec.changed(A, print), plain);
  deepEqual(plain, ["nodes/A/10", "nodes/A/sub/new", "nodes/A/sub/z", "nodes/A/y"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("ScopeRecord.snapshot() survives a restart: a foreign write is reverted from it", async () => {
  const { dir, state, open, A } = await setup();
  const a = `${dir}/nodes/A`;
  Deno.writeTextFileSync(`${a}/model.bin`, "verified content");
  const rec = open();
  rec.record(state);
  rec.snapshot(A);
  const again = open();
  deepEqual(Object.keys(again.snaps.A!), ["model.bin"]);
  Deno.writeTextFileSync(`${a}/model.bin`, "tampered");
  Deno.writeTextFileSync(`${a}/extra`, "foreign");
  const paths = ["nodes/A/extra", "nodes/A/model.bin"];
  deepEqual(again.restorable(A, paths), paths);
  deepEqual(again.revert(A, paths), [], "both hold their recorded content after the revert");
  equal(read(`${a}/model.bin`), "verified content");
  equal(exists(`${a}/extra`), false);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("ScopeRecord.record() writes nothing for a scope whose scan changed nothing", async () => {
  const { dir, state, open } = await setup();
  const rec = open();
  for (let i = 0; i < 50; i++) Deno.writeTextFileSync(`${dir}/nodes/A/f${i}`, `${i}`);
  rec.record(state);
  const size = Deno.statSync(`${dir}/.arrow/scopes.jsonl`).size;
  rec.record({ ...state, tick: 1 }, new Set(["A", "B"]));
  equal(Deno.statSync(`${dir}/.arrow/scopes.jsonl`).size, size);
  await Deno.remove(dir, { recursive: true });
});
