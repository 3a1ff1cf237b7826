/**
 * What a finished (or interrupted) tree run says: the `--json` object of `arrow tree` and the markdown
 * report (`report/report.md`). Both read the state only; agent-written text is escaped for markdown.
 *
 * @module
 */
import type { Incident } from "../model/state.ts";
import { mdInline } from "../record/md_escape.ts";
import { narrate } from "../record/narrate.ts";
import { devGain, signOf } from "./select.ts";
import type { TreeNode, TreeState } from "./types.ts";

export interface TreeSummary {
  mode: "tree";
  run_dir: string;
  metric: string;
  direction: "maximize" | "minimize";
  cycles: number;
  nodes: number;
  heldout_queries: number;
  start: { dev: number | null; heldout: number | null; test: number | null };
  best: {
    id: string;
    hypothesis: string | null;
    dev: number | null;
    heldout: number | null;
    test: number | null;
  };
  incidents: { tick: number; type: string; node: string; ladder: string }[];
}

/** The object `arrow tree --json` prints. */
export function summarize(s: TreeState, runDir: string, incidents: readonly Incident[]): TreeSummary {
  const root = s.nodes[s.order[0]!]!;
  const best = s.nodes[s.incumbent ?? root.id]!;
  return {
    mode: "tree",
    run_dir: runDir,
    metric: s.config.metric,
    direction: s.config.direction,
    cycles: s.history.filter((p) => p.cycle > 0).length,
    nodes: s.order.length,
    heldout_queries: s.heldout.used,
    start: { dev: root.dev?.mean ?? null, heldout: root.heldout, test: root.test },
    best: {
      id: best.id,
      hypothesis: best.hypothesis?.text ?? null,
      dev: best.dev?.mean ?? null,
      heldout: best.heldout,
      test: best.test,
    },
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

export function renderTreeReport(s: TreeState, incidents: readonly Incident[] = []): string {
  const root = s.nodes[s.order[0]!]!;
  const best = s.nodes[s.incumbent ?? root.id]!;
  const d = s.dataset;
  const lines = [
    `# Tree run — ${mdInline(s.scenario)}`,
    "",
    `Data: ${
      mdInline(d.file)
    } — ${d.rows} rows (${d.dev} dev in ${d.folds} folds, ${d.heldout} held out, ${d.test} test), ` +
    `target ${mdInline(d.target)} (${d.task}); metric ${s.config.metric} (${s.config.direction}).`,
    `Search ${s.config.search}, ideator ${s.config.ideator}, insights ${s.config.insights ? "on" : "off"}, ` +
    `${s.config.cycles} cycles × ${s.config.executors} executors, seed ${s.config.seed}.`,
    "",
    `**${
      s.verdict ?? "no verdict yet"
    }** — ${s.order.length} nodes, ${s.heldout.used}/${s.heldout.budget} held-out queries.`,
    "",
    "| | dev | held-out | test |",
    "|---|---|---|---|",
    `| start (${root.id}) | ${num(root.dev?.mean)} | ${num(root.heldout)} | ${num(root.test)} |`,
    `| best (${best.id}) | ${num(best.dev?.mean)} | ${num(best.heldout)} | ${num(best.test)} |`,
    `| gain | ${gain(s, root.dev?.mean ?? null, best.dev?.mean ?? null)} | ${
      gain(s, root.heldout, best.heldout)
    } | ${gain(s, root.test, best.test)} |`,
    "",
    "## Admitted path",
    "",
    ...pathTo(s, best.id).map((n) =>
      `- ${n.id}: ${mdInline(n.hypothesis?.text ?? "the starting artifact", { max: 300 })} (dev ${
        num(n.dev?.mean)
      })`
    ),
    "",
    "## Insights",
    "",
    ...s.order.map((id) => s.nodes[id]!).filter((n) => n.insight).map((n) =>
      `- ${n.id} (${n.status}, dev gain ${devGain(s, n).toFixed(4)}): ${
        mdInline(n.insight!.sentence, { max: 500 })
      }`
    ),
  ];
  if (s.final?.problem) lines.push("", `Final test: ${mdInline(s.final.problem, { max: 500 })}`);
  if (incidents.length) {
    lines.push(
      "",
      "## Incidents",
      "",
      ...incidents.map((i) => `- tick ${i.tick}: ${mdInline(narrate(i), { max: 500 })}`),
    );
  }
  return lines.join("\n") + "\n";
}
