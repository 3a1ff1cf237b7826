/**
 * The harness's workers for untrusted step code (fold_worker.ts): one per fit, ended after it. Their lane is
 * the same for every job — read the toolkit and this directory, nothing of any scope — so a slot makes
 * spares between jobs (making one blocks the making thread for ~20 ms and costs ~36 ms of CPU). Also what
 * a job needs around them: reading the rows a worker hands back, and the time fitting actually ran.
 *
 * @module
 */
import { checkedRows, type Row, TransformError } from "../../../tabular/mod.ts";
import type { StepsInit, StepsJob, StepsReply } from "./fold_worker.ts";

const TOOLKIT = new URL("../../../tabular/", import.meta.url).pathname;
const HERE = new URL("../harness/", import.meta.url).pathname;
const WORKER = new URL("./fold_worker.ts", import.meta.url).href;

/** A worker's lane: the toolkit and this directory, nothing of any scope (the same for every job). */
const LANE: Deno.PermissionOptionsObject = {
  read: [TOOLKIT, HERE],
  write: false,
  net: false,
  env: false,
  run: false,
  ffi: false,
  sys: false,
  import: false,
};

/** Workers made ahead of any job, each to serve one fit and end. */
export class WorkerPool {
  readonly #spares: Worker[] = [];
  /**
   * How many spares to keep: the most workers one job needed so far (none until a job's steps needed
   * workers at all: an artifact of library steps alone never does).
   */
  #wanted = 0;
  /** Whether a job is running (spares are then made only when a fit needs one). */
  busy = false;

  /** A job will need `n` workers: keep that many spares from now on. */
  want(n: number): void {
    this.#wanted = Math.max(this.#wanted, n);
  }

  /** A spare, or a new worker when none is left. */
  take(): Worker {
    return this.#spares.shift() ?? this.#make();
  }

  /** Makes spares until there are enough, one at a time, giving way to a job as soon as one arrives. */
  async refill(): Promise<void> {
    while (!this.busy && this.#spares.length < this.#wanted) {
      this.#spares.push(this.#make());
      await new Promise((r) => setTimeout(r, 0));
    }
  }

  /** A new worker; until a fit takes it, an error of its own (it could not start) only retires it. */
  #make(): Worker {
    const w = new Worker(WORKER, { type: "module", deno: { permissions: LANE } });
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      const at = this.#spares.indexOf(w);
      if (at >= 0) this.#spares.splice(at, 1);
      w.terminate();
    };
    return w;
  }
}

export interface StepsRun {
  /** Hands the worker its fit's rows (JSON text of the rows). */
  send(train: string, other: string): void;
  reply: Promise<StepsReply>;
}

/**
 * A worker from `pool` for one fit of the artifact's steps, told its modules now and its rows when `send`
 * is called; it is ended once it answered. `onLoaded` is called when its code is loaded (a sign of life for
 * the hang clock). Only the worker's own replies count: anything else posted is ignored, and the rows it
 * hands back are read like any transform's output (`rowsOf`) before anything uses them.
 */
export function stepsWorker(
  pool: WorkerPool,
  init: StepsInit,
  onLoaded: () => void,
  live: Set<Worker>,
): StepsRun {
  const w = pool.take();
  let settle: (r: StepsReply) => void = () => {};
  const reply = new Promise<StepsReply>((r) => (settle = r)).finally(() => {
    w.terminate();
    live.delete(w);
  });
  w.onmessage = (e: MessageEvent<unknown>) => {
    const m = e.data as {
      phase?: unknown;
      train?: unknown;
      other?: unknown;
      ran?: unknown;
      code?: unknown;
      message?: unknown;
    };
    if (m?.phase === "loaded") onLoaded();
    else if (m?.phase === "done" && typeof m.train === "string" && typeof m.other === "string") {
      const ran = Array.isArray(m.ran) && m.ran.length === 2 && m.ran.every(Number.isFinite)
        ? [m.ran[0], m.ran[1]] as [number, number]
        : [0, 0] as [number, number];
      settle({ phase: "done", train: m.train, other: m.other, ran });
    } else if (m?.phase === "failed") {
      settle({ phase: "failed", code: m.code === 1 ? 1 : 3, message: String(m.message).slice(0, 2000) });
    }
  };
  w.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    settle({ phase: "failed", code: 3, message: String(e.message).slice(0, 2000) });
  };
  w.postMessage(init);
  live.add(w);
  return {
    send: (train, other) => w.postMessage({ kind: "rows", train, other } satisfies StepsJob),
    reply,
  };
}

/** A worker's JSON rows, `n` of them, each without the target column; or the artifact's failure. */
export function rowsOf(text: string, n: number, phase: "fit" | "transform"): Row[] {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    throw new TransformError(phase, "it returned rows that cannot be read");
  }
  return checkedRows(rows, n, phase);
}

/** The length of the union of `spans` (start, end), in ms: how long fitting ran, counted once. */
export function covered(spans: [number, number][]): number {
  const sorted = spans.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0, end = -Infinity;
  for (const [a, b] of sorted) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/** Milliseconds since the epoch, comparable across isolates (a worker's `ran` spans use the same clock). */
export const clock = () => performance.timeOrigin + performance.now();
