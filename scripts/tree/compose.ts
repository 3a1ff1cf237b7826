/**
 * An artifact directory as one feature transform: `artifact.json` names the step modules (each exporting a
 * `FeatureTransform` as its default) in order and the model settings; the steps are imported from the
 * artifact's own directory and chained, each fit on the output of the ones before it. Used by the executor,
 * the recomputation and the merge gate alike, so all three run exactly the same artifact.
 *
 * @module
 */
import { type FeatureTransform, type GbdtParams, type Row, TransformError } from "../../src/tabular/mod.ts";

export const ARTIFACT_FORMAT = "arrow-tree-artifact/1";
/** Most step modules one artifact may chain (a path in the tree is never deeper than this). */
export const MAX_STEPS = 64;
const STEP_PATH = /^steps\/[A-Za-z0-9_.-]{1,120}\.ts$/;

export interface ArtifactManifest {
  format: typeof ARTIFACT_FORMAT;
  steps: string[];
  model: Partial<GbdtParams>;
}

/** Checks an artifact manifest's shape; throws TypeError "Cannot read the artifact: …". */
export function parseArtifact(v: unknown): ArtifactManifest {
  const bad = (why: string): never => {
    throw new TypeError(`Cannot read the artifact: ${why}`);
  };
  if (typeof v !== "object" || v === null || Array.isArray(v)) return bad("artifact.json is not an object");
  const o = v as Record<string, unknown>;
  if (o.format !== ARTIFACT_FORMAT) bad(`format is not "${ARTIFACT_FORMAT}"`);
  if (!Array.isArray(o.steps) || o.steps.length > MAX_STEPS) bad(`steps is not a list of ≤ ${MAX_STEPS}`);
  const steps = o.steps as unknown[];
  for (const s of steps) {
    if (typeof s !== "string" || !STEP_PATH.test(s) || s.includes("..")) {
      bad(`step ${JSON.stringify(s)} is not a file name under steps/`);
    }
  }
  const model = o.model ?? {};
  if (typeof model !== "object" || model === null || Array.isArray(model)) bad("model is not an object");
  for (const [k, x] of Object.entries(model as Record<string, unknown>)) {
    if (typeof x !== "number" || !Number.isFinite(x)) bad(`model.${k} is not a finite number`);
  }
  return { format: ARTIFACT_FORMAT, steps: steps as string[], model: model as Partial<GbdtParams> };
}

function asStep(m: unknown, path: string): FeatureTransform {
  const d = (m as { default?: unknown })?.default as Record<string, unknown> | undefined;
  if (!d || typeof d.fit !== "function" || typeof d.transform !== "function") {
    throw new TransformError("fit", `${path} does not export a default { fit, transform }`);
  }
  return d as unknown as FeatureTransform;
}

/** Imports the steps of an artifact in `scope` (the modules run here: call this inside the sandbox). */
export async function loadSteps(scope: string, manifest: ArtifactManifest): Promise<FeatureTransform[]> {
  const out: FeatureTransform[] = [];
  for (const path of manifest.steps) {
    let m: unknown;
    try {
      m = await import(new URL(`file://${scope}/${path}`).href);
    } catch (e) {
      throw new TransformError(
        "fit",
        `${path} cannot be loaded: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    out.push(asStep(m, path));
  }
  return out;
}

function rowsOf(v: unknown, n: number, step: number, phase: "fit" | "transform"): Row[] {
  if (!Array.isArray(v)) throw new TransformError(phase, `step ${step + 1} returned no array of rows`);
  if (v.length !== n) throw new TransformError(phase, `step ${step + 1} returned ${v.length} rows for ${n}`);
  return v as Row[];
}

const withTarget = (rows: Row[], from: Row[], target: string): Row[] =>
  rows.map((r, i) => ({ ...r, [target]: from[i]![target] ?? null }));

const withoutTarget = (rows: Row[], target: string): Row[] =>
  rows.map((r) => {
    const { [target]: _, ...rest } = r;
    return rest;
  });

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
      let out: Row[];
      if (s.fitTransform) {
        const r = s.fitTransform(current);
        states.push(r.state);
        out = rowsOf(r.rows, current.length, i, "fit");
      } else {
        const st = s.fit(current);
        states.push(st);
        out = rowsOf(s.transform(st, withoutTarget(current, target)), current.length, i, "fit");
      }
      current = withTarget(out, trainRows, target);
    });
    return { state: states, rows: current };
  };
  return {
    fit: (trainRows) => fitTransform(trainRows).state,
    fitTransform,
    transform: (states, rows) =>
      steps.reduce((cur, s, i) => rowsOf(s.transform(states[i], cur), cur.length, i, "transform"), rows),
  };
}
