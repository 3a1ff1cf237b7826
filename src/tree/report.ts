/**
 * What a finished (or interrupted) tree run says: the `--json` object of `arrow tree` and the markdown
 * report (`report/report.md`). Both read the state only; agent-written text is escaped for markdown.
 *
 * @module
 */
import type { Incident } from "../model/state.ts";
import { mdInline } from "../record/md_escape.ts";
import { lanesSection } from "../record/lanes_section.ts";
import { blackBoxSection } from "../record/incident_section.ts";
import { heading, renderDocument, section, table } from "../record/render.ts";
import { devGain, signOf } from "./ideate/select.ts";
import { familyEffects, screenEffects } from "./ideate/insight.ts";
import { effectScale, EXPLORE } from "./ideate/rank.ts";
import { ACCEPT_EPS } from "../thresholds.ts";
import { plannedComparisons, Z_GATE } from "./step.ts";
import { GATE_ALPHA, gateZ } from "./gate/row_loss.ts";
import type { TreeNode, TreeState } from "./types.ts";

/** One row of `--json`'s `nodes` list. */
export interface NodeRow {
  id: string;
  parent: string | null;
  status: string;
  hypothesis: string | null;
  dev: number | null;
  heldout: number | null;
}

/** A reference's final-test score, with what it was fit on. */
export interface ReferenceRow {
  score: number | null;
  fit_on: "dev" | "dev+heldout";
  node?: string;
  problem?: string | null;
}

export interface TreeSummary {
  mode: "tree";
  run_dir: string;
  metric: string;
  direction: "maximize" | "minimize";
  verdict: string | null;
  cycles: number;
  node_count: number;
  nodes: NodeRow[];
  heldout_queries: number;
  start: { dev: number | null; heldout: number | null; test: number | null };
  best: {
    id: string;
    hypothesis: string | null;
    dev: number | null;
    heldout: number | null;
    test: number | null;
  };
  /** Every reference on the final test, on the run's splits (null: not scored, e.g. an interrupted run). */
  references: {
    start: ReferenceRow;
    admitted: ReferenceRow;
    admitted_refit: ReferenceRow | null;
    strong_default: ReferenceRow | null;
    trivial: ReferenceRow | null;
  };
  flags: string[];
  warnings: string[];
  /** Columns left out before anything ran (id-like), and why. */
  dropped_columns: { column: string; reason: string }[];
  /** splits.json: the rows of each part (absolute path). */
  splits: string;
  /** model/model.json of the refit admitted artifact, when it was saved. */
  model: string | null;
  incidents: { tick: number; type: string; node: string; ladder: string }[];
}

/** The final-test references of a finished run (null for those not scored). */
export function referencesOf(s: TreeState): TreeSummary["references"] {
  const root = s.nodes[s.order[0]!]!;
  const best = s.nodes[s.incumbent ?? root.id]!;
  const r = s.final?.references;
  return {
    start: { score: root.test, fit_on: "dev", node: root.id },
    admitted: { score: best.test, fit_on: "dev", node: best.id },
    admitted_refit: r?.refit
      ? { score: r.refit.score, fit_on: "dev+heldout", node: r.refit.node, problem: r.refit.problem }
      : null,
    strong_default: r
      ? { score: r.strong_default.score, fit_on: "dev+heldout", problem: r.strong_default.problem }
      : null,
    trivial: r ? { score: r.trivial.score, fit_on: "dev+heldout" } : null,
  };
}

/**
 * Warnings about the admitted path: a step along it whose dev score climbed while its held-out score fell
 * (what overfitting the dev folds looks like).
 */
export function pathWarnings(s: TreeState): string[] {
  const root = s.nodes[s.order[0]!]!;
  const path = pathTo(s, s.incumbent ?? root.id).filter((n) => n.dev && n.heldout !== null);
  const sign = signOf(s);
  const out: string[] = [];
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1]!, b = path[i]!;
    const dDev = sign * (b.dev!.mean - a.dev!.mean), dHeld = sign * (b.heldout! - a.heldout!);
    if (dDev > 0 && dHeld < 0) {
      out.push(
        `along the admitted path, ${b.id} climbed on dev (${
          fmtSigned(dDev)
        } vs ${a.id}) while held-out fell ` +
          `(${fmtSigned(dHeld)}): the dev folds may be overfit`,
      );
    }
  }
  return out;
}

const fmtSigned = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(4)}`;

/** The object `arrow tree --json` prints. */
export function summarize(s: TreeState, runDir: string, incidents: readonly Incident[]): TreeSummary {
  const root = s.nodes[s.order[0]!]!;
  const best = s.nodes[s.incumbent ?? root.id]!;
  let model: string | null = `${runDir}/model/model.json`;
  try {
    Deno.statSync(model);
  } catch {
    model = null;
  }
  return {
    mode: "tree",
    run_dir: runDir,
    metric: s.config.metric,
    direction: s.config.direction,
    verdict: s.verdict,
    cycles: s.history.filter((p) => p.cycle > 0).length,
    node_count: s.order.length,
    nodes: s.order.map((id) => {
      const n = s.nodes[id]!;
      return {
        id,
        parent: n.parent,
        status: n.status,
        hypothesis: n.hypothesis?.text ?? null,
        dev: n.dev?.mean ?? null,
        heldout: n.heldout,
      };
    }),
    heldout_queries: s.heldout.used,
    start: { dev: root.dev?.mean ?? null, heldout: root.heldout, test: root.test },
    best: {
      id: best.id,
      hypothesis: best.hypothesis?.text ?? null,
      dev: best.dev?.mean ?? null,
      heldout: best.heldout,
      test: best.test,
    },
    references: referencesOf(s),
    flags: s.final?.flags ?? [],
    warnings: pathWarnings(s),
    dropped_columns: s.dataset.dropped ?? [],
    splits: `${runDir}/splits.json`,
    model,
    incidents: incidents.map((i) => ({ tick: i.tick, type: i.type, node: i.node, ladder: i.ladder })),
  };
}

const num = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(4));
const gain = (s: TreeState, a: number | null, b: number | null) =>
  a === null || b === null ? "—" : `${signOf(s) * (b - a) >= 0 ? "+" : "−"}${Math.abs(b - a).toFixed(4)}`;

function pathTo(s: TreeState, id: string): TreeNode[] {
  const out: TreeNode[] = [];
  for (let at: TreeNode | undefined = s.nodes[id]; at; at = at.parent ? s.nodes[at.parent] : undefined) {
    out.unshift(at);
  }
  return out;
}

function referenceTable(s: TreeState): string[] {
  const r = referencesOf(s);
  const row = (what: string, fit: string, x: ReferenceRow | null) => [
    what,
    fit,
    x ? num(x.score) : "—",
    x?.problem ? mdInline(x.problem, { max: 200 }) : "",
  ];
  const flags = s.final?.flags ?? [];
  const warnings = pathWarnings(s);
  return [
    ...section("References on the final test", [
      `Every row is scored once on the same ${s.dataset.test} final-test rows (splits.json); ${s.config.metric}, ` +
      `${s.config.direction === "maximize" ? "higher" : "lower"} is better.`,
      "",
      ...table(["reference", "fit on", "final test", "note"], [
        row(`start (${r.start.node})`, "dev", r.start),
        row(`admitted (${r.admitted.node}), dev-only fit`, "dev", r.admitted),
        row(`admitted (${r.admitted.node}), refit`, "dev + held-out", r.admitted_refit),
        row(
          "strong default (GBDT 300 stages, lr 0.05, depth 5, subsample 0.8, min leaf 20)",
          "dev + held-out",
          r.strong_default,
        ),
        row(
          `trivial (${s.dataset.task === "regression" ? "mean" : "class shares"})`,
          "dev + held-out",
          r.trivial,
        ),
      ]),
    ]),
    ...flags.map((f) => `**${mdInline(f, { max: 400 })}**`),
    ...warnings.map((w) => `Warning: ${mdInline(w, { max: 400 })}`),
    ...(s.dataset.dropped ?? []).map((d) =>
      `Column ${mdInline(d.column)} was left out: ${mdInline(d.reason, { max: 300 })}.`
    ),
    ...(flags.length || warnings.length || s.dataset.dropped?.length ? [""] : []),
  ];
}

/** The bar a gated node had to clear and what it reached, in the statistic the gate used for it. */
function barOf(s: TreeState, n: TreeNode): string {
  const p = n.paired;
  if (!p) return `> ${ACCEPT_EPS}`;
  const loss = p.loss;
  if (loss) {
    const rank = loss.rank_z !== undefined ? `; rank z ${loss.rank_z.toFixed(2)}, not used` : "";
    return `z ${loss.z.toFixed(2)} (≥ ${gateZ(plannedComparisons(s)).toFixed(2)})${rank}`;
  }
  return `> ${Math.max(ACCEPT_EPS, Z_GATE * p.se).toFixed(4)}`;
}

/** Every merge-gate decision: the candidate, its held-out gain, the bar it had to clear, the outcome. */
function gateTable(s: TreeState): string[] {
  const root = s.nodes[s.order[0]!]!;
  const gated = s.order.map((id) => s.nodes[id]!).filter((n) => n.gate !== null && n.id !== root.id);
  const sign = signOf(s);
  const rows = gated.map((n) => {
    const parent = n.parent ? s.nodes[n.parent] : undefined;
    const devVsRoot = n.dev && root.dev ? fmtSigned(sign * (n.dev.mean - root.dev.mean)) : "—";
    const devVsParent = n.dev && parent?.dev ? fmtSigned(sign * (n.dev.mean - parent.dev.mean)) : "—";
    const p = n.paired;
    const heldGain = p ? fmtSigned(p.gain) : "—";
    const bar = barOf(s, n);
    return [
      n.id,
      mdInline(n.hypothesis?.text ?? "", { max: 120 }),
      devVsRoot,
      devVsParent,
      num(n.heldout),
      heldGain,
      bar,
      String(n.gate),
    ];
  });
  const cols = [
    "candidate",
    "hypothesis",
    "dev gain vs root",
    "dev Δ vs parent",
    "held-out",
    "held-out gain vs incumbent",
    "bar",
    "decision",
  ];
  return section("Merge-gate decisions", [
    `The baseline ${root.id} was gated first (held-out ${num(root.heldout)}). "Dev gain vs root" is the ` +
    `candidate's dev CV score minus the starting artifact's; "dev Δ vs parent" is minus its parent's. ` +
    `"Held-out gain" is over the incumbent of its time on the same held-out rows. The bar: the gain must ` +
    `reach ACCEPT_EPS (${ACCEPT_EPS}) and a paired test over the held-out rows' losses (the mean ` +
    `difference's z; the signed-rank z is shown beside it and decides nothing) must reach the run's bar, set so that over all ` +
    `${plannedComparisons(s)} planned comparisons a candidate with no real effect is admitted at most ` +
    `${GATE_ALPHA * 100} % of the time (a state recorded before the row test shows the bootstrap's bar).`,
    "",
    ...table(cols, rows.length ? rows : [["—", "no candidate reached the gate", "", "", "", "", "", ""]]),
  ]);
}

/** Per family, the effect the tree measured (ideate/insight.ts familyEffects): what insights rank ideas by. */
function familyTable(s: TreeState): string[] {
  const scale = effectScale(s);
  const rows = [...familyEffects(s.nodes, scale).values()].map((e) => [
    e.family,
    String(e.n),
    `${fmtSigned(e.mean)} ± ${e.se.toFixed(4)}`,
    `${fmtSigned(e.shrunk)} ± ${e.sd.toFixed(4)}`,
  ]);
  if (!rows.length) return [];
  return section("What each family did", [
    `Each measured node's paired dev delta over its parent, pooled by family (mean ± standard error), and ` +
    `the estimate shrunk toward no effect at the start's fold spread (${
      scale.toFixed(4)
    }): with insights on, ` +
    `ideas are ranked by the shrunk effect plus ${EXPLORE} of its uncertainty (a family not yet tried counts ` +
    `as uncertain as the prior allows).`,
    "",
    ...table(["family", "measured", "effect on dev", "shrunk"], rows),
  ]);
}

/** What the screens measured (execute/screen.ts), pooled by family (ideate/insight.ts screenEffects). */
function screenTable(s: TreeState): string[] {
  const all = s.order.flatMap((id) => s.nodes[id]!.screened ?? []);
  if (!all.length) return [];
  const rows = [...screenEffects(s.nodes).family].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([f, e]) => [
    f,
    String(e.n),
    `${fmtSigned(e.shrunk)} ± ${e.sd.toFixed(2)}`,
  ]);
  const promoted = all.filter((c) => c.promoted).length;
  return section("What the screens measured", [
    `${all.length} candidates screened on the first dev folds against their parents' rows, ${promoted} ` +
    `measured in full (${all.filter((c) => c.problem).length} could not be screened). Per family, the mean ` +
    `per-row loss z shrunk toward no effect (k·z̄/(k + 1) ± 1/√(k + 1)): with insights on, what ranks the ` +
    `next candidates beside the full measurements.`,
    "",
    ...table(["family", "screened", "effect (z)"], rows),
  ]);
}

/** The rows the run used, after rows with no target were dropped: "720 of 800 rows used, 80 dropped: …". */
export function rowsUsed(d: TreeState["dataset"]): string {
  const used = d.dev + d.heldout + d.test;
  return used === d.rows
    ? `${d.rows} rows`
    : `${used} of ${d.rows} rows used, ${d.rows - used} dropped: missing target`;
}

export function renderTreeReport(s: TreeState, incidents: readonly Incident[] = []): string {
  const root = s.nodes[s.order[0]!]!;
  const best = s.nodes[s.incumbent ?? root.id]!;
  const d = s.dataset;
  const lines = [
    `Data: ${mdInline(d.file)} — ${
      rowsUsed(d)
    } (${d.dev} dev in ${d.folds} folds, ${d.heldout} held out, ${d.test} test), ` +
    `target ${mdInline(d.target)} (${d.task}); metric ${s.config.metric} (${s.config.direction}).`,
    `Search ${s.config.search}, ideator ${s.config.ideator}, insights ${s.config.insights ? "on" : "off"}, ` +
    `${s.config.cycles} cycles × ${s.config.executors} executors, seed ${s.config.seed}.`,
    "",
    `**${
      s.verdict ?? "no verdict yet"
    }** — ${s.order.length} nodes, ${s.heldout.used}/${s.heldout.budget} held-out queries.`,
    "",
    ...table(["", "dev", "held-out", "test"], [
      [`start (${root.id})`, num(root.dev?.mean), num(root.heldout), num(root.test)],
      [`best (${best.id})`, num(best.dev?.mean), num(best.heldout), num(best.test)],
      [
        "gain",
        gain(s, root.dev?.mean ?? null, best.dev?.mean ?? null),
        gain(s, root.heldout, best.heldout),
        gain(s, root.test, best.test),
      ],
    ]),
    "",
    ...referenceTable(s),
    ...gateTable(s),
    ...section(
      "Admitted path",
      pathTo(s, best.id).map((n) =>
        `- ${n.id}: ${mdInline(n.hypothesis?.text ?? "the starting artifact", { max: 300 })} (dev ${
          num(n.dev?.mean)
        })`
      ),
    ),
    ...familyTable(s),
    ...screenTable(s),
    ...heading("Insights"),
    ...s.order.map((id) => s.nodes[id]!).filter((n) => n.insight).map((n) =>
      `- ${n.id} (${n.status}, dev gain vs root ${fmtSigned(devGain(s, n))}; the Δ below is vs its parent): ${
        mdInline(n.insight!.sentence, { max: 500 })
      }`
    ),
  ];
  if (s.final?.problem) lines.push("", `Final test: ${mdInline(s.final.problem, { max: 500 })}`);
  const lanes = lanesSection(s.order.map((id) => s.nodes[id]!));
  if (lanes.length) lines.push("", ...lanes);
  if (incidents.length) lines.push("", ...blackBoxSection(incidents));
  return renderDocument("Tree run", s.scenario, [lines]);
}
