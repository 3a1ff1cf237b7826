/**
 * The artifact's code for one fit, in a Web Worker of its own: the harness (harness.ts) gives every fold,
 * and every prediction, a fresh worker and ends it after its one job, so whatever the artifact's code keeps
 * between calls — a module-level variable, a property on `globalThis` or on a prototype, a cache — dies with
 * the fold. Without this, a module could remember the labels of the rows it was fit on in one fold and hand
 * them back as a feature when the same rows are validated in the next, and cross-validation would measure
 * memory, not a feature.
 *
 * The worker runs the feature steps only — fit on the training rows (target attached), transform of the
 * other rows (no target) — and hands their output back as columns; the encoders and the model are fit by the
 * harness, which never runs the artifact's code and checks every cell of what it is handed. A worker's lane
 * is the same for every job: it may read the toolkit and this directory, nothing of any scope, so a slot
 * starts its workers before it knows the job (the worker costs ~20 ms of the starting thread). It is told
 * the steps as `data:` URLs (`init`, bundle.ts), imports them, then gives up every read before it is sent
 * any row (`rows`, columns handed over rather than copied). It never reads a data file. Channels between
 * isolates (BroadcastChannel, nested workers, message ports, shared memory, the Cache API) are removed from
 * its global scope before any artifact code loads. The toolkit's row conversion runs in the same isolate as
 * the artifact's code, which could tamper with it: that changes nothing but the artifact's own output.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { Row } from "../../../tabular/mod.ts";
import { chain, loadSteps, StepError, withoutTarget } from "./steps.ts";

/** The harness' first message: the step modules (bundled as `data:` URLs, named by path) and the target. */
export interface StepsInit {
  kind: "init";
  modules: { path: string; url: string }[];
  target: string;
}

/**
 * The second: the rows of one fit as JSON text (copying text between isolates is one memory copy, and
 * parsing it is native, where a fresh isolate runs any JavaScript of ours cold) — the training rows with the
 * target, the other rows without it.
 */
export interface StepsJob {
  kind: "rows";
  train: string;
  other: string;
}

/**
 * The worker's answer to its job (before it, `{ phase: "loaded" }` once its code is loaded): the steps'
 * output rows as JSON text (training rows without the target), and when the steps themselves ran (`ran`:
 * start and end, ms since the epoch) — the time the harness counts as fitting.
 */
export type StepsReply =
  | { phase: "done"; train: string; other: string; ran: [number, number] }
  | { phase: "failed"; code: 1 | 3; message: string };

const CHANNELS = [
  "BroadcastChannel",
  "Worker",
  "MessageChannel",
  "MessagePort",
  "SharedArrayBuffer",
  "Atomics",
  "caches",
  "CacheStorage",
  "localStorage",
  "sessionStorage",
  "indexedDB",
];
for (const name of CHANNELS) delete (globalThis as Record<string, unknown>)[name];
// A worker sees its process' arguments, and the harness' name its mode: code that could read them could
// behave one way for the executor and another for Arrow's recomputation.
Object.defineProperty(Deno, "args", { value: Object.freeze([]), configurable: false });

const post = (m: StepsReply | { phase: "loaded" }) => self.postMessage(m);
const failed = (e: unknown): StepsReply => ({
  phase: "failed",
  code: e instanceof StepError || e instanceof RangeError || e instanceof TypeError ? 3 : 1,
  message: (e instanceof Error ? e.message : String(e)).slice(0, 2000),
});

let transform: ReturnType<typeof chain> | undefined;
let target = "";
let loading: Promise<void> | null = null;

async function init(m: StepsInit): Promise<void> {
  target = m.target;
  transform = chain(await loadSteps(m.modules), m.target);
  // Loaded: from here on nothing is readable, before any row arrives.
  Deno.permissions.revokeSync({ name: "read" });
}

const now = () => performance.timeOrigin + performance.now();

/** JSON text of a transform's output rows: what cannot be written so is the artifact's failure. */
function text(rows: unknown, phase: "fit" | "transform"): string {
  try {
    return JSON.stringify(rows);
  } catch (e) {
    throw new StepError(phase, `its rows cannot be passed on: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function run(m: StepsJob): StepsReply {
  if (!transform) throw new StepError("fit", "the artifact has no steps");
  const trainIn = JSON.parse(m.train) as Row[];
  const otherIn = JSON.parse(m.other) as Row[];
  const t0 = now();
  const fitted = transform.fitTransform!(trainIn);
  const otherOut = transform.transform(fitted.state, otherIn);
  const t1 = now();
  return {
    phase: "done",
    train: text(withoutTarget(fitted.rows, target), "fit"),
    other: text(otherOut, "transform"),
    ran: [t0, t1],
  };
}

self.onmessage = async (e: MessageEvent<StepsInit | StepsJob>) => {
  const m = e.data;
  if (m.kind === "init" && !loading) {
    loading = init(m);
    loading.then(() => post({ phase: "loaded" }), (err) => post(failed(err)));
    return;
  }
  if (m.kind !== "rows" || !loading) return;
  let reply: StepsReply;
  try {
    await loading;
    reply = run(m);
  } catch (err) {
    reply = failed(err);
  }
  post(reply);
};

// Compiles a tiny TypeScript module while the worker waits for a job: the first compilation in a fresh
// isolate is the slowest, and this moves it off a fit's clock. It touches no data.
import(`data:application/typescript;base64,${btoa("export const warm: number = 1;")}`).catch(() => {});
