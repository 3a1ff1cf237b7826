/**
 * Growing the tree: a new node (its artifact its parent's plus one change), the state before anything ran,
 * and the one place a node's status changes. Pure, like the step (step.ts) that calls them.
 *
 * @module
 */
import type {
  DatasetInfo,
  Hypothesis,
  TreeConfig,
  TreeNode,
  TreeNodeId,
  TreeState,
  TreeStatus,
} from "./types.ts";

/** The one place a tree node's status changes. */
export function mark(t: TreeNode, to: TreeStatus): void {
  t.status = to;
}

/** A node for hypothesis `h`: its artifact is its parent's plus that one change (an ensemble: its members). */
export function newNode(
  id: TreeNodeId,
  parent: TreeNode | null,
  cycle: number,
  h: Hypothesis | null,
): TreeNode {
  const artifact: TreeNode["artifact"] = !parent
    ? { steps: [], model: {} }
    : h?.members
    ? { steps: [], model: {}, members: h.members.map((m) => ({ ...m })) }
    : {
      steps: h?.step ? [...parent.artifact.steps, h.step.path] : [...parent.artifact.steps],
      // A model of another kind replaces the parent's settings whole; otherwise they are merged.
      model: h?.model.kind !== undefined ? { ...h.model } : { ...parent.artifact.model, ...(h?.model ?? {}) },
    };
  return {
    id,
    parent: parent?.id ?? null,
    depth: parent ? parent.depth + 1 : 0,
    cycle,
    hypothesis: h,
    artifact,
    status: "pending",
    attempt: 0,
    dev: null,
    claimed: null,
    heldout: null,
    gate: null,
    test: null,
    insight: null,
    lesson: null,
    children: [],
    visits: 0,
    value: 0,
    // An ensemble is a leaf: its members are expanded, never it.
    exhausted: !!h?.members,
    tally: {},
    summary: null,
    tokens: h?.tokens ?? 0,
  };
}

/** The state before anything ran: the starting artifact (no steps, default model) is dispatched. */
export function initialState(config: TreeConfig, dataset: DatasetInfo, scenario: string): TreeState {
  const root = newNode("n0", null, 0, null);
  if (config.start) {
    root.artifact = { steps: config.start.steps.map((x) => x.path), model: { ...config.start.model } };
  }
  mark(root, "running");
  root.attempt = 1;
  return {
    v: 1,
    mode: "tree",
    scenario,
    tick: 0,
    cycle: 0,
    config,
    dataset,
    nodes: { n0: root },
    order: ["n0"],
    incumbent: null,
    admitted: [],
    heldout: { used: 0, budget: config.heldoutBudget },
    pending: { a: "execute", nodes: ["n0"] },
    running: ["n0"],
    history: [],
    incidents: 0,
    verdict: null,
    final: null,
  };
}
