/**
 * `arrow tree --start default|weak|<artifact.json>`: the starting artifact (the tree's root). `default` is
 * the toolkit's default model on the raw columns; `weak` a deliberately weak one (10 stages of depth-1
 * stumps) so a benchmark can show the search climbing; a path loads an artifact.json (format, steps under
 * `steps/` beside it, model settings), checked here with messages that name the file.
 *
 * @module
 */
import { dirname } from "node:path";
import { type GbdtParams, gbdtParams, linearParams } from "../tabular/mod.ts";
import { parseArtifact } from "../tree/mod.ts";
import type { ArtifactModel, StepFile } from "../tree/mod.ts";

export interface StartArtifact {
  kind: "default" | "weak" | "file";
  file?: string;
  /** GBDT settings, or `{ kind: "linear", alpha, tune? }` (as an artifact.json of a run may hold). */
  model: ArtifactModel;
  steps: StepFile[];
}

export const WEAK_START: Readonly<Partial<GbdtParams>> = { stages: 10, maxDepth: 1 };

/** Thrown for a start artifact that cannot be used (an input error). */
export class StartError extends Error {
  override name = "StartError";
}

const MAX_STEP_BYTES = 1 << 20;

export function loadStart(arg: string | undefined): StartArtifact {
  if (arg === undefined || arg === "default") return { kind: "default", model: {}, steps: [] };
  if (arg === "weak") return { kind: "weak", model: { ...WEAK_START }, steps: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(Deno.readTextFileSync(arg));
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "no such file (give default, weak or an artifact.json)"
      : e instanceof SyntaxError
      ? `not JSON: ${e.message}`
      : String(e);
    throw new StartError(`--start ${arg}: ${why}`);
  }
  let manifest;
  try {
    manifest = parseArtifact(raw);
    const { kind, ...settings } = manifest.model;
    if (kind === "linear") linearParams(settings as { alpha?: number; tune?: number });
    else gbdtParams(settings);
  } catch (e) {
    throw new StartError(`--start ${arg}: ${(e as Error).message}`);
  }
  const steps = manifest.steps.map((path) => {
    if (/^steps\/\d{3}_/.test(path)) {
      throw new StartError(
        `--start ${arg}: step ${path}: a starting step's name must not begin with three digits and "_" ` +
          "(the tree names its own steps so)",
      );
    }
    const file = `${dirname(arg)}/${path}`;
    let source: string;
    try {
      const st = Deno.statSync(file);
      if (!st.isFile || st.size > MAX_STEP_BYTES) throw new StartError(`not a file of at most 1 MiB`);
      source = Deno.readTextFileSync(file);
    } catch (e) {
      throw new StartError(
        `--start ${arg}: step ${path} (${file}): ${
          e instanceof Deno.errors.NotFound ? "no such file" : (e as Error).message
        }`,
      );
    }
    return { path, source };
  });
  return { kind: "file", file: arg, model: manifest.model, steps };
}
