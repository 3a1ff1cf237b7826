/**
 * Chaos-testing faults a command worker honours through the SDK (WORKERS.md, "Faults"): an out-of-lane write,
 * a crash and a stall when a step is logged; a false claim and field overrides when the manifest is written.
 * Each fault fires once per attempt and appends one JSON line to ARROW_FAULT_LOG, which is how Arrow tells a
 * fault that fired from one that never did. Mirrors the Python SDK line for line.
 *
 * @module
 */
import type { ArrowEnv, Json, Manifest } from "./types.ts";
import { isAbsolute, join } from "./paths.ts";

type Fault = Record<string, Json>;

/** Blocks the thread (the worker stops making progress, as a deadlock would) for `ms`, or forever. */
function block(ms: number | null): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  if (ms !== null) {
    Atomics.wait(cell, 0, 0, ms);
    return;
  }
  for (;;) Atomics.wait(cell, 0, 0, 3_600_000);
}

const num = (v: Json | undefined, fallback: number) =>
  typeof v === "number" && Number.isFinite(v) ? v : fallback;

export function faultHooks(env: ArrowEnv) {
  const fired = new Set<string>();

  /** (position in ARROW_FAULTS, fault) pairs of a kind aimed at this node and attempt. */
  const aimed = (kind: string): [number, Fault][] =>
    env.faults.flatMap((f, i): [number, Fault][] => {
      if (f.kind !== kind || (f.node !== undefined && f.node !== env.node)) return [];
      const attempts = f.attempts;
      if (Array.isArray(attempts) && !attempts.includes(env.attempt)) return [];
      return [[i, f]];
    });

  /** True when the fault fired before in this attempt, in this process or (CLI use) an earlier one. */
  const already = (position: number, kind: string): boolean => {
    if (fired.has(`${position}:${kind}`)) return true;
    if (!env.faultLog) return false;
    let text = "";
    try {
      text = Deno.readTextFileSync(env.faultLog);
    } catch {
      return false;
    }
    return text.split("\n").some((line) => {
      try {
        const r = JSON.parse(line);
        return r.kind === kind && r.position === position && r.node === env.node && r.attempt === env.attempt;
      } catch {
        return false;
      }
    });
  };

  /**
   * One line in ARROW_FAULT_LOG: the fault's kind, its position in ARROW_FAULTS and, when Arrow numbered it,
   * its run-wide `index` (how Arrow tells which fault fired).
   */
  const record = (position: number, kind: string, detail: Record<string, Json>): void => {
    fired.add(`${position}:${kind}`);
    const rec: Record<string, Json> = { ...detail, attempt: env.attempt, kind, node: env.node, position };
    const index = env.faults[position]?.index;
    if (typeof index === "number" && Number.isInteger(index)) rec.index = index;
    const line = JSON.stringify(Object.fromEntries(Object.entries(rec).sort(([a], [b]) => (a < b ? -1 : 1))));
    if (!env.faultLog) {
      console.error(`arrow_sdk: fault ${kind} fired (no ARROW_FAULT_LOG to record it)`);
      return;
    }
    try {
      Deno.writeTextFileSync(env.faultLog, line + "\n", { append: true, create: true });
    } catch (e) {
      console.error(`arrow_sdk: cannot record fault ${kind} in ${env.faultLog}: ${(e as Error).message}`);
    }
  };

  const home = () => {
    try {
      return Deno.env.get("HOME") ?? "";
    } catch {
      return "";
    }
  };

  function escape(step: number): void {
    for (const [i, f] of aimed("out_of_scope_write")) {
      if (step < num(f.at_tick, 1) || already(i, "out_of_scope_write")) continue;
      let target = String(f.path ?? "");
      if (target.startsWith("~/")) target = home() + target.slice(1);
      if (!isAbsolute(target)) {
        const run = env.runDir ?? env.scope.slice(0, env.scope.lastIndexOf("/nodes/"));
        target = join(run, "nodes", target);
      }
      let outcome = "written";
      try {
        Deno.mkdirSync(target.slice(0, target.lastIndexOf("/")), { recursive: true });
        Deno.writeTextFileSync(
          target,
          `written by ${env.node} outside its scope (fault out_of_scope_write)\n`,
        );
      } catch (e) {
        outcome = `refused: ${(e as Error).name}`;
      }
      record(i, "out_of_scope_write", { outcome, path: target, step });
    }
  }

  return {
    /** Faults that fire when the worker logs `step`: an out-of-lane write, a crash, a stall. */
    atStep(step: number): void {
      escape(step);
      for (const [i, f] of aimed("crash")) {
        if (step < num(f.at_step, 0) || already(i, "crash")) continue;
        const want = num(f.exit, 1);
        const code = Number.isInteger(want) && want > 0 && want < 256 ? want : 1;
        record(i, "crash", { exit: code, step });
        console.error(`arrow_sdk: injected crash at step ${step} (fault crash, exit ${code})`);
        Deno.exit(code);
      }
      for (const [i, f] of aimed("stall")) {
        if (step < num(f.at_step, 0) || already(i, "stall")) continue;
        const seconds = typeof f.seconds === "number" && f.seconds >= 0 ? f.seconds : null;
        record(i, "stall", { seconds, step });
        block(seconds === null ? null : seconds * 1000);
      }
    },

    /** A false claim (claims[lap-1]) and field overrides, applied to the manifest in place. */
    onManifest(m: Manifest): void {
      for (const [i, f] of aimed("false_claim")) {
        const claims = Array.isArray(f.claims) ? f.claims : [];
        const claimed = claims[env.lap - 1];
        if (claimed === undefined || already(i, "false_claim")) continue;
        record(i, "false_claim", { claimed, lap: env.lap, score: m.score ?? null });
        m.score = claimed;
      }
      for (const [i, f] of aimed("manifest_override")) {
        if (
          typeof f.set !== "object" || f.set === null || Array.isArray(f.set) ||
          already(i, "manifest_override")
        ) {
          continue;
        }
        record(i, "manifest_override", { fields: Object.keys(f.set).sort() });
        Object.assign(m, f.set);
      }
    },
  };
}
