/// <reference lib="dom" />
/**
 * One tree-mode run in the browser: its step log (fetched whole, then followed over server-sent events
 * while the run goes), folded with the tree's own step function into a state per step — so replay is just a
 * cursor — plus what the view needs from a state: a tidy layout of the tree, the admitted path, and the
 * chart's dev and held-out gains per cycle. Pure helpers are exported for tests.
 *
 * @module
 */
import { action, computed, createModel, effect, signal } from "@preact/signals";
import type { Incident } from "../../src/model/state.ts";
import { step } from "../../src/tree/step.ts";
import type { LlmUse } from "../../src/tree/llm_use.ts";
import type { TreeEvent, TreeNode, TreeState, TreeStatus } from "../../src/tree/types.ts";

export interface TreeLine {
  tick: number;
  events: TreeEvent[];
}

export const TREE_STATUS_LOOK: Readonly<Record<TreeStatus, { fill: string; ink: string }>> = {
  pending: { fill: "#d7dce2", ink: "#28313b" },
  running: { fill: "#3b82f6", ink: "#ffffff" },
  evaluated: { fill: "#94a3b8", ink: "#0f172a" },
  admitted: { fill: "#16a34a", ink: "#ffffff" },
  pruned: { fill: "#f59e0b", ink: "#1f1300" },
  "failed-informative": { fill: "#dc2626", ink: "#ffffff" },
};

/** States after each line, folded once as lines arrive; incidents with the line they appeared on. */
export class TreeFold {
  readonly states: TreeState[] = [];
  readonly incidents: { line: number; incident: Incident }[] = [];
  readonly ticks: number[] = [];
  readonly events: TreeEvent[][] = [];

  /** Folds a line; returns false for one already seen (a reconnect resends) or one that does not fold. */
  push(line: TreeLine): boolean {
    if (this.ticks.length && line.tick <= this.ticks.at(-1)!) return false;
    let s = this.states.at(-1) ?? null;
    for (const ev of line.events) {
      if (ev.e === "init") s = ev.state;
      else if (s) {
        const out = step(s, ev);
        s = out.state;
        for (const i of out.incidents) this.incidents.push({ line: this.states.length, incident: i });
      } else return false;
    }
    if (!s) return false;
    this.states.push(s);
    this.ticks.push(line.tick);
    this.events.push(line.events);
    return true;
  }
}

export interface Placed {
  id: string;
  x: number;
  y: number;
}

export interface TreeLayout {
  nodes: Placed[];
  edges: { from: string; to: string; admitted: boolean }[];
  width: number;
  height: number;
}

export const SLOT = 78;
export const ROW = 86;

/** The ids from the root to the incumbent (the admitted path). */
export function admittedPath(s: TreeState): Set<string> {
  const out = new Set<string>();
  for (
    let at: TreeNode | undefined = s.nodes[s.incumbent ?? ""];
    at;
    at = at.parent ? s.nodes[at.parent] : undefined
  ) {
    out.add(at.id);
  }
  return out;
}

/** Leaves take consecutive slots in depth-first order (children in creation order); a parent sits centred
 * over its children; rows by depth. Deterministic in the state. */
export function layoutTree(s: TreeState): TreeLayout {
  const nodes: Placed[] = [];
  const edges: TreeLayout["edges"] = [];
  const path = admittedPath(s);
  let slot = 0;
  const place = (id: string): number => {
    const n = s.nodes[id]!;
    const xs = n.children.filter((c) => s.nodes[c]).map((c) => {
      edges.push({ from: id, to: c, admitted: path.has(id) && path.has(c) });
      return place(c);
    });
    const x = xs.length ? (xs[0]! + xs.at(-1)!) / 2 : SLOT / 2 + SLOT * slot++;
    nodes.push({ id, x, y: ROW / 2 + ROW * n.depth });
    return x;
  };
  const root = s.order[0];
  if (root) place(root);
  const depth = Math.max(0, ...s.order.map((id) => s.nodes[id]!.depth));
  return { nodes, edges, width: Math.max(SLOT, SLOT * slot), height: ROW * (depth + 1) };
}

export interface ChartPoint {
  cycle: number;
  dev: number;
  heldout: number;
}

/** Gains over the starting artifact after each cycle: best dev found, and the incumbent's held-out. */
export function chartPoints(s: TreeState): ChartPoint[] {
  return s.history.map((p) => ({ cycle: p.cycle, dev: p.best_dev_gain, heldout: p.incumbent_heldout_gain }));
}

export type TreePhase = "loading" | "live" | "finished" | "missing";

/** Least time between two reads of the ideator's log while a run is live. */
const USAGE_EVERY_MS = 1000;

const isFinal = (l: TreeLine) => l.events.some((e) => e.e === "verdict");
const treePath = (id: string) => `/api/tree/${encodeURIComponent(id)}`;

export const TreeModel = createModel((id: string) => {
  const fold = new TreeFold();
  const count = signal(0);
  const phase = signal<TreePhase>("loading");
  const error = signal<string | null>(null);
  const connected = signal(false);
  /** The line on screen; null follows the newest. */
  const cursor = signal<number | null>(null);
  const selected = signal<string | null>(null);
  const playing = signal(false);
  /** The LLM ideator's calls, tokens and cost so far (logs/llm.jsonl), read again as steps arrive. */
  const llm = signal<LlmUse | null>(null);
  let source: EventSource | null = null;

  let usageAsked = 0, usageTimer: ReturnType<typeof setTimeout> | null = null;
  const refreshUsage = (now: boolean) => {
    if (usageTimer !== null) return;
    usageTimer = setTimeout(() => {
      usageTimer = null;
      usageAsked = Date.now();
      void fetch(`${treePath(id)}/usage`).then((r) => r.ok ? r.json() : null).then((u: LlmUse | null) => {
        llm.value = u && u.calls > 0 ? u : null;
      }).catch(() => {});
    }, now ? 0 : Math.max(0, usageAsked + USAGE_EVERY_MS - Date.now()));
  };

  const at = computed(() => {
    const n = count.value;
    return n ? Math.min(cursor.value ?? n - 1, n - 1) : -1;
  });
  const state = computed(() => (at.value >= 0 ? fold.states[at.value]! : null));
  const incidents = computed(() => fold.incidents.filter((i) => i.line <= at.value));
  const last = computed(() => count.value - 1);

  const stop = () => {
    source?.close();
    source = null;
    connected.value = false;
  };

  const ingest = action((batch: TreeLine[]) => {
    let grew = false;
    for (const l of batch) grew = fold.push(l) || grew;
    if (grew) count.value = fold.states.length;
    const final = batch.some(isFinal);
    if (final) {
      phase.value = "finished";
      stop();
    }
    // An ideation is when the log grows; the last read follows the verdict.
    if (final || batch.some((l) => l.events.some((e) => e.e === "proposed"))) refreshUsage(final);
  });

  const follow = action(() => {
    const es = new EventSource(`${treePath(id)}/events?after=${fold.ticks.at(-1) ?? -1}`);
    es.addEventListener("tick", (m) => ingest([JSON.parse((m as MessageEvent<string>).data) as TreeLine]));
    es.addEventListener("done", () => stop());
    es.onopen = () => (connected.value = true);
    es.onerror = () => (connected.value = false);
    source = es;
  });

  const load = action(async () => {
    try {
      const res = await fetch(`${treePath(id)}/replay`);
      if (!res.ok) {
        throw new Error(
          ((await res.json().catch(() => ({}))) as { error?: string }).error ?? `HTTP ${res.status}`,
        );
      }
      const text = await res.text();
      ingest(text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as TreeLine));
      if (phase.peek() !== "finished") {
        phase.value = "live";
        follow();
      }
    } catch (e) {
      phase.value = "missing";
      error.value = (e as Error).message;
    }
  });

  const seek = action((i: number | null) => {
    cursor.value = i === null || i >= last.value ? null : Math.max(0, i);
  });
  const stepBy = action((d: number) => {
    playing.value = false;
    seek(at.value + d);
  });

  effect(() => {
    if (!playing.value) return;
    const t = setInterval(() => {
      if (at.value >= last.value) playing.value = false;
      else seek(at.value + 1);
    }, 500);
    return () => clearInterval(t);
  });
  effect(() => stop);

  return {
    count,
    phase,
    error,
    connected,
    llm,
    cursor,
    selected,
    playing,
    at,
    last,
    state,
    incidents,
    load,
    seek,
    stepBy,
    select: action((n: string | null) => (selected.value = n)),
    /** The event that produced line `i` (what the narration says about that step). */
    lastEvent: (i: number): TreeEvent | undefined => fold.events[i]?.at(-1),
    toggle: action(() => {
      if (!playing.value && at.value >= last.value) seek(0);
      playing.value = !playing.value;
    }),
  };
});

export type TreeModel = InstanceType<typeof TreeModel>;
