/**
 * The library ideator: offline and deterministic. It enumerates every concrete hypothesis the dataset admits
 * (families × columns, described from dev rows only), drops those already on the path or already tried
 * under the parent, and ranks the rest:
 *
 * - **tree / greedy** — a fixed prior per family (what usually matters to a gradient-boosted tree: text
 *   structure, target and frequency encodings of many-level columns, interactions, capacity; least, a log,
 *   which a tree is blind to), plus, with insights on, what the branch has learned (`branchInsights`): a
 *   family that hurt twice there, or failed twice, is not proposed again; a hypothesis tried there that did
 *   not help is not retried; one that helped on another branch is transferred here first; a family that
 *   helped is extended to similar columns (same kind, or sharing a column); a family neutral twice waits.
 *   Ties break by a seeded draw. The n best are taken, distinct families first. Beside one-knob capacity
 *   moves, the space holds whole GBDT configurations drawn per parent (`configIdeas`).
 * - **random** — a seeded uniform draw from the same candidates, the same number.
 *
 * @module
 */
import { DEFAULT_GBDT, type GbdtParams } from "../../tabular/gbdt.ts";
import { OPTIONAL_GBDT_DEFAULTS, STRONG_GBDT } from "../../tabular/gbdt_params.ts";
import { mulberry32, subSeed } from "../../tabular/prng.ts";
import { type Idea, pathOf, withInsights } from "./rank.ts";
import type { ColumnEvidence } from "./evidence.ts";
import { type CodeContext, moduleSource } from "./library_code.ts";
import { draw } from "./select.ts";
import type { ColumnInfo, Family, Hypothesis, TreeNode, TreeState } from "../types.ts";
import { FAMILY_NAMES, priorOf } from "./families.ts";

export type { Idea } from "./rank.ts";

/** The library's prior for each family (families.ts). */
const PRIOR = Object.fromEntries(FAMILY_NAMES.map((f) => [f, priorOf(f)])) as Record<Family, number>;

const q = (s: string) => JSON.stringify(s);

/** Families whose step removes the column it acts on. */
const REMOVES: ReadonlySet<Family> = new Set(["drop_column", "date_parts"]);

/** What the library's step modules are written for in run `s` (the same for every node of the run). */
export function codeContext(s: TreeState): CodeContext {
  return {
    toolkit: s.config.toolkit,
    target: s.dataset.target,
    classes: s.dataset.task === "regression" ? [] : s.dataset.classes,
    seed: s.config.seed,
  };
}

/**
 * Whether `h`'s step module is exactly what the library writes for it: Arrow's own code, which the harness
 * may run beside the encoders instead of in a fresh worker per fit (the isolation untrusted code needs).
 * Decided by writing the module again from the hypothesis' family, columns and parameters, never by a flag.
 */
export function libraryWrote(s: TreeState, h: Hypothesis): boolean {
  if (!h.step || h.source !== "library") return false;
  return moduleSource(h.family, h.columns, h.params, h.text, codeContext(s)) === h.step.source;
}

export function keyOf(family: Family, columns: string[], params: Record<string, number | string>): string {
  const p = Object.keys(params).sort().map((k) => `${k}=${params[k]}`).join(",");
  return `${family}:${columns.join("+")}${p ? `:${p}` : ""}`;
}

/** The fixed L2 strengths the linear family also tries (on standardised encoded features). */
export const LINEAR_ALPHAS: readonly number[] = [0.3, 3, 30];

/** Inner folds the tuned linear model chooses its strength on (tabular/linear.ts TUNE_ALPHAS). */
export const LINEAR_TUNE = 3;

/**
 * The toolkit's regularised linear model (ridge, or L2 logistic/softmax) on the parent's encoded features: a
 * model of another family, which wins where the signal is mostly additive and the rows are few, and errs on
 * other rows than a GBDT (what an ensemble needs). First the model whose strength an inner cross-validation
 * on each fit's training rows chooses (`tune`: the strength that suits a dataset differs by orders of
 * magnitude — on penguins 0.1 loses a sixth of what 3 loses — and one fixed guess would judge the whole
 * family by it), then one hypothesis per fixed strength in LINEAR_ALPHAS. A tuned linear parent has no
 * strength left to set.
 */
export function linearIdeas(parent: TreeNode): Idea[] {
  const m = parent.artifact.model;
  const linear = m.kind === "linear";
  if (linear && m.tune !== undefined) return [];
  const was = linear ? ` (was ${m.alpha ?? 1})` : "";
  const tuned: Idea = {
    family: "linear_model",
    columns: [],
    params: { tune: LINEAR_TUNE },
    text: linear
      ? `Choose the linear model's L2 strength by ${LINEAR_TUNE}-fold cross-validation on the training rows${was}.`
      : `Replace the GBDT by a regularised linear model on the encoded features, its L2 strength chosen by ` +
        `${LINEAR_TUNE}-fold cross-validation on the training rows.`,
    model: { kind: "linear", alpha: 1, tune: LINEAR_TUNE },
    prior: PRIOR.linear_model + 0.05,
  };
  return [
    tuned,
    ...LINEAR_ALPHAS.filter((alpha) => !(linear && alpha === (m.alpha ?? 1))).map((alpha) => ({
      family: "linear_model" as const,
      columns: [],
      params: { alpha },
      text: linear
        ? `Set the linear model's L2 strength to ${alpha}${was}.`
        : `Replace the GBDT by a regularised linear model (L2 strength ${alpha}) on the encoded features.`,
      model: { kind: "linear" as const, alpha },
      prior: PRIOR.linear_model + (alpha === 3 ? 0.02 : 0),
    })),
  ];
}

function capacityIdeas(parent: TreeNode): Idea[] {
  // A linear parent's one knob is its L2 strength (linearIdeas); its GBDT moves are whole configurations.
  if (parent.artifact.model.kind === "linear") return [];
  const m: GbdtParams = { ...DEFAULT_GBDT, ...parent.artifact.model };
  const out: Idea[] = [];
  const add = (
    param: keyof GbdtParams,
    value: number,
    also: Partial<GbdtParams> = {},
    prior = PRIOR.capacity,
  ) => {
    out.push({
      family: "capacity",
      columns: [],
      params: { [param]: value, ...also } as Record<string, number>,
      text: `Set the model's ${param} to ${value} (was ${m[param]})${
        Object.keys(also).length
          ? ` with ${Object.entries(also).map(([k, v]) => `${k} ${v}`).join(", ")}`
          : ""
      }.`,
      model: { [param]: value, ...also },
      prior,
    });
  };
  if (m.maxDepth < 8) add("maxDepth", m.maxDepth + 1);
  if (m.maxDepth > 1) add("maxDepth", m.maxDepth - 1, {}, PRIOR.capacity - 0.05);
  if (m.stages <= 200 && m.learningRate > 0.01) {
    add("learningRate", Number((m.learningRate / 2).toPrecision(3)), { stages: m.stages * 2 });
  }
  if (m.minSamplesLeaf < 64) {
    add("minSamplesLeaf", m.minSamplesLeaf === 1 ? 8 : m.minSamplesLeaf * 2, {}, PRIOR.capacity - 0.05);
  }
  if (m.subsample === 1) add("subsample", 0.8, {}, PRIOR.capacity - 0.1);
  if (m.stages <= 200) add("stages", m.stages * 2, {}, PRIOR.capacity - 0.1);
  return out;
}

/** Whole configurations drawn per parent (several knobs at once: one knob at a time from an untuned start
 * climbs slowly, since the knobs interact — a lower learning rate needs more stages, a deeper tree a larger
 * leaf or more L2). */
export const CONFIG_DRAWS = 4;

/**
 * `CONFIG_DRAWS` whole GBDT configurations for children of `parent`, drawn (seeded by the run's seed and the
 * parent, so re-ideating a parent proposes the same ones) from a distribution around what usually works on
 * small tabular data: learning rate log-uniform in [0.02, 0.2] with stages ≈ 12 / rate (60–400, so the
 * shrinkage is matched by boosting length), depth 2–6, minimum leaf 1–40, L2 log-uniform in [0.1, 10],
 * subsample 0.6–1, bins 32–255, column share 0.5–1, and for half of them twice the stages with early
 * stopping on 15 % of the training rows held aside (30 stages without a gain).
 */
export function configIdeas(parent: TreeNode, runSeed: number): Idea[] {
  const rng = mulberry32(subSeed(runSeed, `config:${parent.id}`));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const logUniform = (lo: number, hi: number) =>
    Math.exp(Math.log(lo) + rng() * (Math.log(hi) - Math.log(lo)));
  const linear = parent.artifact.model.kind === "linear";
  const base: GbdtParams = { ...OPTIONAL_GBDT_DEFAULTS, ...DEFAULT_GBDT };
  const was: GbdtParams = linear ? base : { ...base, ...parent.artifact.model };
  const drawn = Array.from({ length: CONFIG_DRAWS }, (_, i): Idea => {
    const learningRate = Number(logUniform(0.02, 0.2).toPrecision(2));
    const model: Partial<GbdtParams> = {
      learningRate,
      stages: Math.min(400, Math.max(60, Math.round(12 / learningRate / 10) * 10)),
      maxDepth: pick([2, 3, 4, 5, 6]),
      minSamplesLeaf: pick([1, 5, 10, 20, 40]),
      l2: Number(logUniform(0.1, 10).toPrecision(2)),
      subsample: pick([0.6, 0.7, 0.8, 0.9, 1]),
      maxBins: pick([32, 64, 128, 255]),
      colsample: pick([0.5, 0.7, 0.85, 1]),
    };
    // Half the draws grow up to twice the stages and stop on a held-aside part of their training rows, so the
    // boosting length is found rather than guessed.
    if (rng() < 0.5) {
      Object.assign(model, {
        stages: Math.min(800, 2 * model.stages!),
        validationFraction: 0.15,
        earlyStoppingRounds: 30,
      });
    }
    const changed = (Object.keys(model) as (keyof GbdtParams)[]).filter((k) => model[k] !== was[k]);
    // From a linear parent, back to a GBDT: the configuration replaces the linear settings whole.
    if (linear) return { ...configIdea(i, model, changed, was), model: { kind: "gbdt", ...model } };
    return configIdea(i, model, changed, was);
  });
  // The toolkit's strong default as a whole configuration, first among them (what a practitioner tries
  // first), unless the parent already is it.
  const strong: Partial<GbdtParams> = { ...STRONG_GBDT };
  const differs = (Object.keys(strong) as (keyof GbdtParams)[]).filter((k) => strong[k] !== was[k]);
  if (!linear && !differs.length) return drawn;
  const idea = configIdea("strong", strong, differs, was);
  return [
    {
      ...idea,
      text: idea.text.replace("Retune the model as a whole", "Switch to the toolkit's strong default"),
      prior: idea.prior + 0.05,
      ...(linear ? { model: { kind: "gbdt" as const, ...strong } } : {}),
    },
    ...drawn,
  ];
}

function configIdea(
  i: number | string,
  model: Partial<GbdtParams>,
  changed: (keyof GbdtParams)[],
  was: GbdtParams,
): Idea {
  return {
    family: "capacity",
    columns: [],
    params: { config: i, ...model } as Record<string, number>,
    text: `Retune the model as a whole: ${
      changed.map((k) => `${k} ${model[k]} (was ${was[k]})`).join(", ")
    }.`,
    model,
    prior: PRIOR.capacity + 0.1,
  };
}

/** Every hypothesis the columns admit (capacity relative to `parent`'s settings; whole configurations
 * drawn with `runSeed`). With `byImportance` (insights on), the numeric columns paired into interactions are
 * the ones the parent relies on most (its permutation importances), not the first in the file. */
export function allIdeas(columns: ColumnInfo[], parent: TreeNode, runSeed = 0, byImportance = false): Idea[] {
  const ideas: Idea[] = [];
  const idea = (
    family: Family,
    cols: string[],
    text: string,
    params: Record<string, number | string> = {},
    bonus = 0,
  ) => ideas.push({ family, columns: cols, params, text, model: {}, prior: PRIOR[family] + bonus });
  const numeric = columns.filter((c) => c.kind === "numeric" && c.distinct > 5);
  const cats = columns.filter((c) => c.kind === "categorical");
  for (const c of columns) {
    if (c.missing > 0 && c.kind !== "text") {
      idea("missing_indicator", [c.name], `Flag the rows where ${q(c.name)} is missing.`);
    }
  }
  for (const c of numeric) {
    if (c.min !== null && c.min >= 0 && c.distinct > 10) {
      idea("log", [c.name], `Add log1p(${q(c.name)}) to spread its skewed range.`);
    }
    if (c.distinct > 10) {
      idea("binning", [c.name], `Bin ${q(c.name)} into 5 quantile bins fit on training rows.`, { bins: 5 });
    }
  }
  const imp = byImportance ? parent.importance : undefined;
  const pairs = (imp ? strongestFirst(numeric, imp) : numeric).slice(0, 8);
  for (let i = 0; i < pairs.length; i++) {
    for (let j = i + 1; j < pairs.length; j++) {
      const a = pairs[i]!.name, b = pairs[j]!.name;
      idea("ratio", [a, b], `Add the ratio ${q(a)} / ${q(b)}.`);
      // A product is symmetric: one key for both orders, whichever order the columns were paired in.
      const [x, y] = a < b ? [a, b] : [b, a];
      idea("product", [x, y], `Add the product ${q(x)} × ${q(y)}.`);
    }
  }
  for (const c of cats) {
    if (c.rare > 0 && c.distinct > 2) {
      idea("rare_group", [c.name], `Pool the rare levels of ${q(c.name)} into one.`);
    }
    if (c.distinct >= 3) {
      const many = c.distinct > 10 ? 0.1 : 0;
      idea("frequency_encode", [c.name], `Encode ${q(c.name)} by how often each level occurs.`, {}, many);
      idea("target_encode", [c.name], `Encode ${q(c.name)} by its out-of-fold target mean.`, {}, many);
    }
  }
  for (const c of columns) {
    if (!c.date && (c.kind === "text" || (c.kind === "categorical" && c.nameLike))) {
      idea("text_features", [c.name], `Pull a title or maker out of the text ${q(c.name)}.`, {
        part: "title",
      });
      idea(
        "text_features",
        [c.name],
        `Add the length and word count of ${q(c.name)}.`,
        { part: "length" },
        -0.3,
      );
      idea(
        "text_features",
        [c.name],
        `Count the rows that share ${q(c.name)}'s value (a shared ticket or id, a name's surname: a group).`,
        { part: "group" },
        -0.1,
      );
    }
  }
  const groups = cats.filter((c) => c.distinct >= 2 && c.distinct <= 50).slice(0, 4);
  for (const n of numeric.slice(0, 6)) {
    for (const g of groups) {
      idea("group_stats", [n.name, g.name], `Compare ${q(n.name)} with its mean within ${q(g.name)}.`);
    }
  }
  for (const c of columns) {
    if (c.date) {
      idea(
        "date_parts",
        [c.name],
        `Read ${q(c.name)} as dates: year, month, day, weekday, day number (and hour), in place of the text.`,
      );
    }
  }
  for (const c of columns) idea("drop_column", [c.name], `Drop ${q(c.name)}.`);
  return [...ideas, ...capacityIdeas(parent), ...configIdeas(parent, runSeed), ...linearIdeas(parent)];
}

/** `columns` by the parent's importance, strongest first (unmeasured ones after, in their order). */
function strongestFirst(columns: ColumnInfo[], importance: Record<string, number>): ColumnInfo[] {
  const at = (c: ColumnInfo) => importance[c.name] ?? -Infinity;
  return columns.map((c, i) => ({ c, i })).sort((a, b) => at(b.c) - at(a.c) || a.i - b.i).map((x) => x.c);
}

/** Up to `n` new hypotheses for children of `parentId` (fewer, or none, when the space is used up). */
export function libraryIdeas(
  s: TreeState,
  parentId: string,
  n: number,
  seed: number,
  evidence: readonly ColumnEvidence[] | null = null,
): Hypothesis[] {
  const parent = s.nodes[parentId];
  if (!parent) return [];
  const path = pathOf(s, parent);
  const onPath = new Set(path.flatMap((p) => (p.hypothesis ? [p.hypothesis.key] : [])));
  const triedHere = new Set([
    ...parent.children.flatMap((c) => s.nodes[c]?.hypothesis?.key ?? []),
    ...(parent.screened ?? []).map((c) => c.key),
  ]);
  // Columns a step on the path removed (dropped, or read as dates in place of the text): nothing acts on them.
  const dropped = new Set(
    path.flatMap((p) => (REMOVES.has(p.hypothesis?.family as Family) ? p.hypothesis!.columns : [])),
  );
  const columns = s.dataset.columns.filter((c) => c.name !== s.dataset.target);
  const ideas = allIdeas(columns, parent, s.config.seed, s.config.insights && s.config.search !== "random")
    .map((i) => ({ ...i, key: keyOf(i.family, i.columns, i.params) }))
    .filter((i) => !onPath.has(i.key) && !triedHere.has(i.key) && !i.columns.some((c) => dropped.has(c)));
  const jitter = (key: string) => draw(seed, key);
  let ranked: (Idea & { key: string })[];
  if (s.config.search === "random") {
    ranked = ideas.map((i) => ({ i, r: jitter(i.key) })).sort((a, b) => a.r - b.r).map((x) => x.i);
  } else {
    const scored = s.config.insights
      ? withInsights(s, parent, ideas, onPath, evidence)
      : ideas.map((i) => ({ ...i, score: i.prior }));
    ranked = scored.filter((i) => i.score > -Infinity)
      .map((i) => ({ i, r: i.score + 0.01 * jitter(i.key) }))
      .sort((a, b) => b.r - a.r || (a.i.key < b.i.key ? -1 : 1))
      .map((x) => x.i);
    // Distinct families first, so one cycle's executors test different ideas.
    const first: typeof ranked = [], rest: typeof ranked = [];
    const fams = new Set<Family>();
    for (const i of ranked) (fams.has(i.family) ? rest : (fams.add(i.family), first)).push(i);
    ranked = [...first, ...rest];
  }
  const ctx = codeContext(s);
  return ranked.slice(0, n).map((i): Hypothesis => {
    const source = moduleSource(i.family, i.columns, i.params, i.text, ctx);
    const path = `steps/${String(parent.depth + 1).padStart(3, "0")}_${i.family}.ts`;
    return {
      key: i.key,
      family: i.family,
      columns: i.columns,
      params: i.params,
      text: i.text,
      step: source === null ? null : { path, source },
      model: i.model,
      source: "library",
      tokens: 0,
    };
  });
}
