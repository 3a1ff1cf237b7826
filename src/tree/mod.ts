/**
 * Tree mode: Arbor-style hypothesis-tree research on tabular data, under the same overwatch as the graph
 * path. `arrow tree --data F --target C` (src/cli/tree.ts) drives it.
 *
 * ## One cycle
 *
 * The loop is a step function (`step.ts`) over one serialisable `TreeState`; the shell (`loop.ts`) performs
 * what `state.pending` asks and folds the outcome back in as one event, persisting every step.
 *
 * 1. **select** — when a cycle begins, `select.ts` picks the node to expand (UCB over dev gain with visit
 *    counts — each node's own gain shrunk toward its family's effect when insights are on; `random` and
 *    `greedy` for the comparisons) and `pending` becomes `ideate`.
 * 2. **ideate** — the library (`library.ts`, modules from `library_code.ts`) or the LLM (`llm_ideator.ts`)
 *    proposes hypotheses, each a concrete step module; the `proposed` event makes them child nodes whose
 *    artifact is the parent's plus that step (or a model setting).
 * 3. **dispatch** — `pending = execute`: each node gets a scope (`nodes/<id>/`), an executor child and a
 *    standby recomputation child (`executor.ts`, `child.ts`, `sandbox.ts`, `src/tree/execute/harness/harness.ts`):
 *    Deno permissions (read its dev rows, its scope, the toolkit; write its scope; audited) and bubblewrap
 *    when present (the user's CSV and every run hidden); the artifact's steps run in a fresh worker per fold
 *    that can read nothing once loaded (`src/tree/execute/harness/fold_worker.ts`), so nothing is remembered across
 *    folds — unless every step is one the library wrote (content hash recorded in artifact.json, checked
 *    against the library's templates), which is Arrow's own code and runs beside the encoders.
 * 4. **observe** — exit code, stderr tail, silence (hung after K_FREEZE observations), wall budget,
 *    permission audit, `results.json` (the claim), `metrics.jsonl` (the folds it logged), and Arrow's own
 *    recomputation of every fold's predictions, scored against dev labels in the coordinator: the
 *    `executed` event.
 * 5. **backpropagate** — `overwatch.ts` judges each executor (SCOPE_VIOLATION, HUNG_RESTART,
 *    BUDGET_TRIP, FALSE_COMPLETION with typed evidence; failing code is a lesson); `insight.ts` compares
 *    each measured node with its parent fold by fold (helped / hurt / neutral / failed, why, a sentence);
 *    visits, dev gains and outcome tallies move up to every ancestor.
 * 6. **decide** — the best new node that beats the incumbent on dev beyond noise goes to the merge gate
 *    (`gate.ts`, the only reader of held-out labels, queries counted and capped); it is admitted when its
 *    held-out score beats the incumbent's by ACCEPT_EPS and a paired test over the held-out rows' losses
 *    (row_loss.ts: the mean difference's z) clears a run-wide Bonferroni bar, so the
 *    run admits a no-effect candidate at most GATE_ALPHA of the time (gate_rule.ts). A recomputation or gate child that goes silent is stopped and
 *    the node fused (HUNG_RESTART), and the loop goes on. After the last cycle the final test scores the
 *    starting and the admitted artifact once each, then the references (`gate.ts` references): the admitted
 *    artifact refit on dev + held-out in a sandboxed child (`refit.ts`, saved as `model/`, model_dir.ts;
 *    `arrow tree predict` reads it, predict.ts), the strong default and the trivial baseline
 *    (`references.ts`); the run has its verdict, and flags when the admitted result does not beat them.
 *    The split itself is on record in `splits.json` (splits_file.ts), outside every executor's lane.
 *
 * ## Persistence
 *
 * `store.ts` (SQLite, WAL) holds every event, the state after it, the nodes, the incidents and the
 * timings, one transaction per step; `blackbox.ts` writes the projections (`tree/replay.jsonl`,
 * `incidents.jsonl`, `state.json`, `report/report.md`). `run.ts` starts a run or resumes one by folding
 * the stored events; a pending action is simply performed again, so with the library ideator a resumed run
 * ends byte for byte as an uninterrupted one.
 *
 * @module
 */
export { TREE_FILES, TreeBlackBox } from "./blackbox.ts";
export { chain, loadSteps, parseArtifact, StepError } from "./execute/harness/compose.ts";
export { LLM_LOG, type LlmUse, llmUseOf } from "./llm_use.ts";
export { type LoadSteps, PredictError, predictFile } from "./predict.ts";
export { loadData, PROTOCOL_VERSION, type TreeData } from "./data.ts";
export { MergeGate } from "./gate/gate.ts";
export { branchInsights, classify, insightOf } from "./ideate/insight.ts";
export { allIdeas, keyOf, libraryIdeas } from "./ideate/library.ts";
export { LlmIdeator, type LlmIdeatorOptions, parseReply } from "./ideate/llm_ideator.ts";
export { drive, type Ideator, LIBRARY, type TreeWorld } from "./loop.ts";
export { judge, type Judgement } from "./overwatch.ts";
export { renderTreeReport, rowsUsed, summarize, type TreeSummary } from "./report.ts";
export { reopen, resumeTree, startTree, type TreeOutcome, type TreeRunOptions } from "./run.ts";
export { chooseParent, ucb } from "./ideate/select.ts";
export { initialState } from "./grow.ts";
export { foldEvents, step, Z_GATE } from "./step.ts";
export { GATE_ALPHA } from "./gate/row_loss.ts";
export { SCREEN_FACTOR } from "./execute/screen.ts";
export { STORE_FORMAT, type Timing, TreeStore } from "./store.ts";
export type * from "./types.ts";
