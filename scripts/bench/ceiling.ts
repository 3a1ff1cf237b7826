/**
 * bench:tree's `--ceiling`: after a run has ended (its gate query spent, its final test scored), every node the
 * end could have chosen — evaluated or admitted, with a dev comparison — is scored against the start on the
 * held-out rows (the gate's own paired per-row z) and on the test rows (its dev fit). The run never sees these
 * figures: they are the benchmark's, read after the run as the references' test scores are. What they answer is
 * where a run's result is limited: by the end's choice (a node the held-out rows would have passed was not
 * sent), by the gate's power (nodes with a real test gain that no held-out z reaches), or by the search (no node
 * in the tree is better than the start).
 *
 * @module
 */
import { loadData, sandboxOf } from "../../src/tree/data.ts";
import { MergeGate } from "../../src/tree/gate/gate.ts";
import { ProcJournal } from "../../src/runtime/proc/proc_journal.ts";
import { endBar } from "../../src/tree/confirm.ts";
import type { TreeNode, TreeState } from "../../src/tree/types.ts";

/** One scored node. */
export interface CeilingNode {
  node: string;
  /** Families from the start, `>`-joined. */
  path: string;
  /** Dev per-row z against the start (what the end's choice reads). */
  devZ: number;
  /** Held-out per-row z against the start, and whether it reaches the run's one-query bar. */
  heldoutZ: number | null;
  passes: boolean;
  /** Test gain of its dev fit over the start's dev fit, oriented (+ = better). */
  testGain: number | null;
  /** The node the run sent to its gate. */
  sent: boolean;
}

/** What the ceiling pass found in one run. */
export interface Ceiling {
  bar: number;
  nodes: CeilingNode[];
  /** Nodes the held-out rows pass, and the best test gain among them (0 when none: the start is kept). */
  passing: number;
  best: number;
  /** Test gain of what the run's own choice kept (0 when nothing was admitted). */
  kept: number;
}

/** A node's families from the start, `>`-joined (the start itself: ""). */
export const pathOf = (s: TreeState, n: TreeNode): string => {
  const out: string[] = [];
  for (let at: TreeNode | undefined = n; at?.hypothesis; at = at.parent ? s.nodes[at.parent] : undefined) {
    out.unshift(at.hypothesis.family);
  }
  return out.join(">");
};

/** The node the run sent to its gate (admitted or refused), if any. */
export const sentNode = (s: TreeState): TreeNode | undefined =>
  s.order.map((id) => s.nodes[id]!).find((n) => n.gate === "admitted" || n.gate === "rejected");

/** The candidate a run sent to the merge gate: its path of families from the start, its dev per-row z against
 * the start, the gate's held-out per-row z, and whether it was admitted. */
export interface Gated {
  node: string;
  path: string;
  devZ: number | null;
  heldoutZ: number | null;
  admitted: boolean;
}

/** The first non-baseline candidate the gate judged, as the bench records it (`One.gated`). */
export function gatedOf(s: TreeState): Gated | null {
  const n = sentNode(s);
  if (!n) return null;
  return {
    node: n.id,
    path: pathOf(s, n),
    devZ: n.oof?.z ?? null,
    heldoutZ: n.paired?.loss?.z ?? null,
    admitted: n.gate === "admitted",
  };
}

/** Scores every candidate of the ended run in `runDir` (state `s`) against its start. */
export async function ceilingOf(runDir: string, s: TreeState, bwrap: string | null): Promise<Ceiling> {
  const data = loadData(s.dataset.file, s.dataset.target, {
    seed: s.config.seed,
    metric: s.config.metric,
    delimiter: s.config.delimiter,
  });
  const sandbox = sandboxOf(runDir, null, data.file, bwrap);
  const watch = {
    observeMs: s.config.observeMs,
    wallMs: s.config.wallMs,
    journal: new ProcJournal(runDir),
    logDir: `${runDir}/logs`,
  };
  const gate = new MergeGate(data, sandbox, watch, null);
  const root = s.order[0]!;
  // Every comparison is with the start: the incumbent, as the end's one query compares.
  const atStart: TreeState = { ...s, incumbent: root };
  const sign = s.config.direction === "maximize" ? 1 : -1;
  await gate.heldout(atStart, root);
  const rootTest = (await gate.test(atStart, root)).score;
  const bar = endBar(s);
  const sent = sentNode(s)?.id;
  const nodes: CeilingNode[] = [];
  for (const id of s.order.slice(1)) {
    const n = s.nodes[id]!;
    if ((n.status !== "evaluated" && n.status !== "admitted") || !n.oof || !n.dev) continue;
    const h = await gate.heldout(atStart, id);
    const t = await gate.test(atStart, id);
    const heldoutZ = h.paired?.loss?.z ?? null;
    nodes.push({
      node: id,
      path: pathOf(s, n),
      devZ: n.oof.z,
      heldoutZ,
      passes: heldoutZ !== null && heldoutZ >= bar,
      testGain: t.score === null || rootTest === null ? null : sign * (t.score - rootTest),
      sent: id === sent,
    });
  }
  const passing = nodes.filter((n) => n.passes);
  const admitted = nodes.find((n) => s.nodes[n.node]!.gate === "admitted");
  return {
    bar,
    nodes,
    passing: passing.length,
    best: Math.max(0, ...passing.map((n) => n.testGain ?? 0)),
    kept: admitted?.testGain ?? 0,
  };
}

/** The ceiling table: per dataset and method, mean over seeds of what was kept and what the best choice could
 * have kept, with how many nodes the held-out rows pass. */
export function ceilingLines(
  runs: readonly { dataset: string; method: string; start: string; ceiling?: Ceiling | null }[],
): string[] {
  const groups = new Map<string, Ceiling[]>();
  for (const r of runs) {
    if (!r.ceiling) continue;
    const k = `${r.dataset}|${r.start}|${r.method}`;
    groups.set(k, [...(groups.get(k) ?? []), r.ceiling]);
  }
  if (!groups.size) return [];
  const f = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(4)}`;
  const lines = [
    "",
    "Ceiling (--ceiling): every candidate of each ended run scored against the start on held-out and test, " +
    "after the run (the benchmark's reading, never the run's). kept: the test gain the run's own choice kept; " +
    "best: the largest test gain among nodes the held-out rows pass (an oracle end choice with the same gate).",
    "",
    "| dataset | start | method | runs | nodes scored | nodes passing held-out | runs with one | kept / run | best / run |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const [k, cs] of groups) {
    const [d, start, m] = k.split("|");
    const sum = (g: (c: Ceiling) => number) => cs.reduce((t, c) => t + g(c), 0);
    lines.push(
      `| ${d} | ${start} | ${m} | ${cs.length} | ${sum((c) => c.nodes.length)} | ${sum((c) => c.passing)} | ${
        cs.filter((c) => c.passing > 0).length
      } | ${f(sum((c) => c.kept) / cs.length)} | ${f(sum((c) => c.best) / cs.length)} |`,
    );
  }
  return lines;
}
