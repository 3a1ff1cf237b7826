/**
 * The plan file format as one schema: the loader checks against it, `schema/plan.schema.json` is generated
 * from it, and the hand-written types in `types.ts` are proven equal to it by a type-level test.
 *
 * @module
 */
import { s } from "./schema.ts";
import { sweepSchema } from "./sweep.ts";
import { EDGE_KINDS, INCIDENT_TYPES, NODE_KINDS, PROFILE_SHAPES, ROLES, RUNTIMES } from "./vocabulary.ts";

export { EDGE_KINDS, INCIDENT_TYPES, NODE_KINDS, PROFILE_SHAPES, ROLES, RUNTIMES };

/** A wall-clock duration: a number and a unit (ms, s, m, h), e.g. "500ms", "30s", "10m", "2h". */
export const DURATION_PATTERN = "^[0-9]+(\\.[0-9]+)?(ms|s|m|h)$";
const duration = (doc: string) => s.str({ pattern: DURATION_PATTERN, doc });

export const ID_PATTERN = "^[A-Za-z][A-Za-z0-9_-]{0,31}$";

export const profileSchema = s.obj(
  {
    shape: s.enum(PROFILE_SHAPES, "curve of the simulated dev metric"),
    stages: s.int({ min: 1, max: 100000, doc: "training stages in all" }),
    stages_per_tick: s.int({ min: 1, max: 1000, doc: "stages the simulated trainer runs per tick" }),
    ckpt_every: s.int({ min: 1, max: 100000, doc: "a checkpoint file every this many stages" }),
    start: s.num({ doc: "dev metric at stage 0" }),
    peak: s.num({ doc: "value the curve approaches" }),
    tau: s.num({ min: 0.001, doc: "stages to cover ~63% of the distance to peak" }),
    freeze_at: s.int({
      min: 0,
      max: 1000000,
      doc: "stage at which the trainer hangs (stops advancing), every attempt; 0 = before the first metric",
    }),
    values: s.arr(s.num(), { minItems: 1, doc: "shape curve: the dev metric at stage 1, 2, … (any shape)" }),
  },
  ["shape"],
  "simulated training curve of a mock long node",
);

export const mockSchema = s.obj(
  {
    ticks: s.int({ min: 1, max: 10000, doc: "ticks of work before a fast node claims done" }),
    tokens: s.int({ min: 0, doc: "tokens burned per tick" }),
    score: s.num({ doc: "score the node's manifest reports" }),
    profile: profileSchema,
  },
  [],
  "behaviour of the node on the mock path",
);

export const workerSchema = s.tagged("type", {
  command: s.obj(
    {
      argv: s.arr(s.str({ minLength: 1 }), {
        minItems: 1,
        doc: "program and arguments; {scope} {run} {node} expand",
      }),
      env: s.record(s.str(), { doc: "extra environment variables" }),
    },
    ["argv"],
    "any program following the file protocol",
  ),
  builtin: s.obj(
    {
      name: s.str({ minLength: 1, doc: "a built-in real worker (see `arrow run --help`)" }),
      args: s.record(s.scalar(), { doc: "arguments for the built-in worker" }),
    },
    ["name"],
    "a worker shipped with arrow",
  ),
  agent: s.obj(
    {
      prompt: s.str({ minLength: 1, doc: "task for the LLM agent" }),
      model: s.str({ doc: "model name at the OpenAI-compatible endpoint" }),
      max_steps: s.int({ min: 1, max: 1000, doc: "bash steps the agent may take" }),
    },
    ["prompt"],
    "an LLM agent in a sandboxed bash loop (live path)",
  ),
}, "how the node runs on the real or live path");

export const budgetSchema = s.obj(
  {
    ticks: s.int({ min: 1, max: 10000000, doc: "ticks the node may run per attempt" }),
    tokens: s.int({ min: 1, max: 1e15, doc: "tokens the node may burn in all" }),
    wall: duration("wall-clock time the node may run per attempt on the real path, e.g. 30m"),
  },
  [],
  "hard limits; exceeding one fuses the node",
);

export const slurmSchema = s.obj(
  {
    partition: s.str({ minLength: 1, doc: "Slurm partition" }),
    time: s.str({ minLength: 1, doc: "time limit: minutes, HH:MM:SS or D-HH:MM:SS" }),
    mem: s.str({ minLength: 1, doc: "memory, e.g. 4G" }),
    account: s.str({ minLength: 1, doc: "account to charge" }),
    gres: s.str({ minLength: 1, doc: "generic resources, e.g. gpu:1" }),
    cpus: s.int({ min: 1, max: 4096, doc: "cpus per task" }),
    qos: s.str({ minLength: 1, doc: "quality of service" }),
  },
  [],
  "Slurm batch options when resources.runtime is slurm",
);

export const nodeSchema = s.obj(
  {
    id: s.str({ pattern: ID_PATTERN, doc: "unique node id" }),
    title: s.str({ doc: "what the node does, in a few words" }),
    kind: s.enum(NODE_KINDS, "fast (cpu slot), long (gpu slot, checkpoints) or reactive (woken by streams)"),
    role: s.enum(ROLES, "what the node is for; taint spares role train"),
    scope: s.str({
      minLength: 1,
      doc: "the node's directory, relative to the run's nodes/ (default: the id)",
    }),
    mock: mockSchema,
    worker: workerSchema,
    acceptance: s.arr(s.str({ minLength: 1 }), {
      minItems: 1,
      doc: "argv whose exit code decides a completion claim; @claim and @manifest are built in",
    }),
    spawn_only: s.bool("exists only once graph surgery grows it"),
    can_spawn: s.bool("may grow spawn_only nodes it has an edge to"),
    spawn_on: s.arr(s.enum(INCIDENT_TYPES), { minItems: 1, doc: "incidents that trigger the spawn" }),
    budget: budgetSchema,
    observe_every: duration("real path: how often the node's progress is observed (default 10s)"),
    slurm: slurmSchema,
    sweep: sweepSchema,
  },
  ["id", "kind", "role"],
);

export const edgeSchema = s.obj(
  {
    from: s.str({ pattern: ID_PATTERN }),
    to: s.str({ pattern: ID_PATTERN }),
    kind: s.enum(EDGE_KINDS, "artifact gates readiness; stream never blocks; back_edge is a metered loop"),
    laps: s.int({ min: 1, doc: "lap budget of a back_edge" }),
  },
  ["from", "to", "kind"],
);

export const planSchema = s.obj(
  {
    question: s.str({ minLength: 1, doc: "the research question" }),
    protocol: s.obj(
      {
        version: s.str({ minLength: 1 }),
        metric: s.str({ minLength: 1, doc: "metric name written to metrics.jsonl and results.json" }),
        direction: s.enum(["maximize", "minimize"] as const),
        target: s.num({ doc: "pinned baseline score, if known in advance" }),
        seed: s.int({ min: 0, max: 2147483647, doc: "the run's seed, written by the protocol node" }),
        evaluate: s.arr(s.str({ minLength: 1 }), {
          minItems: 1,
          doc: "evaluator argv for @claim: prints the recomputed score; {artifact} {scope} {data} expand",
        }),
      },
      ["version", "metric", "direction"],
    ),
    resources: s.obj(
      {
        slots: s.obj(
          { gpu: s.int({ min: 0, max: 64 }), cpu: s.int({ min: 0, max: 64 }) },
          [],
          "default {gpu: 1, cpu: 3}",
        ),
        runtime: s.enum(RUNTIMES, "where long nodes run: local processes or Slurm batch jobs"),
      },
      [],
    ),
    nodes: s.arr(nodeSchema, { minItems: 1 }),
    edges: s.arr(edgeSchema),
  },
  ["question", "protocol", "nodes"],
  "An Arrow research plan",
);
