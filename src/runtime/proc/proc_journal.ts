/**
 * The journal of process groups a run started and stopped (.arrow/procs.jsonl, pid and kernel start
 * time), so that a later `arrow resume` can stop whatever a dead arrow left behind without ever signalling
 * a recycled pid.
 *
 * @module
 */
import type { NodeId } from "../../graph/types.ts";
import { appendDurable } from "../atomic.ts";
import { type Spawned, stopRecorded } from "./proc.ts";

export class ProcJournal {
  readonly path: string;

  constructor(runDir: string) {
    this.path = `${runDir}/.arrow/procs.jsonl`;
  }

  log(op: "start" | "stop", node: NodeId, p: Spawned): void {
    appendDurable(this.path, JSON.stringify({ op, node, pid: p.pid, start: p.startTime }) + "\n", false);
  }

  /**
   * The earliest kernel start time of any process group the journal recorded (null when none): nothing
   * the run's workers left can have started before it.
   */
  firstStart(): bigint | null {
    let first: bigint | null = null;
    for (const r of this.#records()) {
      if (r.op !== "start" || typeof r.start !== "string" || !/^\d+$/.test(r.start)) continue;
      const t = BigInt(r.start);
      if (first === null || t < first) first = t;
    }
    return first;
  }

  #records(): { op: string; pid: number; start: string | null }[] {
    let text = "";
    try {
      text = Deno.readTextFileSync(this.path);
    } catch {
      return [];
    }
    const out: { op: string; pid: number; start: string | null }[] = [];
    for (const line of text.split("\n")) {
      try {
        const r = JSON.parse(line);
        if (r && typeof r === "object" && typeof r.pid === "number") out.push(r);
      } catch {
        // a torn last line: its process is covered by its own start line or never started
      }
    }
    return out;
  }

  /** Stops every recorded group that was started and never stopped; returns those that still had members. */
  async stopLeftovers(): Promise<number[]> {
    const live = new Map<number, string | null>();
    for (const r of this.#records()) {
      if (r.op === "start") live.set(r.pid, r.start);
      else live.delete(r.pid);
    }
    if (live.size === 0 && !exists(this.path)) return [];
    const stopped = await Promise.all(
      [...live].map(async ([pid, start]) => (await stopRecorded(pid, start)) ? pid : 0),
    );
    Deno.writeTextFileSync(this.path, "");
    return stopped.filter((p) => p > 0);
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
