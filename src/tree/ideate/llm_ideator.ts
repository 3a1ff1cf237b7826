/**
 * The LLM ideator: asks an OpenAI-compatible model (src/llm) for one hypothesis at a time — a sentence and a
 * complete step module — given the data's description (dev rows only), what the parent's artifact already
 * does, what the branch has learned (insights), and what was already tried under the parent. The reply is
 * untrusted: parsed bounded, its module capped in size, its one permitted import (`"tabular"`) rewritten
 * to the toolkit's path; anything else it imports is the sandbox's business. A reply that cannot be used
 * becomes a failed-informative node saying why; code that fails or hangs fails in its executor like any.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { ColumnEvidence } from "./evidence.ts";
import type { Chat } from "../../llm/client.ts";
import { LlmError } from "../../llm/errors.ts";
import type { ChatMessage } from "../../llm/types.ts";
import { parseBounded } from "../../runtime/bounded_json.ts";
import { branchInsights } from "./insight.ts";
import { devSample } from "../data.ts";
import type { Ideator } from "../loop.ts";
import { type GbdtParams, gbdtParams, linearParams } from "../../tabular/mod.ts";
import type { ArtifactModel, Family, Hypothesis, TreeNode, TreeState } from "../types.ts";
import { LLM_FAMILIES } from "./families.ts";

export const MAX_MODULE = 32 * 1024;
/** The model settings an LLM may change (the seed stays Arrow's, so a change is never a reseed). */
const MODEL_KEYS = [
  "stages",
  "learningRate",
  "maxDepth",
  "minSamplesLeaf",
  "subsample",
  "l2",
  "minChildWeight",
  "maxBins",
  "colsample",
  "validationFraction",
  "earlyStoppingRounds",
] as const;
/** Most hypotheses one reply may carry. */
const MAX_PER_REPLY = 8;
const MAX_REPLY = 256 * 1024;
/** What an LLM may name (families.ts): the feature families; model moves and ensembles are Arrow's own. */
const FAMILIES = LLM_FAMILIES;

export const SYSTEM_PROMPT = [
  "You are the ideator of Arrow's tree mode: you propose ONE feature-engineering hypothesis for a fixed",
  "gradient-boosted tree model on a tabular dataset, as a TypeScript step module. Reply with one JSON object",
  '(optionally in a ```json fence): {"hypothesis": "<one sentence>", "family": "<one of ' +
  FAMILIES.join(", ") +
  ', or llm>", "columns": ["<input columns used>"], "module": "<the complete TypeScript source>"}.',
  'The module must import nothing but types or helpers from the specifier "tabular", e.g.',
  'import type { FeatureTransform, Row } from "tabular"; and end with `export default step;` where',
  "step: FeatureTransform<S> = { fit(trainRows) { return state; }, transform(state, rows) { return rows.map(...) } }.",
  "Rows are objects of column name → number | string | boolean | null (null = missing). fit sees training",
  "rows WITH the target column; transform sees rows WITHOUT it and must return one row per input, in order.",
  "Learn everything (means, edges, counts) in fit from the training rows only. No file, network or clock access:",
  "the module runs in a sandbox that allows none.",
  'Instead of a module you may change the model: {"hypothesis": "<one sentence>", "model": {<settings>}} with',
  "GBDT settings among " + MODEL_KEYS.join(", ") + " (they replace the parent's one by one), or",
  '{"kind": "linear", "alpha": <L2 strength ≥ 0>} for a regularised linear model on the encoded features',
  '(add "tune": <inner folds, 2–10> to have the strength chosen by cross-validation on the training rows).',
  'You may propose several at once: {"hypotheses": [<one object as above>, ...]}.',
].join("\n");

export interface LlmIdeatorOptions {
  model: string;
  /** The run directory, whose dev rows (data/dev.csv) give the prompt its sample rows (data.ts devSample). */
  runDir?: string;
  temperature?: number;
  maxTokens?: number;
  /** Receives each call's prompt and reply (bounded) for the run's log. */
  log?: (
    record: {
      parent: string;
      prompt: string;
      reply: string;
      tokens: number;
      /** What the API reported the call cost, null when it did not. */
      cost: number | null;
      problem: string | null;
    },
  ) => void;
}

function pathOf(s: TreeState, n: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  for (let at: TreeNode | undefined = n; at; at = at.parent ? s.nodes[at.parent] : undefined) out.unshift(at);
  return out;
}

/** What the parent relies on: its columns' permutation importances, strongest first (at most 12, and every
 * column whose shuffling lowered the loss among them). */
function importanceLines(imp: Record<string, number> | undefined): string[] {
  if (!imp) return [];
  const all = Object.entries(imp).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = [...all.slice(0, 12), ...all.slice(12).filter(([, v]) => v < 0).slice(-4)];
  return [
    "What the parent relies on (permutation importance on its dev folds' validation rows: how much the mean " +
    "per-row loss rises when the column is shuffled; negative: shuffling it helped, so it is noise there):",
    ...shown.map(([c, v]) => `- ${JSON.stringify(c)}: ${v >= 0 ? "+" : ""}${v.toPrecision(3)}`),
  ];
}

/** The user message: the data, the parent's artifact, the branch's lessons, and what not to repeat. */
export function userPrompt(
  s: TreeState,
  parent: string,
  extra: string[],
  evidence: readonly ColumnEvidence[] | null = null,
  samples: readonly string[] = [],
): string {
  const d = s.dataset;
  const p = s.nodes[parent]!;
  const cols = d.columns.filter((c) => c.name !== d.target).slice(0, 200).map((c) =>
    `- ${JSON.stringify(c.name)}: ${c.kind}, ${c.distinct} distinct, ${c.missing} missing of ${d.dev}`
  );
  const done = pathOf(s, p).flatMap((n) => (n.hypothesis ? [`- ${n.hypothesis.text}`] : []));
  const learned = s.config.insights
    ? branchInsights(s.nodes, parent).slice(-20).map((l) => `- ${l.insight.sentence}`)
    : [];
  const tried = [...p.children.map((c) => s.nodes[c]!.hypothesis?.text ?? ""), ...extra].filter(Boolean);
  // A yes/no target keeps the file's words as its classes, but rows carry it as a boolean.
  const yesNo = d.columns.find((c) => c.name === d.target)?.kind === "boolean"
    ? ` — rows carry it as a boolean, true for ${JSON.stringify(d.classes[1])}`
    : "";
  return [
    `Target ${JSON.stringify(d.target)} (${d.task}${
      d.classes.length ? `: ${d.classes.slice(0, 20).join(", ")}` : ""
    }${yesNo}); ` +
    `metric ${s.config.metric} (${s.config.direction}); ${d.dev} dev rows in ${d.folds} folds.`,
    "Columns:",
    ...cols,
    ...(samples.length > 1
      ? [`The first ${samples.length - 1} dev rows (CSV, header first):`, ...samples.map((l) => `    ${l}`)]
      : []),
    "The parent artifact already applies, in order:",
    ...(done.length ? done : ["- nothing (the raw columns)"]),
    `The parent's model: ${JSON.stringify(p.artifact.model)} (empty: the toolkit's default GBDT).`,
    ...importanceLines(p.importance),
    ...(evidence?.length
      ? [
        "Where the parent errs (its out-of-fold dev residuals by column: the share of their variance the " +
        "column's levels or quantile bins still explain, and the group with the largest mean residual):",
        ...evidence.slice(0, 8).map((e) =>
          `- ${JSON.stringify(e.column)}: ${(100 * e.explained).toFixed(1)} % over ${e.groups} groups` +
          (e.worst
            ? `; worst ${JSON.stringify(e.worst.group)} (mean ${e.worst.mean.toFixed(3)}, ${e.worst.n} rows)`
            : "")
        ),
      ]
      : []),
    ...(learned.length ? ["What this branch has learned:", ...learned] : []),
    ...(tried.length ? ["Already tried here (propose something else):", ...tried.map((t) => `- ${t}`)] : []),
    "Propose one new hypothesis that refines the parent.",
  ].join("\n").slice(0, 24_000);
}

/** The JSON object of a reply, or why there is none. */
function replyObject(
  reply: string,
): { ok: true; o: Record<string, unknown> } | { ok: false; problem: string } {
  const text = reply.slice(0, MAX_REPLY);
  const start = text.indexOf("{"), end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return { ok: false, problem: "the reply held no JSON object" };
  const r = parseBounded(text.slice(start, end + 1), { maxBytes: MAX_REPLY, maxDepth: 8 });
  if (!r.ok) return { ok: false, problem: `the reply's JSON could not be read: ${r.error}` };
  const o = r.value as Record<string, unknown>;
  if (typeof o !== "object" || o === null || Array.isArray(o)) {
    return { ok: false, problem: "the reply is not a JSON object" };
  }
  return { ok: true, o };
}

/** A usable hypothesis from a reply, or why the reply cannot be used. */
export function parseReply(
  s: TreeState,
  parent: TreeNode,
  reply: string,
  tokens: number,
): { ok: true; hypothesis: Hypothesis } | { ok: false; problem: string } {
  const r = replyObject(reply);
  return r.ok ? hypothesisOf(s, parent, r.o, tokens) : r;
}

/**
 * Every usable hypothesis of a reply — one object, or `{"hypotheses": [...]}` (at most MAX_PER_REPLY) — and
 * why the others cannot be used. The call's tokens go to the first.
 */
export function parseReplies(
  s: TreeState,
  parent: TreeNode,
  reply: string,
  tokens: number,
): { hypotheses: Hypothesis[]; problems: string[] } {
  const r = replyObject(reply);
  if (!r.ok) return { hypotheses: [], problems: [r.problem] };
  const list = Array.isArray(r.o.hypotheses) ? r.o.hypotheses.slice(0, MAX_PER_REPLY) : [r.o];
  if (!list.length) return { hypotheses: [], problems: ["the reply's hypotheses list is empty"] };
  const hypotheses: Hypothesis[] = [], problems: string[] = [];
  list.forEach((item, i) => {
    const one = item && typeof item === "object" && !Array.isArray(item)
      ? hypothesisOf(s, parent, item as Record<string, unknown>, hypotheses.length ? 0 : tokens)
      : { ok: false as const, problem: "a listed hypothesis is not a JSON object" };
    if (one.ok) hypotheses.push(one.hypothesis);
    else problems.push(list.length > 1 ? `hypothesis ${i + 1}: ${one.problem}` : one.problem);
  });
  return { hypotheses, problems };
}

/** A model change an LLM proposed, checked like any artifact's settings, or why it cannot be used. */
function modelOf(
  parent: TreeNode,
  m: unknown,
): { ok: true; model: ArtifactModel } | { ok: false; problem: string } {
  if (!m || typeof m !== "object" || Array.isArray(m)) {
    return { ok: false, problem: "the model is not an object" };
  }
  const o = m as Record<string, unknown>;
  try {
    if (o.kind === "linear") {
      const extra = Object.keys(o).filter((k) => k !== "kind" && k !== "alpha" && k !== "tune");
      if (extra.length) {
        return { ok: false, problem: `a linear model has only alpha and tune, not ${extra.join(", ")}` };
      }
      const asked = { alpha: o.alpha as number, ...(o.tune !== undefined ? { tune: o.tune as number } : {}) };
      return { ok: true, model: { kind: "linear", ...linearParams(asked) } };
    }
    const keys = Object.keys(o).filter((k) => k !== "kind");
    const bad = keys.filter((k) => !(MODEL_KEYS as readonly string[]).includes(k));
    if (bad.length) return { ok: false, problem: `the model has no setting ${bad.join(", ")}` };
    if (!keys.length) return { ok: false, problem: "the model changes nothing" };
    const change = Object.fromEntries(keys.map((k) => [k, o[k]])) as Partial<GbdtParams>;
    const fromLinear = parent.artifact.model.kind === "linear";
    const base: Partial<GbdtParams> = fromLinear ? {} : { ...parent.artifact.model };
    delete (base as ArtifactModel).kind;
    delete (base as ArtifactModel).alpha;
    delete (base as ArtifactModel).tune;
    gbdtParams({ ...base, ...change }); // throws, naming the bad value
    return { ok: true, model: fromLinear || o.kind === "gbdt" ? { kind: "gbdt", ...change } : change };
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, problem: e.message };
    throw e;
  }
}

function hypothesisOf(
  s: TreeState,
  parent: TreeNode,
  o: Record<string, unknown>,
  tokens: number,
): { ok: true; hypothesis: Hypothesis } | { ok: false; problem: string } {
  if (typeof o.hypothesis !== "string" || !o.hypothesis.trim()) {
    return { ok: false, problem: "the reply has no hypothesis" };
  }
  const text = o.hypothesis.replace(/\s+/g, " ").trim().slice(0, 500);
  if (o.model !== undefined && o.module === undefined) {
    const m = modelOf(parent, o.model);
    if (!m.ok) return m;
    const canon = JSON.stringify(
      Object.keys(m.model).sort().map((k) => [k, (m.model as Record<string, unknown>)[k]]),
    );
    return {
      ok: true,
      hypothesis: {
        key: `llm-model:${createHash("sha256").update(canon).digest("hex").slice(0, 16)}`,
        family: m.model.kind === "linear" ? "linear_model" : "capacity",
        columns: [],
        params: {},
        text,
        step: null,
        model: m.model,
        source: "llm",
        tokens,
      },
    };
  }
  if (typeof o.module !== "string" || !o.module.trim()) {
    return { ok: false, problem: "the reply has no module" };
  }
  if (o.module.length > MAX_MODULE) {
    return { ok: false, problem: `the module is over ${MAX_MODULE} characters` };
  }
  if (!/export\s+default\b/.test(o.module)) return { ok: false, problem: "the module has no default export" };
  const family = FAMILIES.includes(o.family as Family) ? o.family as Family : "llm";
  const names = new Set(s.dataset.columns.map((c) => c.name));
  const columns = Array.isArray(o.columns)
    ? [...new Set(o.columns.filter((c): c is string => typeof c === "string" && names.has(c)))].slice(0, 8)
    : [];
  const source = o.module.replace(
    /(from\s*|import\s*\(\s*)(["'])tabular\2/g,
    (_m, pre: string, q: string) => `${pre}${q}${s.config.toolkit}${q}`,
  );
  const key = `llm:${createHash("sha256").update(source).digest("hex").slice(0, 16)}`;
  return {
    ok: true,
    hypothesis: {
      key,
      family,
      columns,
      params: {},
      text,
      step: { path: `steps/${String(parent.depth + 1).padStart(3, "0")}_llm.ts`, source },
      model: {},
      source: "llm",
      tokens,
    },
  };
}

export class LlmIdeator implements Ideator {
  #samples: string[] | null = null;
  constructor(readonly chat: Chat, readonly opts: LlmIdeatorOptions) {}

  async ideas(
    s: TreeState,
    parent: string,
    n: number,
    _seed?: number,
    evidence?: ColumnEvidence[] | null,
  ): Promise<{ hypotheses: Hypothesis[]; problems: string[]; tokens: number }> {
    const p = s.nodes[parent];
    if (!p) return { hypotheses: [], problems: [], tokens: 0 };
    const hypotheses: Hypothesis[] = [];
    const problems: string[] = [];
    let total = 0;
    this.#samples ??= this.opts.runDir ? devSample(this.opts.runDir) : [];
    for (let i = 0; i < n && hypotheses.length < n; i++) {
      const prompt = userPrompt(s, parent, hypotheses.map((h) => h.text), evidence ?? null, this.#samples);
      const messages: ChatMessage[] = [{ role: "system", content: SYSTEM_PROMPT }, {
        role: "user",
        content: prompt,
      }];
      let reply = "", tokens = 0, cost: number | null = null, problem: string | null = null;
      try {
        const res = await this.chat.chat({
          model: this.opts.model,
          messages,
          temperature: this.opts.temperature ?? 0,
          max_tokens: this.opts.maxTokens ?? 4000,
        });
        reply = res.content;
        tokens = res.usage?.total_tokens ?? 0;
        cost = res.usage?.cost ?? null;
        const parsed = parseReplies(s, p, reply, tokens);
        for (const h of parsed.hypotheses) {
          if (hypotheses.length < n && !hypotheses.some((x) => x.key === h.key)) hypotheses.push(h);
        }
        if (parsed.problems.length) problem = parsed.problems.join("; ");
      } catch (e) {
        if (!(e instanceof LlmError)) throw e;
        problem = `the LLM call failed: ${e.message.slice(0, 300)}`;
      }
      total += tokens;
      if (problem) problems.push(problem);
      this.opts.log?.({
        parent,
        prompt: prompt.slice(0, 4000),
        reply: reply.slice(0, 16_000),
        tokens,
        cost,
        problem,
      });
    }
    return { hypotheses, problems, tokens: total };
  }
}
