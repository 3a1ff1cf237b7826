/**
 * Re-attaching a resumed run to the Slurm jobs a dead arrow left: a job whose node still runs that attempt
 * gets its handle back (never a second submission), a job of a node that no longer runs is cancelled, a
 * job Slurm lost is restarted from its checkpoint by the caller, and a live job the journal never recorded
 * (arrow died right after sbatch) is adopted when its name matches a running attempt, else cancelled.
 * Also: where a re-attached job's metrics.jsonl continues, so no line is read twice or skipped.
 *
 * @module
 */
import type { NodeId } from "../../graph/types.ts";
import type { RunState } from "../../model/state.ts";
import type { SlurmBackend, SlurmProc } from "./slurm.ts";
import { parseBounded } from "../bounded_json.ts";
import { readRange } from "../safe_read.ts";
import { runPrefix } from "../slurm/backend.ts";
import { reattach } from "../slurm/journal.ts";
import { namePart, parseJobName } from "../slurm/script.ts";
import type { JobId } from "../slurm/types.ts";

export interface Attached {
  proc: SlurmProc;
  /** Where the attempt's metrics lines start (null: not recorded, the job was adopted by name). */
  metricsAt: number | null;
  audit: string | null;
}

export interface Reattached {
  /** Nodes whose job came back: still queued or running, or ended while arrow was away. */
  attached: Map<NodeId, Attached>;
  /** Running nodes whose job Slurm no longer knows: the caller restarts them from their checkpoint. */
  lost: NodeId[];
  /** Jobs cancelled: of nodes that no longer run that attempt, or unrecorded ones matching no attempt. */
  cancelled: JobId[];
  /** Live jobs the journal never recorded that matched a running attempt. */
  adopted: JobId[];
}

/** Re-attaches to the run's jobs; `onSlurm` says which nodes run as jobs. */
export async function reattachJobs(
  b: SlurmBackend,
  state: RunState,
  onSlurm: (id: NodeId) => boolean,
): Promise<Reattached> {
  const running = (id: NodeId, attempt: number) => {
    const ns = state.nodes[id];
    return ns?.status === "running" && ns.attempt === attempt && onSlurm(id);
  };
  const r = await reattach(b.client, b.journal, runPrefix(b.runId), running);
  const out: Reattached = {
    attached: new Map(),
    lost: [],
    cancelled: r.cancelled.map((x) => x.jobId),
    adopted: [],
  };
  for (const { record, view } of r.attached) {
    // Two open jobs for one attempt (resubmitted after a loss): the later one is the attempt's.
    const earlier = out.attached.get(record.node);
    if (earlier) await retire(earlier.proc, out);
    if (view.state === "UNKNOWN") {
      b.journal.ended(record.node, record.attempt, record.jobId, record.name);
      b.client.forget(record.jobId);
      out.attached.delete(record.node);
      if (!out.lost.includes(record.node)) out.lost.push(record.node);
      continue;
    }
    out.lost = out.lost.filter((n) => n !== record.node);
    out.attached.set(record.node, {
      proc: b.adopt(record.node, record.attempt, record.jobId, record.name),
      metricsAt: record.metricsAt ?? null,
      audit: record.audit ?? null,
    });
  }
  const byPart = new Map(state.plan.order.map((id) => [namePart(id), id]));
  for (const v of r.unrecorded) {
    const p = parseJobName(v.name);
    const id = p && p.run === namePart(b.runId) ? byPart.get(p.node) : undefined;
    if (id !== undefined && p && running(id, p.attempt) && !out.attached.has(id)) {
      b.journal.submitted(id, p.attempt, v.jobId, v.name);
      await b.client.adopt([v.jobId]);
      out.attached.set(id, { proc: b.adopt(id, p.attempt, v.jobId, v.name), metricsAt: null, audit: null });
      out.lost = out.lost.filter((n) => n !== id);
      out.adopted.push(v.jobId);
    } else {
      await b.client.cancel(v.jobId).catch(() => {});
      out.cancelled.push(v.jobId);
    }
  }
  return out;
}

async function retire(proc: SlurmProc, out: Reattached): Promise<void> {
  const id = proc.jobId;
  await proc.stop();
  if (id) out.cancelled.push(id);
}

/** Bytes of metrics.jsonl scanned at most when looking for where a re-attached job's lines continue. */
const SCAN_MAX = 64 << 20;
const CHUNK = 4 << 20;

/**
 * Where to continue tailing a re-attached job's metrics.jsonl. `seen` is the last point the engine recorded
 * in this attempt (null: none yet). From the attempt's first byte (`from`; when unknown, the start of the
 * file for a fresh attempt), the line after the last one carrying that exact point; with no point seen yet,
 * the attempt's first byte. When the point cannot be found, the end of the file (nothing read twice).
 */
export function metricsResumeOffset(
  path: string,
  from: number | null,
  fresh: boolean,
  seen: { step: number; value: number } | null,
  metric: string,
): number {
  const size = (() => {
    try {
      return Deno.lstatSync(path).size;
    } catch {
      return 0;
    }
  })();
  const start = from ?? (fresh ? 0 : null);
  if (start === null || start > size) return size;
  if (seen === null) return start;
  let found: number | null = null;
  let at = start;
  let carry = new Uint8Array(0);
  while (at < size && at - start < SCAN_MAX) {
    const r = readRange(path, at, CHUNK);
    if (!r.ok || r.bytes.length === 0) break;
    const buf = new Uint8Array(carry.length + r.bytes.length);
    buf.set(carry);
    buf.set(r.bytes, carry.length);
    const base = at - carry.length;
    let s = 0;
    for (let nl = buf.indexOf(10, s); nl >= 0; nl = buf.indexOf(10, s)) {
      if (isPoint(buf.subarray(s, nl), seen, metric)) found = base + nl + 1;
      s = nl + 1;
    }
    carry = buf.slice(s);
    at += r.bytes.length;
  }
  return found ?? size;
}

function isPoint(line: Uint8Array, seen: { step: number; value: number }, metric: string): boolean {
  const v = parseBounded(line, { maxBytes: 64 << 10, maxDepth: 16 });
  if (!v.ok || !v.value || typeof v.value !== "object") return false;
  const row = v.value as Record<string, unknown>;
  return row.step === seen.step && row[metric] === seen.value;
}
