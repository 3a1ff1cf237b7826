/**
 * The sweep as a plan feature: the space, validation with file:line:col, and the pure expansion into
 * configuration nodes (ids, scopes, arguments, edges, mock curves, determinism).
 */
import { deepEqual, equal, match, notDeepEqual, ok, throws } from "node:assert/strict";
import { prepare } from "../src/engine/prepare.ts";
import { formatDiagnostic, loadPlan } from "../src/graph/load.ts";
import { expandSweeps, MOCK_DEFAULTS, mockProfile } from "../src/graph/sweep_expand.ts";
import { configurations, domainOf, finiteValues } from "../src/graph/sweep_space.ts";
import type { Plan } from "../src/graph/types.ts";
import { normalizeProfile } from "../src/workers/mock/trainer.ts";

/** A plan around one sweep node T; `sweep` and `extra` are YAML spliced in (indented for the node). */
function planText(
  sweep: string,
  opts: { extraNodes?: string; extraEdges?: string; t?: string } = {},
): string {
  return `question: which configuration?
protocol: { version: p1, metric: m, direction: maximize, seed: 11 }
resources: { slots: { gpu: 2, cpu: 2 } }
nodes:
  - { id: H, kind: fast, role: harness }
  - { id: B, kind: fast, role: baseline }
  - id: T
    kind: long
    role: train
    ${opts.t ?? ""}
    worker: { type: builtin, name: gbdt_train, args: { stages: 30, learning_rate: 0.1, ckpt_every: 6 } }
    sweep:
${sweep.split("\n").map((l) => `      ${l}`).join("\n")}
  - { id: R, kind: reactive, role: eval }
  - { id: A, kind: fast, role: analysis }
${opts.extraNodes ?? ""}
edges:
  - { from: H, to: B, kind: artifact }
  - { from: H, to: T, kind: artifact }
  - { from: H, to: R, kind: artifact }
  - { from: T, to: R, kind: stream }
  - { from: R, to: A, kind: artifact }
  - { from: B, to: A, kind: artifact }
  - { from: A, to: T, kind: back_edge, laps: 2 }
${opts.extraEdges ?? ""}
`;
}

function load(text: string): Plan {
  const r = loadPlan(text, "p.yaml");
  if (!r.plan) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return r.plan;
}

function problems(text: string): string[] {
  const r = loadPlan(text, "p.yaml");
  return [...r.errors, ...r.warnings].map(formatDiagnostic);
}

const GRID = `space:
  learning_rate: { values: [0.05, 0.2] }
  depth: { range: [2, 4] }
grid: true
halving: { eta: 3, rungs: [6, 18] }`;

Deno.test("expandSweeps() replaces the sweep node by one node per configuration, ids and scopes of their own", () => {
  const p = expandSweeps(load(planText(GRID)));
  const ids = p.nodes.map((n) => n.id);
  deepEqual(ids, ["H", "B", "T_c01", "T_c02", "T_c03", "T_c04", "T_c05", "T_c06", "R", "A"]);
  for (const id of ids) match(id, /^[A-Za-z][A-Za-z0-9_-]{0,31}$/);
  deepEqual(p.nodes.filter((n) => n.id.startsWith("T_")).map((n) => n.scope), [
    "T_c01",
    "T_c02",
    "T_c03",
    "T_c04",
    "T_c05",
    "T_c06",
  ]);
  equal(p.nodes.some((n) => n.sweep), false, "no node of the expanded plan sweeps again");
  const g = p.sweeps![0]!;
  equal(g.node, "T");
  deepEqual(g.rankers, ["R"]);
  deepEqual(g.halving, { eta: 3, rungs: [6, 18], min_keep: 1 });
  // Sorted names, the first slowest: depth 2,3,4 × learning_rate 0.05, 0.2.
  deepEqual(g.configs.map((c) => c.args), [
    { depth: 2, learning_rate: 0.05 },
    { depth: 2, learning_rate: 0.2 },
    { depth: 3, learning_rate: 0.05 },
    { depth: 3, learning_rate: 0.2 },
    { depth: 4, learning_rate: 0.05 },
    { depth: 4, learning_rate: 0.2 },
  ]);
  deepEqual(g.configs.map((c) => c.stages), [30, 30, 30, 30, 30, 30]);
});

Deno.test("expandSweeps() merges arguments into the worker's and copies every edge of the sweep node", () => {
  const p = expandSweeps(load(planText(GRID)));
  const c4 = p.nodes.find((n) => n.id === "T_c04")!;
  deepEqual(c4.worker, {
    type: "builtin",
    name: "gbdt_train",
    args: { stages: 30, learning_rate: 0.2, ckpt_every: 6, depth: 3 },
  });
  match(c4.title, /depth=3, learning_rate=0\.2/);
  const into = (id: string) => p.edges.filter((e) => e.to === id).map((e) => `${e.from}-${e.kind}`).sort();
  deepEqual(into("T_c04"), ["A-back_edge", "H-artifact"]);
  deepEqual(
    p.edges.filter((e) => e.to === "R" && e.kind === "stream").map((e) => e.from),
    ["T_c01", "T_c02", "T_c03", "T_c04", "T_c05", "T_c06"],
  );
  equal(p.edges.some((e) => e.from === "T" || e.to === "T"), false);
  // Topological over artifact edges (streams never order), ties lexicographic: R and A wait on H and B only.
  deepEqual(p.order, ["H", "B", "R", "A", "T_c01", "T_c02", "T_c03", "T_c04", "T_c05", "T_c06"]);
});

Deno.test("expandSweeps() is deterministic, and count draws are distinct and follow the seed", () => {
  const text = planText(`space:
  learning_rate: { log_range: [0.01, 0.3] }
  depth: { range: [1, 6] }
count: 12`);
  const a = JSON.stringify(expandSweeps(load(text)));
  equal(a, JSON.stringify(expandSweeps(load(text))));
  const args = (t: string) => expandSweeps(load(t)).sweeps![0]!.configs.map((c) => c.args);
  const drawn = args(text);
  equal(drawn.length, 12);
  equal(new Set(drawn.map((c) => JSON.stringify(c))).size, 12);
  for (const c of drawn) {
    ok((c.learning_rate as number) >= 0.01 && (c.learning_rate as number) <= 0.3);
    ok(Number.isInteger(c.depth) && (c.depth as number) >= 1 && (c.depth as number) <= 6);
  }
  notDeepEqual(
    args(text.replace("count: 12", "count: 12\n      seed: 5")),
    drawn,
    "another seed, other draws",
  );
  deepEqual(
    args(text.replace("count: 12", "count: 12\n      seed: 11")),
    drawn,
    "the default seed is protocol.seed",
  );
});

Deno.test("domainOf() reads lists, integer and float ranges, and log-ranges with n points", () => {
  deepEqual(finiteValues(domainOf({ range: [1, 4] }) as never), [1, 2, 3, 4]);
  deepEqual(domainOf({ range: [0, 1, 3] }), { finite: true, values: [0, 0.5, 1] });
  deepEqual(domainOf({ range: [1, 4, 3] }), { finite: true, values: [1, 3, 4] });
  match(domainOf({ log_range: [1, 2, 5] }) as string, /only 2 distinct integer points, fewer than n = 5/);
  deepEqual(domainOf({ log_range: [20, 120, 4] }), { finite: true, values: [20, 36, 66, 120] });
  deepEqual(domainOf({ range: [0.1, 0.3] }), { finite: false, lo: 0.1, hi: 0.3, log: false, int: false });
  equal(domainOf({ values: [1, 1] }), "values lists a value twice");
  equal(domainOf({ range: [3, 1] }), "range needs low < high, got [3, 1]");
  equal(domainOf({ log_range: [0, 1] }), "log_range needs low > 0, got 0");
  equal(domainOf({ values: [1], range: [0, 1] }), "give exactly one of values, range, log_range");
  throws(() => configurations({ x: domainOf({ range: [0.1, 0.3] }) as never }, { grid: true }), RangeError);
});

Deno.test("a command worker gets its configuration as ARROW_ARG_ variables", () => {
  const text = planText(GRID).replace(
    "worker: { type: builtin, name: gbdt_train, args: { stages: 30, learning_rate: 0.1, ckpt_every: 6 } }",
    "worker: { type: command, argv: [python3, train.py], env: { KEEP: '1' } }",
  );
  const c1 = expandSweeps(load(text)).nodes.find((n) => n.id === "T_c01")!;
  deepEqual(c1.worker, {
    type: "command",
    argv: ["python3", "train.py"],
    env: { KEEP: "1", ARROW_ARG_DEPTH: "2", ARROW_ARG_LEARNING_RATE: "0.05" },
  });
});

Deno.test("mockProfile() starts from the mock trainer's own defaults and derives speed and ceiling from the arguments", () => {
  for (const shape of ["rise_cross", "rise_plateau", "flat", "curve"] as const) {
    const n = normalizeProfile({ shape, ...(shape === "curve" ? { values: [0.5] } : {}) });
    if (shape !== "curve") equal(n.stages, MOCK_DEFAULTS.stages);
    equal(n.start, MOCK_DEFAULTS.start[shape], shape);
    equal(n.peak, MOCK_DEFAULTS.peak[shape], shape);
    equal(n.tau, MOCK_DEFAULTS.tau[shape], shape);
  }
  const p = expandSweeps(load(planText(GRID)));
  const t = p.nodes.find((n) => n.id === "T_c01")!;
  const slow = mockProfile({ ...t, mock: {} }, { learning_rate: 0.05, depth: 3 });
  const fast = mockProfile({ ...t, mock: {} }, { learning_rate: 0.2, depth: 3 });
  ok(slow.tau! > fast.tau!, "a smaller learning rate learns more slowly");
  ok(slow.peak! > fast.peak!, "a learning rate above the reference costs ceiling");
  equal(slow.stages, 30, "stages come from the worker's arguments");
  deepEqual(mockProfile({ ...t, mock: {} }, { stages: 12 }).stages, 12);
});

Deno.test("prepare() expands sweeps and aims a fault at the sweep node at every configuration", () => {
  const s = prepare(load(planText(GRID)), [{ kind: "crash", node: "T", at_step: 3 }], "t", "mock");
  deepEqual(s.faults.map((f) => f.node), ["T_c01", "T_c02", "T_c03", "T_c04", "T_c05", "T_c06"]);
  equal(Object.keys(s.nodes).includes("T"), false);
  equal(s.nodes.T_c03!.status, "pending");
});

Deno.test("validateSweeps() names each problem by file:line:col", () => {
  const cases: [string, string, RegExp][] = [
    [
      planText(GRID).replace("kind: long\n    role: train", "kind: fast\n    role: train"),
      "fast",
      /only a long node/,
    ],
    [
      planText(GRID.replace("grid: true", "grid: true\ncount: 3")),
      "both",
      /exactly one of count: N or grid: true/,
    ],
    [planText(GRID.replace("grid: true", "")), "neither", /exactly one of count: N or grid: true/],
    [
      planText(GRID.replace("{ range: [2, 4] }", "{ range: [0.5, 4] }")),
      "continuous",
      /no finite list of values for a grid/,
    ],
    [planText(GRID.replace("{ range: [2, 4] }", "{ log_range: [0, 4] }")), "log", /log_range needs low > 0/],
    [planText(GRID.replace("[6, 18]", "[18, 6]")), "rungs", /rungs of "T" must increase: 6 follows 18/],
    [
      planText(GRID.replace("grid: true", "count: 7")),
      "count",
      /holds 6 distinct configurations, fewer than count 7/,
    ],
    [
      planText(GRID, { extraEdges: "  - { from: T, to: A, kind: artifact }" }),
      "artifact",
      /draw the edge from the ranker/,
    ],
    [
      planText(GRID).replace("  - { from: T, to: R, kind: stream }\n", "").replace(
        "- { id: R, kind: reactive, role: eval }",
        "- { id: R, kind: fast, role: eval }",
      ),
      "ranker",
      /has no ranker/,
    ],
    [
      planText(GRID, { extraNodes: "  - { id: T_c02, kind: fast, role: other }" }),
      "clash",
      /"T_c02" of "T" is taken/,
    ],
    [
      planText(GRID, { extraNodes: "  - { id: Z, kind: fast, role: other, scope: T_c03/x }" }),
      "scope",
      /clashes/,
    ],
    [planText(GRID.replace("depth:", "bad-name:")), "name", /must match/],
  ];
  for (const [text, label, want] of cases) {
    const found = problems(text);
    const hit = found.find((m) => want.test(m));
    ok(hit, `${label}: expected ${want} among ${JSON.stringify(found)}`);
    match(hit!, /^p\.yaml:\d+:\d+: /, `${label}: a file:line:col position`);
  }
  const long = problems(planText(GRID).replaceAll("T", "Tttttttttttttttttttttttttttttt"));
  ok(long.some((m) => /too long to name its 6 configurations/.test(m)), JSON.stringify(long));
});

Deno.test("validateSweeps() points at the exact key: the sweep of a fast node, a bad parameter", () => {
  const text = planText(GRID).replace("kind: long\n    role: train", "kind: fast\n    role: train");
  const lines = text.split("\n");
  const row = lines.findIndex((l) => l.trim() === "sweep:") + 1;
  ok(
    problems(text).includes(`p.yaml:${row}:5: only a long node can sweep ("T" is fast)`),
    problems(text).join("\n"),
  );
  const bad = planText(GRID.replace("{ range: [2, 4] }", "{ range: [4, 2] }"));
  const at = bad.split("\n").findIndex((l) => l.includes("depth:")) + 1;
  ok(
    problems(bad).includes(
      `p.yaml:${at}:9: sweep parameter "depth" of "T": range needs low < high, got [4, 2]`,
    ),
    problems(bad).join("\n"),
  );
});

Deno.test("validateSweeps() warns of a rung no configuration reaches", () => {
  const w = problems(planText(GRID.replace("[6, 18]", "[6, 18, 54]")));
  ok(
    w.some((m) => /no configuration of "T" reaches rung 54 \(the longest trains 30 stages\)/.test(m)),
    w.join("\n"),
  );
});
