import { STRONG_GBDT } from "../../tabular/gbdt_params.ts";
import { deepEqual, equal, notEqual, ok as truthy } from "node:assert/strict";
import { fakeStart, folds, ok, run } from "../../../tests/tree_fake.ts";
import { DEFAULT_GBDT, gbdtParams } from "../../tabular/gbdt.ts";
import {
  allIdeas,
  CONFIG_DRAWS,
  configIdeas,
  libraryIdeas,
  libraryWrote,
  LINEAR_ALPHAS,
  LINEAR_TUNE,
  linearIdeas,
} from "./library.ts";
import { step } from "../step.ts";
import { familyEffects, screenEffects } from "./insight.ts";
import type { Hypothesis, TreeEvent, TreeState } from "../types.ts";

const baseline: TreeEvent[] = [
  { e: "executed", results: [ok("n0", folds(0.8))] },
  { e: "gated", node: "n0", score: 0.8, problem: null, escapes: [] },
];

Deno.test("libraryIdeas() is deterministic in its seed and differs across seeds only in ties", () => {
  const s = run(fakeStart(), baseline).state;
  const a = libraryIdeas(s, "n0", 4, 11).map((h) => h.key);
  deepEqual(libraryIdeas(s, "n0", 4, 11).map((h) => h.key), a);
  equal(a.length, 4);
  equal(new Set(a).size, 4);
});

Deno.test("libraryIdeas() puts distinct families first and writes a module for every feature idea", () => {
  const s = run(fakeStart(), baseline).state;
  const ideas = libraryIdeas(s, "n0", 5, 1);
  equal(new Set(ideas.map((h) => h.family)).size, 5);
  for (const h of ideas) {
    if (h.family === "capacity" || h.family === "linear_model") {
      equal(h.step, null);
      truthy(Object.keys(h.model).length > 0);
    } else {
      truthy(h.step?.source.includes(`from "../../../src/tabular/mod.ts"`), h.key);
      truthy(h.step?.path.startsWith("steps/001_"), h.key);
    }
  }
});

Deno.test("libraryIdeas() never proposes what is already on the path or already tried under the parent", () => {
  let s = run(fakeStart(), baseline).state;
  const first = libraryIdeas(s, "n0", 2, 1);
  s = run(fakeStart(), [...baseline, {
    e: "proposed",
    parent: "n0",
    hypotheses: first,
    problems: [],
    tokens: 0,
  }]).state;
  const again = libraryIdeas(s, "n0", 50, 1).map((h) => h.key);
  for (const h of first) equal(again.includes(h.key), false, h.key);
  const under = libraryIdeas(s, "n1", 50, 1).map((h) => h.key);
  equal(under.includes(first[0]!.key), false);
});

Deno.test("libraryIdeas() in random mode draws from the same space, by the seed", () => {
  const s = run(fakeStart({ search: "random" }), baseline).state;
  const a = libraryIdeas(s, "n0", 6, 1).map((h) => h.key);
  deepEqual(libraryIdeas(s, "n0", 6, 1).map((h) => h.key), a);
  notEqual(libraryIdeas(s, "n0", 6, 2).join(), a.join());
  const space = new Set(libraryIdeas(run(fakeStart(), baseline).state, "n0", 500, 1).map((h) => h.key));
  for (const k of a) truthy(space.has(k), k);
});

/** Two hypotheses of `family` under the root, both evaluated with `delta` against the root. */
function triedTwice(family: Hypothesis["family"], delta: number, insights: boolean): TreeState {
  const start = fakeStart({ insights, cycles: 9 });
  const s = run(start, baseline).state;
  const space = libraryIdeas({ ...s, config: { ...s.config, insights: false } }, "n0", 500, 1);
  const two = space.filter((h) => h.family === family).slice(0, 2);
  equal(two.length, 2, `two ${family} ideas`);
  return run(start, [
    ...baseline,
    { e: "proposed", parent: "n0", hypotheses: two, problems: [], tokens: 0 },
    { e: "executed", results: [ok("n1", folds(0.8, delta)), ok("n2", folds(0.8, delta))] },
  ]).state;
}

Deno.test("insights change ideation: a family that hurt twice under a branch is not proposed there again", () => {
  const withInsights = triedTwice("product", -0.03, true);
  equal(withInsights.nodes.n1!.insight?.outcome, "hurt");
  const learned = libraryIdeas(withInsights, "n0", 500, 1);
  equal(learned.some((h) => h.family === "product"), false);
  const blind = triedTwice("product", -0.03, false);
  truthy(libraryIdeas(blind, "n0", 500, 1).some((h) => h.family === "product"));
});

Deno.test("insights change ideation: a family that helped is extended to similar columns first", () => {
  const s = triedTwice("missing_indicator", 0.03, true);
  equal(s.nodes.n1!.insight?.outcome, "helped");
  const next = libraryIdeas(s, "n1", 3, 1);
  equal(next[0]!.family, "missing_indicator");
  const blind = triedTwice("missing_indicator", 0.03, false);
  notEqual(libraryIdeas(blind, "n1", 3, 1)[0]!.family, "missing_indicator");
});

Deno.test("insights change ideation: what another branch measured moves a hypothesis down (nothing) or up (helped)", () => {
  // n1 and n2 under the root; n2's child n3 tries an idea n1 would rank high; then n1's ideas are ranked again.
  const grow = (delta: number) => {
    const start = fakeStart({ insights: true, cycles: 9 });
    const s = run(start, baseline).state;
    const space = libraryIdeas({ ...s, config: { ...s.config, insights: false } }, "n0", 500, 1);
    const [a, b] = [space[0]!, space[1]!];
    const s2 = run(start, [
      ...baseline,
      { e: "proposed", parent: "n0", hypotheses: [a, b], problems: [], tokens: 0 },
      { e: "executed", results: [ok("n1", folds(0.8, 0.03)), ok("n2", folds(0.8, 0.03))] },
    ]).state;
    // The best idea under n1 of a family neither n1 nor n2 tried (so the branch's own insights say nothing).
    const ranked = libraryIdeas(s2, "n1", 500, 1);
    const idea = ranked.find((h) => h.family !== a.family && h.family !== b.family)!;
    const gated = step(s2, { e: "gated", node: "n1", score: null, problem: "not asked", escapes: [] }).state;
    const s3 = run(gated, [
      { e: "proposed", parent: "n2", hypotheses: [idea], problems: [], tokens: 0 },
      { e: "executed", results: [ok("n3", folds(0.83, delta))] },
    ]).state;
    equal(s3.nodes.n3?.parent, "n2");
    const at = (list: Hypothesis[]) => list.findIndex((h) => h.key === idea.key);
    return { before: at(ranked), after: at(libraryIdeas(s3, "n1", 500, 1)) };
  };
  const neutral = grow(0);
  truthy(
    neutral.after > neutral.before,
    `showed nothing under n2: lower under n1 ${JSON.stringify(neutral)}`,
  );
  const helped = grow(0.03);
  truthy(
    helped.after >= 0 && helped.after <= helped.before,
    `helped under n2: not lower ${JSON.stringify(helped)}`,
  );
});

Deno.test("libraryWrote() trusts a step only when the library's template writes exactly it again", () => {
  const s = run(fakeStart(), baseline).state;
  const ideas = libraryIdeas(s, "n0", 12, 5).filter((h) => h.step);
  truthy(ideas.length >= 5, `${ideas.length} ideas with a module`);
  for (const h of ideas) {
    truthy(libraryWrote(s, h), h.key);
    // The same idea with one character of its module changed, or claimed by another ideator, is not.
    equal(libraryWrote(s, { ...h, step: { ...h.step!, source: h.step!.source + " " } }), false, h.key);
    equal(libraryWrote(s, { ...h, source: "llm" }), false, h.key);
    // Its text is part of the module (a comment): another text is another module.
    equal(libraryWrote(s, { ...h, text: `${h.text}!` }), false, h.key);
  }
  // A capacity change has no module to trust.
  const capacity = libraryIdeas(s, "n0", 40, 5).find((h) => !h.step);
  truthy(capacity && !libraryWrote(s, capacity));
});

Deno.test("materialize() lists the content hash of each library step on the node's path, and of nothing else", async () => {
  const { materialize } = await import("../execute/executor.ts");
  const { createHash } = await import("node:crypto");
  let s = run(fakeStart(), baseline).state;
  const lib = libraryIdeas(s, "n0", 10, 5).find((h) => h.step)!;
  const foreign: Hypothesis = {
    ...lib,
    key: "llm:x",
    family: "llm",
    source: "llm",
    step: {
      path: "steps/002_llm.ts",
      source: "export default { fit: () => null, transform: (_s, r) => r };",
    },
  };
  s = step(s, { e: "proposed", parent: "n0", hypotheses: [lib], problems: [], tokens: 0 }).state;
  // A child of n1 written by another ideator (made here: the step function's order is not under test).
  const n1 = s.nodes.n1!;
  const child = {
    ...n1,
    id: "n2",
    parent: "n1",
    hypothesis: foreign,
    artifact: { steps: [...n1.artifact.steps, foreign.step!.path], model: {} },
  };
  s.nodes.n2 = child;
  const dir = Deno.makeTempDirSync({ prefix: "arrow-tree-manifest-" });
  try {
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    const read = (d: string) => JSON.parse(Deno.readTextFileSync(`${d}/artifact.json`));
    const m1 = read(materialize(`${dir}/n1`, s, s.nodes.n1!));
    deepEqual(m1.library, [sha(lib.step!.source)]);
    const m2 = read(materialize(`${dir}/${child.id}`, s, child));
    deepEqual(m2.steps, [lib.step!.path, foreign.step!.path]);
    deepEqual(m2.library, [sha(lib.step!.source)], "the LLM's step is not listed");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("configIdeas() draws whole GBDT configurations: several knobs, valid, seeded per run and parent", () => {
  const s = fakeStart();
  const root = s.nodes.n0!;
  const a = configIdeas(root, 7), b = configIdeas(root, 7), c = configIdeas(root, 8);
  // The toolkit's strong default first, then the drawn ones.
  equal(a.length, CONFIG_DRAWS + 1);
  equal(a[0]!.params.config, "strong");
  deepEqual(a[0]!.model, { ...STRONG_GBDT });
  equal(configIdeas({ ...root, artifact: { steps: [], model: { ...STRONG_GBDT } } }, 7).length, CONFIG_DRAWS);
  deepEqual(a, b, "the same run seed and parent draw the same configurations");
  truthy(JSON.stringify(a) !== JSON.stringify(c), "another run seed draws others");
  for (const i of a) {
    const changed = Object.entries(i.model).filter(([k, v]) =>
      v !== (DEFAULT_GBDT as unknown as Record<string, number>)[k]
    );
    truthy(changed.length >= 3, `several knobs at once: ${i.text}`);
    gbdtParams(i.model); // throws on an invalid value
    truthy(i.model.stages! * i.model.learningRate! >= 5, `stages matched to the learning rate: ${i.text}`);
  }
  const offered = libraryIdeas(s, "n0", 400, 1).filter((h) =>
    h.family === "capacity" && "config" in h.params
  );
  equal(offered.length, CONFIG_DRAWS + 1, "the library offers them");
});

Deno.test("the linear family: a tuned strength first, then an L2 grid, replacing a GBDT parent's settings", () => {
  const s = run(fakeStart(), baseline).state;
  const root = s.nodes.n0!;
  const lin = linearIdeas(root);
  deepEqual(lin.map((i) => i.model), [
    { kind: "linear", alpha: 1, tune: LINEAR_TUNE },
    ...LINEAR_ALPHAS.map((alpha) => ({ kind: "linear", alpha })),
  ]);
  truthy(lin[0]!.prior > Math.max(...lin.slice(1).map((i) => i.prior)), "the tuned model is tried first");
  const parent = { ...root, artifact: { steps: [], model: { kind: "linear" as const, alpha: 3 } } };
  // From a linear parent: the tuned strength, the other strengths, whole GBDT configurations (kind gbdt), no
  // one-knob moves.
  deepEqual(linearIdeas(parent).map((i) => i.params.alpha ?? "tuned"), [
    "tuned",
    ...LINEAR_ALPHAS.filter((a) => a !== 3),
  ]);
  const moves = allIdeas(s.dataset.columns, parent, 1).filter((i) => i.family === "capacity");
  truthy(moves.length > 0 && moves.every((i) => i.model.kind === "gbdt" && "config" in i.params));
  // A tuned linear parent has no strength left to set.
  const tuned = { ...root, artifact: { steps: [], model: { kind: "linear" as const, alpha: 1, tune: 3 } } };
  deepEqual(linearIdeas(tuned), []);
});

Deno.test("familyEffects(): an effect estimate that grows with evidence, its uncertainty shrinking", () => {
  const scale = 0.01;
  const node = (id: string, family: Hypothesis["family"], mean: number, std: number) => ({
    [id]: {
      insight: {
        family,
        columns: [],
        outcome: "neutral",
        delta: { mean, std, folds: [0, 0, 0, 0, 0] },
        why: "",
        sentence: "",
      },
    },
  });
  const one = familyEffects({ ...node("a", "ratio", 0.02, 0.02) } as never, scale).get("ratio")!;
  const three = familyEffects(
    {
      ...node("a", "ratio", 0.02, 0.02),
      ...node("b", "ratio", 0.02, 0.02),
      ...node("c", "ratio", 0.02, 0.02),
    } as never,
    scale,
  ).get("ratio")!;
  equal(one.n, 1);
  truthy(one.shrunk > 0 && one.shrunk < 0.02, `shrunk toward no effect: ${one.shrunk}`);
  truthy(three.shrunk > one.shrunk, "more of the same evidence, nearer the measured mean");
  truthy(three.sd < one.sd, "and surer");
  // A failed node carries no delta; a family never measured has no estimate.
  const failed = { f: { insight: { family: "log", outcome: "failed", delta: null } } };
  equal(familyEffects(failed as never, scale).has("log"), false);
});

Deno.test("insights as effects: a family measured twice at no effect gives way to one not yet tried", () => {
  const s = triedTwice("ratio", 0, true);
  equal(s.nodes.n1!.insight?.outcome, "neutral");
  const ranked = libraryIdeas(s, "n0", 500, 1);
  const blind = libraryIdeas({ ...s, config: { ...s.config, insights: false } }, "n0", 500, 1);
  const firstOf = (list: Hypothesis[], f: string) => list.findIndex((h) => h.family === f);
  // Without insights the ratio family keeps its prior's place; with them it falls behind an untried family.
  truthy(
    firstOf(ranked, "ratio") > firstOf(blind, "ratio"),
    `${firstOf(ranked, "ratio")} vs ${firstOf(blind, "ratio")}`,
  );
});

Deno.test("libraryIdeas() with insights puts an interaction of the parent's strongest columns and the drop of a noise column first", () => {
  const measured = (importance: Record<string, number>, config = {}) => {
    const s = run(fakeStart(config), baseline).state;
    s.nodes.n0!.importance = importance;
    return s;
  };
  // x3 and x2 are what the root relies on; shuffling "group" lowered its loss (noise it fitted).
  const importance = { x1: 0, x2: 0.04, x3: 0.09, group: -0.01, name: 0.002 };
  const keys = (s: TreeState) => libraryIdeas(s, "n0", 60, 1).map((h) => h.key);
  const withImp = keys(measured(importance));
  const without = keys(run(fakeStart(), baseline).state);
  // Pairs are formed strongest first (x3 before x2), so the interaction's key names them in that order.
  const at = (ks: string[], k: string) => Math.max(ks.indexOf(k), ks.indexOf(k.replace("x2+x3", "x3+x2")));
  for (const k of ["ratio:x2+x3", "product:x2+x3", "drop_column:group"]) {
    truthy(
      at(withImp, k) >= 0 && at(withImp, k) < at(without, k),
      `${k}: ${at(withImp, k)} vs ${at(without, k)}`,
    );
  }
  // A column that helps is not dropped first; without insights the importances change nothing.
  truthy(at(withImp, "drop_column:x3") >= at(without, "drop_column:x3") - 1);
  deepEqual(
    keys(measured(importance, { insights: false })),
    keys(run(fakeStart({ insights: false }), baseline).state),
  );
});

Deno.test("screenEffects() pools the screens by family, column and key; with insights a family the screens found worse gives way", () => {
  const s = run(fakeStart(), baseline).state;
  const screened = (key: string, family: Hypothesis["family"], columns: string[], z: number) => ({
    key,
    family,
    columns,
    text: key,
    gain: { loss: "logloss" as const, gain: 0.01 * z, se: 0.01, n: 100, z },
    problem: null,
    promoted: false,
  });
  const before = libraryIdeas(s, "n0", 60, 1).map((h) => h.key);
  // Four linear models screened elsewhere, all clearly worse; a ratio on x3 clearly better.
  s.nodes.n0!.screened = [
    ...[1, 2, 3, 4].map((i) => screened(`linear_model::alpha=${i}`, "linear_model", [], -2.5)),
    screened("ratio:x3+x9", "ratio", ["x3"], 3),
  ];
  const e = screenEffects(s.nodes);
  equal(e.family.get("linear_model")!.n, 4);
  equal(e.family.get("linear_model")!.shrunk, (4 * -2.5) / 5, "k·z̄/(k + 1)");
  equal(e.family.get("linear_model")!.sd, 1 / Math.sqrt(5));
  equal(e.column.get("x3")!.shrunk, 1.5);
  const after = libraryIdeas(s, "n0", 60, 1).map((h) => h.key);
  const firstLinear = (ks: string[]) => ks.findIndex((k) => k.startsWith("linear_model"));
  truthy(firstLinear(after) > firstLinear(before), `${firstLinear(after)} vs ${firstLinear(before)}`);
  const x3 = (ks: string[]) => ks.findIndex((k) => k.includes("x3") && !k.startsWith("drop"));
  truthy(x3(after) <= x3(before), `${x3(after)} vs ${x3(before)}`);
  // Without insights the screens change no ranking.
  const t = run(fakeStart({ insights: false }), baseline).state;
  const plain = libraryIdeas(t, "n0", 60, 1).map((h) => h.key);
  t.nodes.n0!.screened = s.nodes.n0!.screened;
  deepEqual(
    libraryIdeas(t, "n0", 60, 1).map((h) => h.key).filter((k) => !k.startsWith("linear")),
    plain.filter((k) => !k.startsWith("linear")),
  );
});
