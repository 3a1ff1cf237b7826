/**
 * The artifact's code for one fit, in a Web Worker of its own: the harness (harness.ts) gives every fold,
 * and every prediction, a fresh worker and ends it after its one job, so whatever the artifact's code keeps
 * between calls — a module-level variable, a property on `globalThis` or on a prototype, a cache — dies with
 * the fold. Without this, a module could remember the labels of the rows it was fit on in one fold and hand
 * them back as a feature when the same rows are validated in the next, and cross-validation would measure
 * memory, not a feature.
 *
 * The worker runs the feature steps only — fit on the training rows (target attached), transform of the
 * other rows (no target) — and hands the rows back; the encoders and the model are fit by the harness, which
 * never runs the artifact's code. So a worker loads the artifact's modules and no more: it is told the
 * steps when it starts (`init`), imports them with read access to the scope and the toolkit alone, then
 * gives up every read before it is sent any row (`rows`). It never reads a data file. Channels between
 * isolates (BroadcastChannel, nested workers, message ports, shared memory, the Cache API) are removed from
 * its global scope before any artifact code loads.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { Row } from "../../src/tabular/mod.ts";
import { chain, loadSteps, StepError } from "./steps.ts";

/** The harness' first message: which steps to load, from where. */
export interface StepsInit {
  kind: "init";
  scope: string;
  steps: string[];
  target: string;
}

/** The second: the rows of one fit (training rows with the target, other rows without). */
export interface StepsJob {
  kind: "rows";
  train: Row[];
  other: Row[];
}

/** The worker's answer to its job (before it, `{ phase: "loaded" }` once its code is loaded). */
export type StepsReply =
  | { phase: "done"; train: Row[]; other: Row[] }
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
let loading: Promise<void> | null = null;

async function init(m: StepsInit): Promise<void> {
  transform = chain(await loadSteps(m.scope, m.steps), m.target);
  // Loaded: from here on nothing is readable, before any row arrives.
  Deno.permissions.revokeSync({ name: "read" });
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
    if (!transform) throw new StepError("fit", "the artifact has no steps");
    const fitted = transform.fitTransform!(m.train);
    reply = { phase: "done", train: fitted.rows, other: transform.transform(fitted.state, m.other) };
  } catch (err) {
    reply = failed(err);
  }
  try {
    post(reply);
  } catch (err) {
    // Rows holding what cannot be copied (functions, symbols): the artifact's own failure.
    post({ phase: "failed", code: 3, message: `its rows cannot be passed on: ${String(err).slice(0, 500)}` });
  }
};
