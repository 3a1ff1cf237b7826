/**
 * What `arrow run` prints: live progress on a terminal (tick, node statuses, incidents as they happen), the
 * incidents alone when piped, and at the end the status table, the verdict and the run directory.
 *
 * @module
 */
import type { Event } from "../model/events.ts";
import type { RunState, Status } from "../model/state.ts";
import { narrate } from "../record/narrate.ts";

const MARK: Record<Status, string> = {
  pending: "·",
  running: "▶",
  verified: "✓",
  stale: "~",
  blocked: "⊘",
  stuck: "…",
  oscillating: "↺",
  plateaued: "▁",
  superseded: "⇢",
  killed: "✗",
};

const enc = new TextEncoder();
const write = (s: string) => Deno.stdout.writeSync(enc.encode(s));

export class Progress {
  #live: boolean;
  #lastLine = 0;

  constructor(readonly quiet: boolean) {
    this.#live = !quiet && Deno.stdout.isTerminal();
  }

  tick(state: RunState, events: readonly Event[]): void {
    if (this.quiet) return;
    if (this.#live && this.#lastLine) write("\r\x1b[2K");
    for (const ev of events) {
      if (ev.e === "incident") {
        write(
          `  tick ${String(ev.incident.tick).padStart(3)}  ${ev.incident.type.padEnd(19)} ${
            narrate(ev.incident)
          }\n`,
        );
      }
    }
    if (!this.#live) return;
    const nodes = state.plan.order.filter((id) => state.nodes[id]!.spawned)
      .map((id) => {
        const ns = state.nodes[id]!;
        const best = ns.status === "running" && ns.best !== null ? ` ${ns.best.toFixed(3)}` : "";
        return `${id}${MARK[ns.status]}${best}`;
      }).join(" ");
    const line = `tick ${state.tick}  ${nodes}`;
    write(line.slice(0, (Deno.consoleSize?.().columns ?? 120) - 1));
    this.#lastLine = 1;
  }

  end(): void {
    if (this.#live && this.#lastLine) write("\r\x1b[2K");
  }
}

export function statusTable(state: RunState): string {
  const rows = state.plan.order.filter((id) => state.nodes[id]!.spawned).map((id) => {
    const n = state.plan.nodes.find((x) => x.id === id)!;
    const ns = state.nodes[id]!;
    const score = ns.manifest?.score ?? ns.best;
    return [
      id,
      n.kind,
      n.role,
      ns.status,
      score === null || score === undefined ? "" : score.toFixed(4),
      ns.cause ?? "",
    ];
  });
  const head = ["node", "kind", "role", "status", "score", "cause"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [fmt(head), ...rows.map(fmt)].join("\n");
}
