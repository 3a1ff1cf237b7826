/**
 * An artifact directory as one feature transform: `artifact.json` names the step modules (each exporting a
 * `FeatureTransform` as its default) in order and the model settings; the steps are imported from the
 * artifact's own directory and chained (steps.ts), each fit on the output of the ones before it. Used by the
 * executor, the recomputation and the merge gate alike, so all three run exactly the same artifact.
 *
 * @module
 */
import { type FeatureTransform, type GbdtParams, TransformError } from "../../../tabular/mod.ts";
import { type BundledStep, bundleSteps } from "./bundle.ts";
import { chain, loadSteps as loadModules, StepError } from "./steps.ts";

export const ARTIFACT_FORMAT = "arrow-tree-artifact/1";
/** Most step modules one artifact may chain (a path in the tree is never deeper than this). */
export const MAX_STEPS = 64;
const STEP_PATH = /^steps\/[A-Za-z0-9_.-]{1,120}\.ts$/;

export interface ArtifactManifest {
  format: typeof ARTIFACT_FORMAT;
  steps: string[];
  model: Partial<GbdtParams> & { kind?: "gbdt" | "linear"; alpha?: number; tune?: number };
  /**
   * SHA-256 (hex) of the step modules Arrow's library wrote, as Arrow checked when it wrote the artifact:
   * a step whose file hashes to one of these is Arrow's own code (harness.ts runs it beside the encoders).
   */
  library: string[];
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
    if (k === "kind") {
      if (x !== "gbdt" && x !== "linear") bad(`model.kind is not "gbdt" or "linear"`);
    } else if (typeof x !== "number" || !Number.isFinite(x)) bad(`model.${k} is not a finite number`);
  }
  const library = o.library ?? [];
  if (
    !Array.isArray(library) || library.length > MAX_STEPS ||
    !library.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h))
  ) bad(`library is not a list of ≤ ${MAX_STEPS} SHA-256 hashes`);
  return {
    format: ARTIFACT_FORMAT,
    steps: steps as string[],
    model: model as ArtifactManifest["model"],
    library: library as string[],
  };
}

/** Imports the steps of an artifact in `scope` (the modules run here: call this inside the sandbox). */
export function loadSteps(scope: string, manifest: ArtifactManifest): Promise<FeatureTransform[]> {
  const urls = bundleSteps(scope, manifest.steps);
  return loadModules(manifest.steps.map((path, i) => ({ path, url: urls[i]! })));
}

/**
 * Whether every step of the artifact is a module Arrow's library wrote: its file's SHA-256 is one Arrow
 * recorded as the library's when it wrote the artifact (artifact.json `library`, checked against the
 * library's own templates there). Such steps are Arrow's code, like the encoders, and run in the harness;
 * any other step — an LLM's, a fixture's, a file changed since — runs in a fresh worker per fit.
 */
export function fromLibrary(manifest: ArtifactManifest, steps: readonly BundledStep[]): boolean {
  const known = new Set(manifest.library);
  return known.size > 0 && steps.length > 0 && steps.every((s) => known.has(s.sha256));
}

/** The library's steps chained into one transform run in place, failing as the pipeline's transforms fail. */
export function libraryTransform(steps: FeatureTransform[], target: string): FeatureTransform {
  const t = chain(steps, target)!;
  const lift = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof StepError) throw new TransformError(e.phase, e.reason);
      throw e;
    }
  };
  return {
    fit: (rows) => lift(() => t.fit(rows)),
    transform: (state, rows) => lift(() => t.transform(state as unknown[], rows)),
    fitTransform: (rows) => lift(() => t.fitTransform!(rows)),
  };
}

export { chain, StepError };
