/**
 * One suite, two implementations: the Python SDK (src/sdk/arrow_sdk.py) and the Deno SDK
 * (src/sdk/arrow_sdk.ts) run the same cases through a driver each — a small program that reads a list of
 * operations, calls the SDK, and prints one JSON result line per operation — in a subprocess with a clean
 * environment, the way a worker runs under Arrow.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { sha256 } from "../src/workers/lib/files.ts";
import { generateCsv, makeSplit, splitJson } from "../src/workers/real/data.ts";

const SDK = new URL("../src/sdk/", import.meta.url).pathname;
/** Debian's interpreter when present (a pyenv shim adds ~1 s per start), else python3 from PATH. */
const PYTHON = (() => {
  try {
    return Deno.statSync("/usr/bin/python3").isFile ? "/usr/bin/python3" : "python3";
  } catch {
    return "python3";
  }
})();
type Op = [string, ...unknown[]];
type Result = { ok?: unknown; error?: string };

const PY_DRIVER = `
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, ${JSON.stringify(SDK)})
import arrow_sdk as a

def num(v):
    return float("nan") if isinstance(v, dict) and v.get("nan") else v

def payload(p):
    if "text" in p: return p["text"]
    if "fill" in p: return bytes([p["fill"]]) * p["size"]
    return p["json"]

def call(name, args):
    if name == "env": return a.env().as_dict()
    if name == "log_metric": return a.log_metric(args[0], num(args[1]), **(args[2] if len(args) > 2 else {}))
    if name == "save_checkpoint": return a.save_checkpoint(args[0], payload(args[1]), *args[2:])
    if name == "resume_checkpoint": return a.resume_checkpoint()
    if name == "checkpoint_step": return a.checkpoint_step(args[0])
    if name == "file_hash": return a.file_hash(args[0])
    if name == "find_input": return a.find_input(args[0])
    if name == "frozen_data": return list(a.frozen_data())
    if name == "write_manifest":
        o = args[2] if len(args) > 2 else {}
        return a.write_manifest(num(args[0]), args[1], data=o.get("data"), split=o.get("split"), code=o.get("code"),
                                **o.get("extra", {}))
    raise KeyError(name)

for name, *args in json.loads(sys.argv[1]):
    try:
        print(json.dumps({"ok": call(name, args)}), flush=True)
    except Exception as e:
        print(json.dumps({"error": str(e)}), flush=True)
`;

const TS_DRIVER = `
import * as a from ${JSON.stringify(`${SDK}arrow_sdk.ts`)};
const num = (v: any) => (v && typeof v === "object" && v.nan ? NaN : v);
const payload = (p: any) => "text" in p ? p.text : "fill" in p ? new Uint8Array(p.size).fill(p.fill) : p.json;
const snake = (e: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(e).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()), v]));
function call(name: string, args: any[]): unknown {
  switch (name) {
    case "env": return snake(a.env() as unknown as Record<string, unknown>);
    case "log_metric": return a.logMetric(args[0], num(args[1]), args[2] ?? {});
    case "save_checkpoint": return a.saveCheckpoint(args[0], payload(args[1]), args[2]);
    case "resume_checkpoint": return a.resumeCheckpoint();
    case "checkpoint_step": return a.checkpointStep(args[0]);
    case "file_hash": return a.fileHash(args[0]);
    case "find_input": return a.findInput(args[0]);
    case "frozen_data": { const d = a.frozenData(); return [d.data, d.split]; }
    case "write_manifest": return a.writeManifest(num(args[0]), args[1], args[2] ?? {});
  }
  throw new Error(name);
}
for (const [name, ...args] of JSON.parse(Deno.args[0]!)) {
  try {
    console.log(JSON.stringify({ ok: call(name, args) ?? null }));
  } catch (e) {
    console.log(JSON.stringify({ error: (e as Error).message }));
  }
}
`;

interface Driver {
  name: string;
  /** The driver program's path (its sha256 is the code_sha of a manifest it writes). */
  program: string;
  command(ops: Op[], env: Record<string, string>, cwd: string): Deno.Command;
}

async function drivers(dir: string): Promise<Driver[]> {
  const py = `${dir}/driver.py`;
  const ts = `${dir}/driver.ts`;
  await Deno.writeTextFile(py, PY_DRIVER);
  await Deno.writeTextFile(ts, TS_DRIVER);
  const base = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", NO_COLOR: "1" };
  const opts = (env: Record<string, string>, cwd: string) =>
    ({ env: { ...base, ...env }, clearEnv: true, cwd, stdout: "piped", stderr: "piped" }) as const;
  return [
    {
      name: "python",
      program: py,
      command: (ops, env, cwd) =>
        new Deno.Command(PYTHON, { args: [py, JSON.stringify(ops)], ...opts(env, cwd) }),
    },
    {
      name: "deno",
      program: ts,
      command: (ops, env, cwd) =>
        new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            ...["--no-npm", "--no-remote", "--no-config", "--no-lock", "--quiet"],
            ...["--allow-env", "--allow-read", "--allow-write", ts, JSON.stringify(ops)],
          ],
          ...opts(env, cwd),
        }),
    },
  ];
}

async function run(d: Driver, ops: Op[], env: Record<string, string>, cwd: string) {
  const out = await d.command(ops, env, cwd).output();
  const lines = new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
  return {
    code: out.code,
    results: lines.map((l) => JSON.parse(l) as Result),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** A run directory like Arrow's: the data node's real files and manifest, a harness, the worker's scope. */
async function fixture() {
  const root = await Deno.makeTempDir({ prefix: "arrow-sdk-" });
  const run = `${root}/run`;
  const scope = `${run}/nodes/train`;
  for (const n of ["alt", "data", "harness", "other", "train"]) {
    await Deno.mkdir(`${run}/nodes/${n}`, { recursive: true });
  }
  const csv = generateCsv(7, 120);
  const split = splitJson(makeSplit(120, 7, "y", ["x1", "x2", "x3", "x4", "x5", "x6", "x7"]));
  await Deno.writeTextFile(`${run}/nodes/data/data.csv`, csv);
  await Deno.writeTextFile(`${run}/nodes/data/split.json`, split);
  // Hashes exactly as Arrow's data node computes them (src/workers/real/make_data.ts).
  const tuple = {
    data_hash: await sha256(csv),
    split_hash: await sha256(split),
    protocol_version: "p1",
    seed: 7,
  };
  const manifest = { node: "data", ...tuple, artifact: "data.csv", split: "split.json" };
  await Deno.writeTextFile(`${run}/nodes/data/results.json`, JSON.stringify(manifest));
  await Deno.writeTextFile(
    `${run}/nodes/harness/results.json`,
    JSON.stringify({ node: "harness", ...tuple }),
  );
  const env = {
    ARROW_RUN_DIR: run,
    ARROW_SCOPE: scope,
    ARROW_NODE: "train",
    ARROW_ATTEMPT: "1",
    ARROW_LAP: "1",
    ARROW_METRIC: "dev_r2",
    ARROW_DIRECTION: "maximize",
    ARROW_PROTOCOL_VERSION: "p1",
    ARROW_INPUTS: JSON.stringify({ harness: `${run}/nodes/harness`, data: `${run}/nodes/data` }),
    ARROW_FROZEN: JSON.stringify(tuple),
    ARROW_FAULT_LOG: `${root}/faults.jsonl`,
  };
  return { root, run, scope, env, tuple, ds: run + "/nodes/data" };
}

const read = (p: string) => Deno.readTextFileSync(p);
const lines = (p: string) => read(p).split("\n").filter(Boolean).map((l) => JSON.parse(l));
const faultLog = (p: string) => {
  try {
    return lines(p);
  } catch {
    return [];
  }
};
const files = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

/** Names in ckpt/ that were created or written in place (not renamed into place), from file-system events. */
function partialWrites(events: Deno.FsEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events) {
    if (e.kind !== "create" && e.kind !== "modify") continue;
    for (const p of e.paths) {
      const name = p.slice(p.lastIndexOf("/") + 1);
      if (!name.startsWith(".")) out.add(name);
    }
  }
  return [...out].sort();
}

/** Watches `dir` while `act` runs, until a file named `.done` shows up; returns every event seen. */
async function watch(dir: string, act: () => Promise<void>): Promise<Deno.FsEvent[]> {
  const watcher = Deno.watchFs(dir);
  const events: Deno.FsEvent[] = [];
  const seen = (async () => {
    for await (const e of watcher) {
      events.push(e);
      if (e.paths.some((p) => p.endsWith("/.done"))) break;
    }
  })();
  await act();
  await Deno.writeTextFile(`${dir}/.done`, "");
  await seen;
  watcher.close();
  return events;
}

Deno.test("the SDKs (Python and Deno) behave alike", async (t) => {
  const f = await fixture();
  const ds = await drivers(f.root);
  const fresh = async () => {
    await Deno.remove(f.scope, { recursive: true }).catch(() => {});
    await Deno.mkdir(f.scope, { recursive: true });
    await Deno.remove(f.env.ARROW_FAULT_LOG).catch(() => {});
  };
  try {
    for (const d of ds) {
      const go = (ops: Op[], env: Record<string, string> = {}) => run(d, ops, { ...f.env, ...env }, f.scope);

      await t.step(
        `${d.name}: env() reads every variable; inputs may be paths or {scope, role}`,
        async () => {
          await fresh();
          const r = await go([["env"]], {
            ARROW_ATTEMPT: "2",
            ARROW_LAP: "3",
            ARROW_RESUME_FROM: `${f.scope}/ckpt/step_000004.json`,
            ARROW_SOURCES: JSON.stringify({ data: { scope: f.ds, role: "data" } }),
            ARROW_FAULTS: JSON.stringify([{ kind: "stall", node: "train", at_step: 9 }]),
          });
          const e = r.results[0]!.ok as Record<string, unknown>;
          deepEqual(
            [e.node, e.scope, e.run_dir, e.attempt, e.lap, e.metric, e.direction, e.protocol_version],
            ["train", f.scope, f.run, 2, 3, "dev_r2", "maximize", "p1"],
          );
          equal(e.resume_from, `${f.scope}/ckpt/step_000004.json`);
          deepEqual(e.inputs, { harness: `${f.run}/nodes/harness`, data: f.ds });
          deepEqual(e.sources, { data: f.ds });
          deepEqual(e.frozen, f.tuple);
          deepEqual(e.faults, [{ kind: "stall", node: "train", at_step: 9 }]);
          equal(e.fault_log, f.env.ARROW_FAULT_LOG);
        },
      );

      await t.step(`${d.name}: env() names the variable that is not JSON`, async () => {
        const r = await go([["env"]], { ARROW_INPUTS: "{nope" });
        match(r.results[0]!.error!, /ARROW_INPUTS/);
      });

      await t.step(`${d.name}: log_metric() appends one line per call with the protocol metric`, async () => {
        await fresh();
        const r = await go([
          ["log_metric", 0, 0.25],
          ["log_metric", 1, 0.5, { loss: 1.5, tag: "warm" }],
          ["log_metric", 1, 0.75],
        ]);
        deepEqual(r.results.map((x) => x.error), [undefined, undefined, undefined]);
        const text = read(`${f.scope}/metrics.jsonl`);
        ok(text.endsWith("\n"));
        deepEqual(lines(`${f.scope}/metrics.jsonl`), [
          { step: 0, dev_r2: 0.25 },
          { step: 1, dev_r2: 0.5, loss: 1.5, tag: "warm" },
          { step: 1, dev_r2: 0.75 },
        ]);
      });

      await t.step(
        `${d.name}: log_metric() refuses what the protocol forbids and writes nothing`,
        async () => {
          await fresh();
          const r = await go([
            ["log_metric", 5, 0.5],
            ["log_metric", 4, 0.6],
            ["log_metric", 6, { nan: true }],
            ["log_metric", 6, 0.1, { step: 3 }],
            ["log_metric", 6, 0.1, { dev_r2: 3 }],
            ["log_metric", 6, 0.1, { blob: "x".repeat(70_000) }],
          ]);
          match(r.results[1]!.error!, /steps never go back/);
          match(r.results[2]!.error!, /not a finite number/);
          match(r.results[3]!.error!, /overwrite|multiple values for argument 'step'/);
          match(r.results[4]!.error!, /overwrite/);
          match(r.results[5]!.error!, /64 KiB/);
          deepEqual(lines(`${f.scope}/metrics.jsonl`), [{ step: 5, dev_r2: 0.5 }]);
          const bare = await go([["log_metric", 0, 0.1]], { ARROW_METRIC: "" });
          match(bare.results[0]!.error!, /ARROW_METRIC is not set/);
        },
      );

      await t.step(
        `${d.name}: save_checkpoint() names files step_NNNNNN.<ext> and leaves no temp`,
        async () => {
          await fresh();
          const r = await go([
            ["save_checkpoint", 12, { json: { w: [1, 2], epoch: 12 } }],
            ["save_checkpoint", 13, { text: "hello" }],
            ["save_checkpoint", 14, { fill: 7, size: 3 }],
            ["save_checkpoint", 1234567, { text: "big step" }, "pt"],
            ["save_checkpoint", 2.5, { text: "x" }],
            ["save_checkpoint", 3, { text: "x" }, "../evil"],
            ["checkpoint_step", "/a/b/ckpt/step_000012.json"],
            ["checkpoint_step", "/a/b/ckpt/best.json"],
          ]);
          equal(r.results[0]!.ok, `${f.scope}/ckpt/step_000012.json`);
          match(r.results[4]!.error!, /whole number/);
          match(r.results[5]!.error!, /extension/);
          deepEqual([r.results[6]!.ok, r.results[7]!.ok], [12, null]);
          deepEqual(files(`${f.scope}/ckpt`), [
            "step_000012.json",
            "step_000013.txt",
            "step_000014.bin",
            "step_1234567.pt",
          ]);
          deepEqual(JSON.parse(read(`${f.scope}/ckpt/step_000012.json`)), { w: [1, 2], epoch: 12 });
          deepEqual([...Deno.readFileSync(`${f.scope}/ckpt/step_000014.bin`)], [7, 7, 7]);
        },
      );

      await t.step(`${d.name}: save_checkpoint() never shows a partial file in ckpt/`, async () => {
        await fresh();
        await Deno.mkdir(`${f.scope}/ckpt`);
        const size = 8 << 20;
        const ops: Op[] = [1, 2, 3, 4].map((s) => ["save_checkpoint", s, { fill: s, size }]);
        const events = await watch(`${f.scope}/ckpt`, async () => {
          const r = await go(ops);
          equal(r.code, 0, r.stderr);
        });
        ok(events.some((e) => e.kind === "rename"), "the watcher saw the checkpoints arrive");
        deepEqual(partialWrites(events), []);
        for (const s of [1, 2, 3, 4]) equal(Deno.statSync(`${f.scope}/ckpt/step_00000${s}.bin`).size, size);
        deepEqual(files(`${f.scope}/ckpt`), [".done", ...[1, 2, 3, 4].map((s) => `step_00000${s}.bin`)]);
      });

      await t.step(`${d.name}: resume_checkpoint() is ARROW_RESUME_FROM, None without it`, async () => {
        await fresh();
        await Deno.mkdir(`${f.scope}/ckpt`);
        await Deno.writeTextFile(`${f.scope}/ckpt/step_000004.json`, "{}");
        const none = await go([["resume_checkpoint"]]);
        equal(none.results[0]!.ok, null);
        const some = await go([["resume_checkpoint"]], {
          ARROW_RESUME_FROM: `${f.scope}/ckpt/step_000004.json`,
        });
        equal(some.results[0]!.ok, `${f.scope}/ckpt/step_000004.json`);
        const gone = await go([["resume_checkpoint"]], {
          ARROW_RESUME_FROM: `${f.scope}/ckpt/step_000009.json`,
        });
        match(gone.results[0]!.error!, /step_000009\.json.*not a file/);
      });

      await t.step(
        `${d.name}: file_hash() is the sha256 Arrow computes for data_hash and split_hash`,
        async () => {
          const big = `${f.root}/big.bin`;
          const bytes = new Uint8Array(3 * (1 << 20) + 17).map((_, i) => (i * 31) % 251);
          await Deno.writeFile(big, bytes);
          const r = await go([
            ["file_hash", `${f.ds}/data.csv`],
            ["file_hash", `${f.ds}/split.json`],
            ["file_hash", big],
          ]);
          deepEqual(r.results.map((x) => x.ok), [f.tuple.data_hash, f.tuple.split_hash, await sha256(bytes)]);
        },
      );

      await t.step(`${d.name}: frozen_data() finds the data set by the frozen data_hash`, async () => {
        // A decoy input sorted first, naming other files under another data_hash.
        await Deno.writeTextFile(
          `${f.run}/nodes/alt/results.json`,
          JSON.stringify({ node: "alt", data_hash: "f00", artifact: "a.csv", split: "s.json" }),
        );
        const inputs = JSON.stringify({ alt: `${f.run}/nodes/alt`, data: f.ds });
        const r = await go([["frozen_data"], ["find_input", "split.json"], ["find_input", "nope.txt"]], {
          ARROW_INPUTS: inputs,
        });
        deepEqual(r.results.map((x) => x.ok), [
          [`${f.ds}/data.csv`, `${f.ds}/split.json`],
          `${f.ds}/split.json`,
          null,
        ]);
        const before = await go([["frozen_data"]], { ARROW_INPUTS: inputs, ARROW_FROZEN: "" });
        deepEqual(before.results[0]!.ok, [`${f.run}/nodes/alt/a.csv`, `${f.run}/nodes/alt/s.json`]);
        const none = await go([["frozen_data"]], {
          ARROW_INPUTS: JSON.stringify({ harness: `${f.run}/nodes/harness` }),
        });
        match(none.results[0]!.error!, /Cannot find the frozen data set: .*harness/);
        await Deno.writeTextFile(
          `${f.run}/nodes/alt/results.json`,
          JSON.stringify({ node: "alt", data_hash: "f00", artifact: "../data/data.csv", split: "s.json" }),
        );
        const escape = await go([["frozen_data"]], {
          ARROW_INPUTS: inputs,
          ARROW_FROZEN: JSON.stringify({ data_hash: "f00" }),
        });
        match(escape.results[0]!.error!, /Cannot find the frozen data set/);
      });

      await t.step(`${d.name}: write_manifest() writes the claim with hashes of the files used`, async () => {
        await fresh();
        await Deno.writeTextFile(`${f.scope}/model.json`, "{}");
        const r = await go([
          ["write_manifest", 0.75, "model.json", {
            data: `${f.ds}/data.csv`,
            split: `${f.ds}/split.json`,
            extra: { best_epoch: 9 },
          }],
        ]);
        equal(r.results[0]!.error, undefined);
        const m = JSON.parse(read(`${f.scope}/results.json`));
        const { wall_s, ...rest } = m;
        ok(typeof wall_s === "number" && wall_s >= 0);
        deepEqual(rest, {
          node: "train",
          metric: "dev_r2",
          score: 0.75,
          artifact: "model.json",
          ...f.tuple,
          code_sha: (await sha256(Deno.readFileSync(d.program))).slice(0, 12),
          best_epoch: 9,
        });
        deepEqual(r.results[0]!.ok, m);
        deepEqual(files(f.scope), ["model.json", "results.json"]);
      });

      await t.step(
        `${d.name}: write_manifest() takes the tuple from the inputs before it is frozen`,
        async () => {
          await fresh();
          await Deno.writeTextFile(
            `${f.run}/nodes/other/results.json`,
            JSON.stringify({ node: "other", seed: 99 }),
          );
          const inputs = JSON.stringify({ zeta: f.ds, other: `${f.run}/nodes/other` });
          await go([["write_manifest", null, null, { code: "" }]], {
            ARROW_FROZEN: "",
            ARROW_INPUTS: inputs,
          });
          const m = JSON.parse(read(`${f.scope}/results.json`));
          deepEqual([m.seed, m.protocol_version, "score" in m, "code_sha" in m, "data_hash" in m], [
            99,
            "p1",
            false,
            false,
            false,
          ]);
        },
      );

      await t.step(`${d.name}: write_manifest() refuses a bad claim and writes nothing`, async () => {
        await fresh();
        await Deno.writeTextFile(`${f.root}/outside.json`, "{}");
        const r = await go([
          ["write_manifest", 0.5, "missing.json"],
          ["write_manifest", 0.5, `${f.root}/outside.json`],
          ["write_manifest", 0.5, "../../../outside.json"],
          ["write_manifest", { nan: true }, null],
          ["write_manifest", 0.5, null, { extra: { data_hash: "abc" } }],
        ]);
        for (const x of r.results.slice(0, 3)) match(x.error!, /inside the scope/);
        match(r.results[3]!.error!, /finite/);
        match(r.results[4]!.error!, /data_hash/);
        const bare = await go([["write_manifest", 0.5, null]], { ARROW_NODE: "" });
        match(bare.results[0]!.error!, /ARROW_NODE is not set/);
        deepEqual(files(f.scope), []);
      });

      await t.step(
        `${d.name}: false_claim and manifest_override rewrite the claim and are logged`,
        async () => {
          await fresh();
          const faults = JSON.stringify([
            { kind: "false_claim", node: "train", claims: [0.9, 0.99], index: 4 },
            { kind: "manifest_override", node: "train", set: { seed: 8 } },
            { kind: "manifest_override", node: "train", set: { seed: 9 }, attempts: [2] },
            { kind: "false_claim", node: "elsewhere", claims: [0.1, 0.1] },
          ]);
          await go([["write_manifest", 0.5, null]], { ARROW_FAULTS: faults, ARROW_LAP: "2" });
          const m = JSON.parse(read(`${f.scope}/results.json`));
          deepEqual([m.score, m.seed], [0.99, 8]);
          deepEqual(faultLog(f.env.ARROW_FAULT_LOG), [
            // Arrow's run-wide index is echoed when the fault carries one; position is its place in ARROW_FAULTS.
            {
              kind: "false_claim",
              position: 0,
              index: 4,
              node: "train",
              attempt: 1,
              claimed: 0.99,
              lap: 2,
              score: 0.5,
            },
            { kind: "manifest_override", position: 1, node: "train", attempt: 1, fields: ["seed"] },
          ]);
          await fresh();
          await go([["write_manifest", 0.5, null]], { ARROW_FAULTS: faults, ARROW_LAP: "3" });
          equal(JSON.parse(read(`${f.scope}/results.json`)).score, 0.5, "no claim for lap 3: honest");
        },
      );

      await t.step(
        `${d.name}: out_of_scope_write fires once at its step, relative to nodes/ or absolute`,
        async () => {
          await fresh();
          const abs = `${f.root}/escaped.txt`;
          const faults = JSON.stringify([
            { kind: "out_of_scope_write", node: "train", path: "harness/leak.txt", at_tick: 2 },
            { kind: "out_of_scope_write", node: "train", path: abs, at_tick: 3 },
            { kind: "out_of_scope_write", node: "train", path: "/proc/arrow_cannot_write_here", at_tick: 1 },
          ]);
          const r = await go([1, 2, 3, 4].map((s): Op => ["log_metric", s, 0.1 * s]), {
            ARROW_FAULTS: faults,
          });
          deepEqual(r.results.map((x) => x.error), [undefined, undefined, undefined, undefined]);
          ok(read(`${f.run}/nodes/harness/leak.txt`).includes("train"));
          ok(read(abs).includes("train"));
          const log = faultLog(f.env.ARROW_FAULT_LOG);
          deepEqual(log.map((l) => [l.position, l.step, l.path]), [
            [2, 1, "/proc/arrow_cannot_write_here"],
            [0, 2, `${f.run}/nodes/harness/leak.txt`],
            [1, 3, abs],
          ]);
          match(log[0].outcome, /^refused/);
          deepEqual([log[1].outcome, log[2].outcome], ["written", "written"]);
          await Deno.remove(`${f.run}/nodes/harness/leak.txt`);
        },
      );

      await t.step(`${d.name}: crash exits with its code before the step's line is written`, async () => {
        await fresh();
        const faults = JSON.stringify([{ kind: "crash", node: "train", at_step: 3, exit: 7 }]);
        const r = await go([1, 2, 3, 4].map((s): Op => ["log_metric", s, 0.1]), { ARROW_FAULTS: faults });
        equal(r.code, 7);
        match(r.stderr, /injected crash at step 3/);
        deepEqual(lines(`${f.scope}/metrics.jsonl`).map((l) => l.step), [1, 2]);
        deepEqual(faultLog(f.env.ARROW_FAULT_LOG), [{
          kind: "crash",
          position: 0,
          node: "train",
          attempt: 1,
          step: 3,
          exit: 7,
        }]);
        const first = JSON.stringify([{ kind: "crash", node: "train", at_step: 3, exit: 7, attempts: [1] }]);
        const second = await go([["log_metric", 9, 0.1]], { ARROW_FAULTS: first, ARROW_ATTEMPT: "2" });
        equal(second.code, 0, "a fault limited to attempt 1 spares attempt 2");
      });

      await t.step(`${d.name}: stall with seconds pauses, then the step is logged`, async () => {
        await fresh();
        const faults = JSON.stringify([{ kind: "stall", node: "train", at_step: 2, seconds: 0.2 }]);
        const t0 = performance.now();
        const r = await go([1, 2, 3].map((s): Op => ["log_metric", s, 0.1]), { ARROW_FAULTS: faults });
        equal(r.code, 0);
        ok(performance.now() - t0 >= 200);
        deepEqual(lines(`${f.scope}/metrics.jsonl`).map((l) => l.step), [1, 2, 3]);
        deepEqual(faultLog(f.env.ARROW_FAULT_LOG).map((l) => [l.kind, l.step, l.seconds]), [[
          "stall",
          2,
          0.2,
        ]]);
      });

      await t.step(`${d.name}: stall without seconds never returns`, async () => {
        await fresh();
        const faults = JSON.stringify([{ kind: "stall", node: "train", at_step: 0 }]);
        const child = d.command([["log_metric", 0, 0.1]], { ...f.env, ARROW_FAULTS: faults }, f.scope)
          .spawn();
        const status = child.status;
        // Wait for the fault to be recorded (the condition), then check the process is still stuck.
        const deadline = performance.now() + 20_000;
        while (faultLog(f.env.ARROW_FAULT_LOG).length === 0 && performance.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
        }
        deepEqual(faultLog(f.env.ARROW_FAULT_LOG).map((l) => [l.kind, l.step]), [["stall", 0]]);
        const raced = await Promise.race([
          status.then(() => "exited"),
          new Promise((r) => setTimeout(() => r("alive"), 300)),
        ]);
        equal(raced, "alive");
        child.kill("SIGKILL");
        await status;
        await child.stdout.cancel();
        await child.stderr.cancel();
        equal(Deno.statSync(f.scope).isDirectory, true);
        deepEqual(files(f.scope), []);
      });
    }
  } finally {
    await Deno.remove(f.root, { recursive: true });
  }
});

Deno.test("partialWrites() flags a checkpoint written in place", async () => {
  const dir = await Deno.makeTempDir({ prefix: "arrow-sdk-watch-" });
  try {
    const events = await watch(dir, async () => {
      await Deno.writeFile(`${dir}/step_000001.bin`, new Uint8Array(1 << 20));
    });
    deepEqual(partialWrites(events), ["step_000001.bin"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
