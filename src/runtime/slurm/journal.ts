/**
 * The run's journal of Slurm jobs (.arrow/slurm/jobs.jsonl): every submission is appended durably with its
 * job id before the engine relies on it, and every end is appended once the engine has recorded how the job
 * ended. After a crash of arrow it says which jobs may still run, so `arrow resume` re-attaches to them
 * instead of submitting twice.
 *
 * @module
 */
import { appendDurable } from "../atomic.ts";
import type { SlurmClient } from "./client.ts";
import type { JobId, JobView } from "./types.ts";

export interface JobRecord {
  op: "submit" | "end";
  node: string;
  attempt: number;
  jobId: JobId;
  name: string;
  /** Byte offset of the node's metrics.jsonl where this attempt's lines start (a re-attach reads from it). */
  metricsAt?: number;
  /** The Deno permission audit log the job writes, when it is a Deno program (a re-attach keeps reading it). */
  audit?: string;
}

/** What a submission record may carry besides its identity. */
export type JobExtra = Pick<JobRecord, "metricsAt" | "audit">;

export class JobJournal {
  readonly path: string;

  constructor(runDir: string) {
    Deno.mkdirSync(`${runDir}/.arrow/slurm`, { recursive: true });
    this.path = `${runDir}/.arrow/slurm/jobs.jsonl`;
  }

  submitted(node: string, attempt: number, jobId: JobId, name: string, extra: JobExtra = {}): void {
    this.#log({ op: "submit", node, attempt, jobId, name, ...extra });
  }

  ended(node: string, attempt: number, jobId: JobId, name: string): void {
    this.#log({ op: "end", node, attempt, jobId, name });
  }

  #log(r: JobRecord): void {
    appendDurable(this.path, JSON.stringify(r) + "\n", true);
  }

  /** Every record, in the order written. A torn last line (arrow died while writing it) is skipped. */
  records(): JobRecord[] {
    let text = "";
    try {
      text = Deno.readTextFileSync(this.path);
    } catch {
      return [];
    }
    const out: JobRecord[] = [];
    for (const line of text.split("\n")) {
      let r: JobRecord;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof r?.jobId === "string" && typeof r.node === "string" && typeof r.attempt === "number") {
        out.push(r);
      }
    }
    return out;
  }

  /** Jobs submitted and not recorded as ended, in submission order. */
  open(): JobRecord[] {
    const live = new Map<JobId, JobRecord>();
    for (const r of this.records()) {
      if (r.op === "submit") live.set(r.jobId, r);
      else live.delete(r.jobId);
    }
    return [...live.values()];
  }
}

export interface Reattachment {
  /** Open jobs of nodes the resumed state says are running, with their current view (live or ended). */
  attached: { record: JobRecord; view: JobView }[];
  /** Open jobs of nodes that are no longer running: they were cancelled. */
  cancelled: JobRecord[];
  /** Live jobs with this run's name prefix that the journal never recorded (arrow died right after sbatch). */
  unrecorded: (JobView & { name: string })[];
}

/**
 * Re-attaches a resumed run to its jobs: adopts every open job of the journal, keeps those whose node is
 * still running (by node and attempt), cancels the rest, and lists live jobs of the run the journal missed.
 */
export async function reattach(
  client: SlurmClient,
  journal: JobJournal,
  namePrefix: string,
  running: (node: string, attempt: number) => boolean,
): Promise<Reattachment> {
  const open = journal.open();
  const views = await client.adopt(open.map((r) => r.jobId));
  const out: Reattachment = { attached: [], cancelled: [], unrecorded: [] };
  for (const r of open) {
    const view = views.get(r.jobId)!;
    if (running(r.node, r.attempt)) out.attached.push({ record: r, view });
    else {
      if (view.state === "PENDING" || view.state === "RUNNING") await client.cancel(r.jobId);
      journal.ended(r.node, r.attempt, r.jobId, r.name);
      out.cancelled.push(r);
    }
  }
  // Any job the journal ever named is not "unrecorded", even one recorded as ended that Slurm still lists.
  const known = new Set(journal.records().map((r) => r.jobId));
  out.unrecorded = (await client.findJobs(namePrefix)).filter((v) =>
    !known.has(v.jobId) && (v.state === "PENDING" || v.state === "RUNNING")
  );
  return out;
}
