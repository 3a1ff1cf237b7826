/**
 * What `arrow run` prints: live progress on a terminal (tick, node statuses, incidents as they happen), the
 * incidents alone when piped, and at the end the status table, the verdict and the run directory.
 *
 * @module
 */
import type { Event } from "../model/events.ts";
import type { RunState, Status } from "../model/state.ts";
import { narrate } from "../record/narrate.ts";
import { printable } from "./escape.ts";

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
  #incidents = 0;

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
            printable(narrate(ev.incident))
          }\n`,
        );
      }
    }
    if (!this.#live) return;
    this.#incidents += events.filter((e) => e.e === "incident").length;
    write(this.#line(state).slice(0, (Deno.consoleSize?.().columns ?? 120) - 1));
    this.#lastLine = 1;
  }

  /** One status line: counts by status, then what is running (long nodes with their step and best). */
  #line(state: RunState): string {
    const ids = state.plan.order.filter((id) => state.nodes[id]!.spawned);
    const counts = new Map<Status, number>();
    for (const id of ids) counts.set(state.nodes[id]!.status, (counts.get(state.nodes[id]!.status) ?? 0) + 1);
    const parts = [`tick ${state.tick}`];
    for (const [st, n] of counts) if (st !== "running") parts.push(`${MARK[st]} ${n} ${st}`);
    const running = ids.filter((id) => state.nodes[id]!.status === "running").map((id) => {
      const ns = state.nodes[id]!;
      return ns.best !== null ? `${id} (step ${ns.step}, best ${ns.best.toFixed(3)})` : id;
    });
    if (running.length) parts.push(`${MARK.running} ${running.join(", ")}`);
    if (this.#incidents) parts.push(`${this.#incidents} incident${this.#incidents === 1 ? "" : "s"}`);
    return parts.join("  ");
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
