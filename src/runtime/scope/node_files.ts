/**
 * What SENSE reads from one node's files: new checkpoint files (regular files only, never through a
 * symlink), the last lines of a crashed worker's stderr, and the side channels a worker or Arrow's own
 * agent and proxy processes append to — token usage, faults that fired, operator requests.
 *
 * @module
 */
import type { Request } from "../../model/events.ts";
import type { FaultState } from "../../model/state.ts";
import { readRange } from "../safe_read.ts";
import { JsonlTail, metricPoints } from "../proc/tail.ts";

/** Most lines of a fast node's metrics.jsonl read at its claim (the rest are not looked at). */
const MAX_METRIC_READS = 16;

/** The best value of the protocol metric a node logged in its metrics.jsonl, or null when none. */
export function bestMetric(
  scope: string,
  protocol: { metric: string; direction: "maximize" | "minimize" },
): number | null {
  const tail = new JsonlTail(`${scope}/metrics.jsonl`);
  let best: number | null = null;
  for (let i = 0; i < MAX_METRIC_READS; i++) {
    const rows = tail.read();
    if (!rows.length) break;
    for (const p of metricPoints(rows, protocol.metric).points) {
      if (best === null || (protocol.direction === "maximize" ? p.value > best : p.value < best)) {
        best = p.value;
      }
    }
  }
  return best;
}

/** New checkpoint files in `<scope>/ckpt`: regular files whose name does not start with a dot. */
export function newCheckpoints(
  scope: string,
  known: ReadonlySet<string>,
  fallbackStep: number,
): { step: number; file: string }[] {
  const dir = `${scope}/ckpt`;
  try {
    if (!Deno.lstatSync(dir).isDirectory) return [];
  } catch {
    return [];
  }
  const out: { step: number; file: string }[] = [];
  let names: Deno.DirEntry[];
  try {
    names = [...Deno.readDirSync(dir)];
  } catch {
    return [];
  }
  for (const d of names) {
    if (!d.isFile || d.name.startsWith(".") || d.name.length > 255) continue;
    const file = `ckpt/${d.name}`;
    if (known.has(file)) continue;
    const digits = d.name.match(/(\d{1,15})/);
    out.push({ step: digits ? Number(digits[1]) : fallbackStep, file });
  }
  return out.sort((a, b) => a.step - b.step || (a.file < b.file ? -1 : 1));
}

/** The last lines of a log (at most `lines` lines and 2 KiB), for crash evidence. */
export function tailLines(path: string, lines = 20): string[] {
  let size = 0;
  try {
    size = Deno.lstatSync(path).size;
  } catch {
    return [];
  }
  const r = readRange(path, Math.max(0, size - 2048), 2048);
  if (!r.ok) return [];
  const text = new TextDecoder().decode(r.bytes);
  return text.split("\n").map((l) => l.replace(/\r$/, "")).filter((l) => l.trim()).slice(-lines).map((l) =>
    l.length > 300 ? l.slice(0, 300) + "…" : l
  );
}

/** Token usage lines (`{"tokens": n, "call": id, ...}`) appended by an agent worker or the proxy. */
export class UsageTail {
  #tail: JsonlTail;
  #seen = new Set<string>();

  constructor(path: string) {
    this.#tail = new JsonlTail(path);
  }

  /** Tokens of calls not counted before (a call id seen twice, e.g. replayed after a resume, counts once). */
  tokens(): number {
    let sum = 0;
    for (const row of this.#tail.read()) {
      const t = row.tokens;
      if (typeof t !== "number" || !Number.isFinite(t) || t < 0) continue;
      const id = typeof row.call === "string" || typeof row.call === "number" ? String(row.call) : null;
      if (id !== null) {
        if (this.#seen.has(id)) continue;
        this.#seen.add(id);
      }
      sum += Math.round(t);
    }
    return sum;
  }

  skipToEnd(): void {
    this.#tail.skipToEnd();
  }
}

/**
 * Faults a free-running worker reports as fired (one JSON line each in its ARROW_FAULT_LOG), mapped to the
 * run's fault indices: by `index` when the line carries one, else the first unfired fault of that kind
 * aimed at the node.
 */
export function firedFaults(tail: JsonlTail, faults: readonly FaultState[], node: string): number[] {
  const out: number[] = [];
  for (const row of tail.read()) {
    const index = row.index;
    if (typeof index === "number" && faults[index]?.node === node) {
      out.push(index);
      continue;
    }
    const i = faults.findIndex((f, k) =>
      f.node === node && f.kind === row.kind && !f.fired && !out.includes(k)
    );
    if (i >= 0) out.push(i);
  }
  return out;
}

/** The operator's request channel of a run (arrow reopen / arrow taint append to it, the engine reads it). */
export const REQUESTS = ".arrow/requests.jsonl";

/** Reads requests past the first `skip` lines (those were applied before). */
export class RequestTail {
  #tail: JsonlTail;
  #count = 0;

  constructor(runDir: string, readonly skip: number) {
    this.#tail = new JsonlTail(`${runDir}/${REQUESTS}`);
  }

  read(): Request[] {
    const out: Request[] = [];
    for (const row of this.#tail.read()) {
      const seq = ++this.#count;
      if (seq <= this.skip) continue;
      if ((row.op !== "reopen" && row.op !== "taint") || typeof row.node !== "string") continue;
      const reason = typeof row.reason === "string" ? row.reason.slice(0, 500) : "";
      out.push({ op: row.op, node: row.node, reason, seq });
    }
    return out;
  }
}
