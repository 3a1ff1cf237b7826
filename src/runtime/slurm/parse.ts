/**
 * Reading what Slurm's tools print: squeue rows, job completion (jobcomp/filetxt) lines and sacct rows,
 * mapped onto the closed JobState set. Everything here is untrusted text: fields are bounded, unknown state
 * words become UNKNOWN, and a malformed line is skipped rather than fatal.
 *
 * @module
 */
import type { JobId, JobState, JobView, ViewSource } from "./types.ts";

/** squeue --Format fields, "|"-separated; Name last, so a "|" inside a foreign job's name stays in it. */
export const SQUEUE_FORMAT = "JobID:|,State:|,Reason:|,exit_code:|,Name:";

const MAX_FIELD = 200;

/** Slurm's state word → ours. Transitional states map to what the program is doing now. */
export function mapState(word: string): JobState {
  const w = word.trim().split(/[\s+]/)[0]!.toUpperCase();
  switch (w) {
    case "PENDING":
    case "CONFIGURING": // allocated, nodes booting: the program has not started
    case "REQUEUED":
    case "REQUEUE_HOLD":
    case "REQUEUE_FED":
    case "RESV_DEL_HOLD":
      return "PENDING";
    case "RUNNING":
    case "COMPLETING": // the program ended, Slurm is still cleaning up: not final until it says how
    case "SUSPENDED":
    case "STOPPED":
    case "RESIZING":
    case "SIGNALING":
    case "STAGE_OUT":
      return "RUNNING";
    case "COMPLETED":
      return "COMPLETED";
    case "FAILED":
    case "SPECIAL_EXIT":
      return "FAILED";
    case "CANCELLED":
    case "REVOKED":
      return "CANCELLED";
    case "TIMEOUT":
    case "DEADLINE":
      return "TIMEOUT";
    case "PREEMPTED":
      return "PREEMPTED";
    case "NODE_FAIL":
    case "BOOT_FAIL":
      return "NODE_FAIL";
    case "OUT_OF_MEMORY":
      return "OUT_OF_MEMORY";
    default:
      return "UNKNOWN";
  }
}

const REASON_OF: Partial<Record<JobState, string>> = {
  COMPLETED: "None",
  FAILED: "NonZeroExitCode",
  CANCELLED: "Cancelled",
  TIMEOUT: "TimeLimit",
  PREEMPTED: "Preempted",
  NODE_FAIL: "NodeFail",
  OUT_OF_MEMORY: "OutOfMemory",
};

/**
 * Exit status and signal of a job. While a job is live there is none. When Slurm ended it (cancel, time
 * limit, preemption, node failure) a status of 0 with no signal means "none recorded", not "exited 0". A job
 * that never started (JobLaunchFailure: its output file or directory could not be opened, …) carries one of
 * Slurm's own error numbers there (4021 seen here), not a wait status.
 */
function outcome(
  state: JobState,
  code: number,
  signal: number,
  reason: string,
): { exitCode: number | null; signal: number | null } {
  if (state === "PENDING" || state === "RUNNING" || reason === "JobLaunchFailure") {
    return { exitCode: null, signal: null };
  }
  if (signal > 0) return { exitCode: null, signal };
  const byHand = state === "CANCELLED" || state === "TIMEOUT" || state === "PREEMPTED" ||
    state === "NODE_FAIL";
  return { exitCode: byHand && code === 0 ? null : code, signal: null };
}

function view(
  jobId: JobId,
  word: string,
  code: number,
  signal: number,
  reason: string,
  source: ViewSource,
  seenAt: number,
): JobView {
  const state = mapState(word);
  return {
    jobId,
    state,
    slurmState: word.slice(0, MAX_FIELD),
    ...outcome(state, code, signal, reason),
    reason: (reason || REASON_OF[state] || "None").slice(0, MAX_FIELD),
    source,
    seenAt,
  };
}

/** squeue rows (SQUEUE_FORMAT); exit_code there is the raw wait status (768 = exit 3, 9 = SIGKILL). */
export function parseSqueue(text: string, seenAt: number): Map<JobId, JobView & { name: string }> {
  const out = new Map<JobId, JobView & { name: string }>();
  for (const line of text.split("\n")) {
    const parts = line.split("|");
    if (parts.length < 5) continue;
    const [id, word, reason, status] = parts.map((p) => p.trim());
    if (!id || !/^\d+(_\d+)?$/.test(id) || !word) continue;
    const raw = Number(status);
    const ws = Number.isInteger(raw) && raw >= 0 ? raw : 0;
    const v = view(id, word, (ws >> 8) & 0xff, ws & 0x7f, reason ?? "", "squeue", seenAt);
    out.set(id, { ...v, name: parts.slice(4).join("|").trim().slice(0, MAX_FIELD) });
  }
  return out;
}

/** "3:0" → [3, 0]; anything else → [0, 0]. */
function exitPair(s: string | undefined): [number, number] {
  const m = s?.match(/^(\d+):(\d+)$/);
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}

/**
 * One jobcomp/filetxt line: `JobId=12 UserId=… Name=… JobState=FAILED Partition=… … ExitCode=3:0`. The
 * fixed field order anchors the match, so a job name cannot fake another job's state.
 */
export function parseJobcompLine(line: string, seenAt: number): JobView | null {
  const id = line.match(/^JobId=(\d+(?:_\d+)?) /)?.[1];
  const word = line.match(/ JobState=([A-Z_]+) Partition=/)?.[1];
  if (!id || !word) return null;
  const codes = [...line.matchAll(/ ExitCode=(\d+:\d+)/g)].at(-1)?.[1];
  const [code, signal] = exitPair(codes);
  return view(id, word, code, signal, "", "jobcomp", seenAt);
}

/** `sacct -n -P -X -o JobID,State,ExitCode,Reason` rows. */
export function parseSacct(text: string, seenAt: number): Map<JobId, JobView> {
  const out = new Map<JobId, JobView>();
  for (const line of text.split("\n")) {
    const [id, word, codes, reason] = line.split("|").map((p) => p.trim());
    if (!id || !/^\d+(_\d+)?$/.test(id) || !word) continue;
    const [code, signal] = exitPair(codes);
    out.set(id, view(id, word, code, signal, reason ?? "", "sacct", seenAt));
  }
  return out;
}
