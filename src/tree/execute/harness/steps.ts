/**
 * An artifact's step modules loaded and chained into one transform, with nothing of the toolkit loaded at
 * run time (its imports here are types only): this is what a fold's fresh worker runs, so starting one costs
 * the artifact's own modules and no more.
 *
 * @module
 */
import type { FeatureTransform, Row } from "../../../tabular/mod.ts";

/**
 * What a step threw or returned wrongly, with the phase — the same message as the toolkit's TransformError,
 * so a failed hypothesis leaves the same lesson wherever its code ran.
 */
export class StepError extends Error {
  constructor(readonly phase: "fit" | "transform", readonly reason: string) {
    super(`Cannot run the feature transform's ${phase}: ${reason}`);
    this.name = "StepError";
  }
}

function asStep(m: unknown, path: string): FeatureTransform {
  const d = (m as { default?: unknown })?.default as Record<string, unknown> | undefined;
  if (!d || typeof d.fit !== "function" || typeof d.transform !== "function") {
    throw new StepError("fit", `${path} does not export a default { fit, transform }`);
  }
  return d as unknown as FeatureTransform;
}

/**
 * Imports the step modules (each a `data:` URL from bundle.ts, named by its path in the artifact for
 * messages). The modules run here: call this inside the sandbox.
 */
export async function loadSteps(
  modules: readonly { path: string; url: string }[],
): Promise<FeatureTransform[]> {
  const out: FeatureTransform[] = [];
  for (const { path, url } of modules) {
    let m: unknown;
    try {
      m = await import(url);
    } catch (e) {
      throw new StepError("fit", `${path} cannot be loaded: ${e instanceof Error ? e.message : String(e)}`);
    }
    out.push(asStep(m, path));
  }
  return out;
}

function rowsOf(v: unknown, n: number, step: number, phase: "fit" | "transform"): Row[] {
  if (!Array.isArray(v)) throw new StepError(phase, `step ${step + 1} returned no array of rows`);
  if (v.length !== n) throw new StepError(phase, `step ${step + 1} returned ${v.length} rows for ${n}`);
  return v as Row[];
}

const withTarget = (rows: Row[], from: Row[], target: string): Row[] =>
  rows.map((r, i) => ({ ...r, [target]: from[i]![target] ?? null }));

/** The rows without the target column. */
export const withoutTarget = (rows: Row[], target: string): Row[] =>
  rows.map((r) => {
    const { [target]: _, ...rest } = r;
    return rest;
  });

/** Runs `f` as `phase` of step `i`: whatever it throws becomes a StepError naming the phase. */
function guarded<T>(phase: "fit" | "transform", f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof StepError) throw e;
    throw new StepError(phase, e instanceof Error ? e.message : String(e));
  }
}

/**
 * The steps chained into one transform: on training rows each step is fit on what the steps before it
 * produced (target attached), then transforms them; other rows pass through each step's transform in turn.
 */
export function chain(steps: FeatureTransform[], target: string): FeatureTransform<unknown[]> | null {
  if (steps.length === 0) return null;
  const fitTransform = (trainRows: Row[]) => {
    const states: unknown[] = [];
    let current = trainRows;
    steps.forEach((s, i) => {
      const out = guarded("fit", () => {
        if (s.fitTransform) {
          const r = s.fitTransform(current);
          states.push(r.state);
          return rowsOf(r.rows, current.length, i, "fit");
        }
        const st = s.fit(current);
        states.push(st);
        return rowsOf(s.transform(st, withoutTarget(current, target)), current.length, i, "fit");
      });
      current = withTarget(out, trainRows, target);
    });
    return { state: states, rows: current };
  };
  return {
    fit: (trainRows) => fitTransform(trainRows).state,
    fitTransform,
    transform: (states, rows) =>
      steps.reduce(
        (cur, s, i) =>
          guarded("transform", () => rowsOf(s.transform(states[i], cur), cur.length, i, "transform")),
        rows,
      ),
  };
}
