/**
 * A reactive program reads its stream source through a copy Arrow keeps in step with it (bubblewrap): it
 * sees every checkpoint its source writes while both run, and its attempt to forge one of them lands in the
 * copy, where it is seen and blamed on the reader with the path, the operation and what stopped it — never
 * a read-only mount refusing it in silence. The source's own files stay as its owner wrote them.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { loadPlan } from "../src/graph/load.ts";
import type { Plan } from "../src/graph/types.ts";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import { PYTHON, runReal } from "./helpers/real.ts";

/** The source: four checkpoints a few ticks apart, each with a metrics line, then its result. */
const SOURCE = [
  "import json, os, time",
  "os.makedirs('ckpt', exist_ok=True)",
  "for step in range(1, 5):",
  "    time.sleep(0.3)",
  "    json.dump({'step': step}, open(f'ckpt/step_{step:06d}.json', 'w'))",
  "    open('metrics.jsonl', 'a').write(json.dumps({'step': step, 'dev_r2': 0.1 * step}) + '\\n')",
  "json.dump({'node': 'S'}, open('results.json', 'w'))",
].join("\n");

/** A reader: waits for the first checkpoint, tries to forge it (`forge`), reads on until the source is done. */
const reader = (id: string, forge: boolean) =>
  [
    "import json, os, time",
    "src = json.loads(os.environ['ARROW_SOURCES'])['S']",
    "first = os.path.join(src, 'ckpt', 'step_000001.json')",
    "while not os.path.exists(first): time.sleep(0.05)",
    ...(forge
      ? [
        "try:",
        "    open(first, 'w').write('{\"step\": 1, \"forged\": true}')",
        "    print('forged', flush=True)",
        "except OSError as e:",
        "    print('refused:', e, flush=True)",
      ]
      : []),
    "deadline = time.time() + 30",
    "while not os.path.exists(os.path.join(src, 'results.json')) and time.time() < deadline: time.sleep(0.05)",
    "seen = sorted(os.listdir(os.path.join(src, 'ckpt')))",
    `json.dump({'node': '${id}', 'seen': seen}, open('results.json', 'w'))`,
  ].join("\n");

function plan(): Plan {
  const text = JSON.stringify({
    question: "Is a write into a stream source seen?",
    protocol: { version: "p1", metric: "dev_r2", direction: "maximize" },
    nodes: [
      { id: "S", kind: "long", role: "other", worker: { type: "command", argv: [PYTHON, "-c", SOURCE] } },
      {
        id: "R",
        kind: "reactive",
        role: "other",
        worker: { type: "command", argv: [PYTHON, "-c", reader("R", true)] },
      },
      {
        id: "H",
        kind: "reactive",
        role: "other",
        worker: { type: "command", argv: [PYTHON, "-c", reader("H", false)] },
      },
    ],
    edges: [{ from: "S", to: "R", kind: "stream" }, { from: "S", to: "H", kind: "stream" }],
  });
  const r = loadPlan(text, "stream.yaml");
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

Deno.test({
  name: "a reactive program's write into its stream source is blamed on it; it reads the source in step",
  ignore: needs("stream_lane_test", "the bubblewrap case", NO_BWRAP),
  fn: async () => {
    const r = await runReal("stream_lane", plan(), [], { bwrap: BWRAP });
    try {
      const sv = r.incidents.filter((i) => i.type === "SCOPE_VIOLATION");
      equal(sv.length, 1, JSON.stringify(r.incidents));
      equal(sv[0]!.node, "R");
      const ev = sv[0]!.evidence as { writer: string; attempts: unknown[] };
      equal(ev.writer, "R");
      deepEqual(ev.attempts, [
        { op: "write", path: "nodes/S/ckpt/step_000001.json", reverted: false, stopped_by: "bwrap-shadow" },
      ]);
      const out = Deno.readTextFileSync(`${r.dir}/logs/R.out`);
      ok(out.includes("forged") && !out.includes("refused"), `the write was refused in silence: ${out}`);
      equal(Deno.readTextFileSync(`${r.dir}/nodes/S/ckpt/step_000001.json`), '{"step": 1}');
      equal(r.state.nodes.S!.status, "verified");
      equal(r.state.nodes.R!.status, "blocked");
      // The honest reader saw every checkpoint its source wrote after it started, through its copy.
      equal(r.state.nodes.H!.status, "verified");
      deepEqual(
        JSON.parse(Deno.readTextFileSync(`${r.dir}/nodes/H/results.json`)).seen,
        [1, 2, 3, 4].map((s) => `step_00000${s}.json`),
      );
    } finally {
      await Deno.remove(r.dir, { recursive: true });
    }
  },
});
