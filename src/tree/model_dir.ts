/**
 * The run's final model on disk (`model/`): the admitted artifact refit on dev + held-out, as plain files a
 * reader without Arrow can open — `model.json` (the manifest: format, input columns and kinds, target, task,
 * classes, metric, steps), `gbdt.json` (the boosted trees) or `linear.json` (the linear model, with the L2
 * strength it was fit at), named by the manifest's `files.model`, `encoding.json` (the column encoders),
 * `steps_state.json` (the fitted state of the library's steps) and `artifact/` (artifact.json and the step
 * modules, at a scope's depth so their toolkit import resolves as it did in the run).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { canonicalPretty } from "../model/json.ts";
import type { TreeData } from "./data.ts";
import { libraryWrote } from "./ideate/library.ts";
import type { RefitRun } from "./gate/refit.ts";
import type { TreeNode, TreeState } from "./types.ts";

export const MODEL_FORMAT = "arrow-tree-model/1";

export interface ModelManifest {
  format: typeof MODEL_FORMAT;
  node: string;
  target: string;
  task: string;
  classes: string[];
  metric: string;
  seed: number;
  /** The columns a CSV to predict must have, with the kinds they are read as (the target is not one). */
  columns: { name: string; kind: string }[];
  /** Columns of the training CSV left out as row identifiers (not features; copied to predictions). */
  id_columns: string[];
  fit_on: "dev+heldout";
  fit_rows: number;
  final_test: number | null;
  /** The artifact's steps in order: file (under model/), content hash, and whether Arrow's library wrote it. */
  steps: { path: string; sha256: string; library: boolean }[];
  model_params: Record<string, number | string>;
  /** The columns the steps produce (what the encoders read); null without steps. */
  steps_output: { name: string; kind: string }[] | null;
  /** `model`: the fitted model's file (`gbdt.json` or `linear.json`); manifests written before it existed
   * name `gbdt` instead, always `gbdt.json`. */
  files: { model?: string; gbdt?: string; encoding: string; steps_state: string | null };
  /** An ensemble: its members' model directories (relative to this one) and weights (absent: one model). */
  members?: { node: string; weight: number; dir: string }[];
  /** The artifact's directory relative to this one (absent: `artifact`). */
  artifact_dir?: string;
  /** How `arrow tree predict` runs it. */
  predict: "in-process" | "unavailable";
  predict_note: string;
}

export const modelDir = (runDir: string) => `${runDir}/model`;

const sha256 = (t: string) => createHash("sha256").update(t).digest("hex");

function pathTo(s: TreeState, id: string): TreeNode[] {
  const out: TreeNode[] = [];
  for (let at: TreeNode | undefined = s.nodes[id]; at; at = at.parent ? s.nodes[at.parent] : undefined) {
    out.unshift(at);
  }
  return out;
}

/** Whether every step on node `id`'s path is one Arrow's library wrote (checked against its templates). */
export function allLibrary(s: TreeState, id: string): boolean {
  return pathTo(s, id).every((n) => !n.hypothesis?.step || libraryWrote(s, n.hypothesis));
}

/** Writes `model/` for node `node`'s refit (replacing any earlier one); returns the manifest. */
export function writeModel(
  runDir: string,
  s: TreeState,
  data: TreeData,
  node: string,
  refit: RefitRun,
  finalTest: number | null,
): ModelManifest | null {
  const m = refit.model;
  if (!m && !refit.members) return null;
  const dir = modelDir(runDir);
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  if (refit.members) return writeEnsemble(dir, s, data, node, refit, finalTest);
  return write(dir, s, data, node, refit, finalTest);
}

/**
 * An ensemble's model: each member's own model directory under `members/<node>/` (as a single node's
 * `model/`), and a manifest naming them with their weights; it predicts in-process only when every member
 * does.
 */
function writeEnsemble(
  dir: string,
  s: TreeState,
  data: TreeData,
  node: string,
  refit: RefitRun,
  finalTest: number | null,
): ModelManifest {
  const members = refit.members!.map((m) => ({
    node: m.node,
    weight: m.weight,
    dir: `members/${m.node}`,
    // The member's artifact beside model/artifact (model/artifact_<node>/), at the depth its steps' toolkit
    // import was written for; the rest of its model under members/<node>/.
    manifest: write(`${dir}/members/${m.node}`, s, data, m.node, m.run, null, `../../artifact_${m.node}`),
  }));
  const first = members[0]!.manifest;
  const predictable = members.every((m) => m.manifest.predict === "in-process");
  const manifest: ModelManifest = {
    ...first,
    node,
    final_test: finalTest,
    steps: [],
    model_params: {},
    steps_output: null,
    files: { model: "", encoding: "", steps_state: null },
    members: members.map(({ node, weight, dir }) => ({ node, weight, dir })),
    predict: predictable ? "in-process" : "unavailable",
    predict_note: predictable
      ? "an ensemble: every member predicts in-process (its own model under members/), weighted and averaged"
      : "an ensemble with a member that cannot predict outside a run (see its members/ manifest)",
  };
  Deno.writeTextFileSync(`${dir}/model.json`, canonicalPretty(manifest));
  return manifest;
}

function write(
  dir: string,
  s: TreeState,
  data: TreeData,
  node: string,
  refit: RefitRun,
  finalTest: number | null,
  /** Where the artifact goes, relative to `dir`: at a scope's depth below the run (see writeEnsemble). */
  art = "artifact",
): ModelManifest {
  const m = refit.model!;
  const n = s.nodes[node]!;
  Deno.mkdirSync(`${dir}/${art}/steps`, { recursive: true });
  Deno.copyFileSync(`${refit.scope}/artifact.json`, `${dir}/${art}/artifact.json`);
  const library = allLibrary(s, node);
  const libraryHashes = new Set(
    pathTo(s, node).flatMap((x) =>
      x.hypothesis?.step && libraryWrote(s, x.hypothesis) ? [sha256(x.hypothesis.step.source)] : []
    ),
  );
  const steps = n.artifact.steps.map((p) => {
    const text = Deno.readTextFileSync(`${refit.scope}/${p}`);
    Deno.writeTextFileSync(`${dir}/${art}/${p}`, text);
    const h = sha256(text);
    return { path: `${art}/${p}`, sha256: h, library: libraryHashes.has(h) };
  });
  const { task, table } = data;
  const predictable = library && (steps.length === 0 || m.steps_state !== null);
  const linear = (m.gbdt as { format?: unknown } | null)?.format === "arrow-linear/1";
  const fittedFile = linear ? "linear.json" : "gbdt.json";
  const manifest: ModelManifest = {
    format: MODEL_FORMAT,
    node,
    target: task.target.name,
    task: task.target.task,
    classes: task.target.classes,
    metric: task.metric,
    seed: s.config.seed,
    columns: table.columns.filter((c) => c.name !== task.target.name).map((c) => ({
      name: c.name,
      kind: c.kind,
    })),
    id_columns: data.info.dropped?.filter((d) => d.reason.startsWith("id-like")).map((d) => d.column) ?? [],
    fit_on: "dev+heldout",
    fit_rows: task.splits.dev.length + task.splits.heldout.length,
    final_test: finalTest,
    steps,
    model_params: n.artifact.model as Record<string, number | string>,
    steps_output: m.schema?.columns ?? null,
    ...(art === "artifact" ? {} : { artifact_dir: art }),
    files: {
      model: fittedFile,
      encoding: "encoding.json",
      steps_state: steps.length ? "steps_state.json" : null,
    },
    predict: predictable ? "in-process" : "unavailable",
    predict_note: predictable
      ? "every step is Arrow's library code (content-checked against its templates), so arrow tree predict " +
        "runs the steps, the encoders and the trees in its own process"
      : "a step is not the library's: its fitted state stayed in the sandboxed worker that fit it, so this " +
        "model cannot predict outside a run",
  };
  Deno.writeTextFileSync(`${dir}/${fittedFile}`, JSON.stringify(m.gbdt) + "\n");
  Deno.writeTextFileSync(`${dir}/encoding.json`, canonicalPretty(m.encoding));
  if (steps.length) Deno.writeTextFileSync(`${dir}/steps_state.json`, JSON.stringify(m.steps_state) + "\n");
  Deno.writeTextFileSync(`${dir}/model.json`, canonicalPretty(manifest));
  return manifest;
}
