/**
 * The assertions the hostile suite makes about one attack's outcome, and the scheduling that lets all
 * campaigns run side by side: every campaign's runs start as soon as the test module loads (a few arrow
 * processes at a time), and each test awaits its own. Labs are removed when the test process ends.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { BWRAP, figure, how, type Mode, MODES, Pool, processesMatching, reap } from "../helpers/hostile.ts";
import { incidentsOf, Lab, type Outcome, survivalProblems } from "./lab.ts";

export const runnable = (m: Mode) => m.name !== "bwrap" || BWRAP !== null;
export const [SANDBOXED, UNSANDBOXED] = MODES as [Mode, Mode];

/** Arrow processes at once across the whole suite (most of their time is spent waiting on workers). */
const POOL = new Pool(5);
const LABS: Lab[] = [];
globalThis.addEventListener("unload", () => {
  for (const lab of LABS.splice(0)) {
    // Whatever an attack left running (a daemon that won, a run cut short) goes with its lab.
    reap(processesMatching(lab.base));
    lab[Symbol.dispose]();
  }
});

export interface Campaign {
  lab: Lab;
  /** Outcome per mode name, for the modes that can run here. */
  runs: Promise<Map<string, Outcome>>;
}

/**
 * Starts a campaign now: `job` once per runnable mode, through the suite's pool. `label` names the lab
 * and the figures printed.
 */
export function campaign(label: string, job: (m: Mode, lab: Lab) => Promise<Outcome>): Campaign {
  const lab = Lab.open(label);
  LABS.push(lab);
  const modes = MODES.filter(runnable);
  const runs = Promise.all(modes.map((m) =>
    POOL.run(async () => {
      const o = await job(m, lab);
      figure(`${label}/${m.name}`, o.w);
      return o;
    })
  )).then((done) => new Map(modes.map((m, i) => [m.name, done[i]!])));
  // A failure belongs to the test that awaits it, not to whichever test is running when it happens.
  runs.catch(() => {});
  return { lab, runs };
}

/**
 * Runs a follow-up command (resume, replay, report) at once: they are short, and waiting behind the
 * campaigns still queued in the pool would only stretch the test.
 */
export const pooled = <T>(job: () => Promise<T>) => job();

export type Step = (o: Outcome, m: Mode) => void | Promise<void>;

/** One step per mode: ignored where the mode cannot run (no bubblewrap). `only` limits it to one mode. */
export async function each(
  t: Deno.TestContext,
  runs: Map<string, Outcome>,
  name: string,
  fn: Step,
  only?: Mode,
): Promise<void> {
  for (const m of only ? [only] : MODES) {
    await t.step({ name: `${m.name}: ${name}`, ignore: !runnable(m), fn: () => fn(runs.get(m.name)!, m) });
  }
}

export const SURVIVES = "arrow exits 0 with a verdict, never hangs, stays under 300 MB";
export const survives: Step = (o) => deepEqual(survivalProblems(o), [], how(o.w));

export const status = (o: Outcome, node: string) => o.state?.nodes[node];

export function verified(o: Outcome, node: string): void {
  equal(status(o, node)?.status, "verified", `${node}: ${JSON.stringify(status(o, node))}`);
}

/**
 * A lap whose sandbox could not even be set up because an entry of /tmp vanished meanwhile
 * (KNOWN_FAILURES.md F11, tested on its own by the busy-/tmp case): the attack never ran in it.
 */
export const VANISHED_MOUNT = /^bwrap: Can't find source path /;

const crashTail = (i: { evidence: Record<string, unknown> }) =>
  ((i.evidence.crash as { stderr_tail?: string[] } | undefined)?.stderr_tail ?? []).join(" | ");

/** The node's claim was refused for `problem` on every lap its attack ran in, and it was fused. */
export function refused(o: Outcome, node: string, problem: RegExp): void {
  const ns = status(o, node);
  deepEqual([ns?.status, ns?.cause], ["killed", "FALSE_COMPLETION"], `${node}: ${JSON.stringify(ns)}`);
  const laps = incidentsOf(o, node, "FALSE_COMPLETION").filter((i) => !VANISHED_MOUNT.test(crashTail(i)));
  const ps = laps.map((i) => `${i.evidence.problem}${i.evidence.crash ? ` [${crashTail(i)}]` : ""}`);
  ok(ps.length > 0 && ps.every((p) => problem.test(p)), JSON.stringify(ps));
}

export const log = (o: Outcome, node: string) => {
  try {
    return Deno.readTextFileSync(`${o.dir}/logs/${node}.out`);
  } catch {
    return "";
  }
};

export const exists = (p: string) => {
  try {
    Deno.lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

export const size = (p: string) => {
  try {
    return Deno.lstatSync(p).size;
  } catch {
    return 0;
  }
};
