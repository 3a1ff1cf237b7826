/**
 * `arrow tree`: hypothesis-tree research on a CSV under overwatch — executors as sandboxed nodes, a held-out
 * merge gate, insights up the tree, a final test reported once — and `arrow tree --resume <run>`.
 *
 * @module
 */
import type { SlurmClient } from "../runtime/slurm/mod.ts";
import { connectCluster } from "./cluster.ts";
import { basename, resolve } from "node:path";
import { connectLlm } from "../llm/connect.ts";
import { LlmConfigError } from "../llm/errors.ts";
import { Redactor, secretValues } from "../llm/redact.ts";
import { canonicalPretty } from "../model/json.ts";
import type { Incident } from "../model/state.ts";
import { writeAtomic } from "../runtime/atomic.ts";
import { acquireLock, LockedError } from "../runtime/lock.ts";
import { Feeds } from "../server/feeds.ts";
import { CsvError, type MetricName, METRICS } from "../tabular/mod.ts";
import {
  LlmIdeator,
  resumeTree,
  SCREEN_FACTOR,
  startTree,
  summarize,
  type TreeOutcome,
} from "../tree/mod.ts";
import type { TreeEvent, TreeState } from "../tree/mod.ts";
import { loadStart, StartError } from "./tree_start.ts";
import { intFlag, parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";
import { printable } from "./escape.ts";
import { onInterrupt } from "./interrupt.ts";
import { findBwrap } from "./sandbox.ts";
import { startDashboard, untilInterrupted } from "./serve.ts";
import { exists, resolveRunDir } from "./rundir.ts";
import { checkData, delimiterFlag } from "./data_checks.ts";
import { addDataNotes, nothingToResume } from "./tree_runs.ts";
import { describe, printSummary, say, warn } from "./tree_print.ts";

export { help } from "./tree_help.ts";

const FLAGS = {
  data: { type: "string" },
  delimiter: { type: "string" },
  target: { type: "string" },
  metric: { type: "string" },
  cycles: { type: "string" },
  executors: { type: "string" },
  seed: { type: "string" },
  ideator: { type: "string" },
  model: { type: "string" },
  search: { type: "string" },
  start: { type: "string" },
  "no-insights": { type: "boolean" },
  screen: { type: "string" },
  "heldout-budget": { type: "string" },
  "gate-at": { type: "string" },
  "observe-every": { type: "string" },
  "budget-seconds": { type: "string" },
  runtime: { type: "string" },
  "runs-dir": { type: "string" },
  resume: { type: "string" },
  unsandboxed: { type: "boolean" },
  serve: { type: "boolean" },
  port: { type: "string" },
  host: { type: "string" },
  json: { type: "boolean" },
} as const;

function oneOf<T extends string>(name: string, v: unknown, allowed: readonly T[], fallback: T): T {
  if (v === undefined) return fallback;
  if (!allowed.includes(v as T)) {
    throw new UsageError(
      `arrow tree: --${name} must be one of ${allowed.join(", ")}, got "${printable(String(v))}"`,
    );
  }
  return v as T;
}

function runName(data: string): string {
  const t = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const rand = [...crypto.getRandomValues(new Uint8Array(2))].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const name = basename(data).replace(/\.csv$/i, "").replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 40) || "data";
  return `${t}-tree-${name}-${rand}`;
}

function resolveRun(arg: string, runsDir: string): string {
  let dir: string | null = null;
  try {
    dir = resolveRunDir(arg, runsDir);
  } catch {
    // said below, naming both places looked in
  }
  if (dir && exists(`${dir}/tree.db`)) return dir;
  if (dir) {
    throw new InputError(
      `arrow tree: ${printable(dir)} is a task-graph run, not a tree run; continue it with: arrow resume ${
        printable(dir)
      }`,
    );
  }
  throw new InputError(
    `arrow tree: no tree run "${printable(arg)}" (looked for ${printable(arg)}/tree.db and in ${
      printable(runsDir)
    }/)`,
  );
}

/** Flags that shape a new run; a resumed run goes on as it began, so giving one is refused, never ignored. */
const FIXED_AT_START = [
  "data",
  "delimiter",
  "start",
  "target",
  "metric",
  "cycles",
  "executors",
  "seed",
  "ideator",
  "search",
  "no-insights",
  "screen",
  "heldout-budget",
  "gate-at",
  "observe-every",
  "budget-seconds",
] as const;

async function llmIdeator(model: string | undefined, runDir: string): Promise<LlmIdeator> {
  try {
    const { client, model: chosen, settings } = connectLlm("tree", model);
    Deno.mkdirSync(`${runDir}/logs`, { recursive: true });
    const redact = new Redactor([settings.apiKey, ...secretValues(Deno.env.toObject())]);
    const log = await Deno.open(`${runDir}/logs/llm.jsonl`, { append: true, create: true });
    const enc = new TextEncoder();
    return new LlmIdeator(client, {
      model: chosen,
      runDir,
      // The prompt and the reply are logged, so a key-like string in either is redacted first.
      log: (r) => void log.write(enc.encode(JSON.stringify(redact.deep(r)) + "\n")),
    });
  } catch (e) {
    if (e instanceof LlmConfigError) throw new InputError(`arrow tree: ${e.message}`);
    throw e;
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "predict") return (await import("./tree_predict.ts")).predictMain(argv.slice(1));
  const { values } = parse("tree", argv, FLAGS, 0);
  const json = values.json === true;
  const runsDir = resolve((values["runs-dir"] as string | undefined) ?? "runs");
  const resume = values.resume as string | undefined;
  const serve = values.serve === true;
  if (!serve && (values.port || values.host)) {
    throw new UsageError("arrow tree: --port and --host need --serve");
  }
  const port = intFlag("tree", "port", values.port, 0, 8765, 65535);
  const fixed = FIXED_AT_START.filter((f) => values[f] !== undefined);
  if (resume && fixed.length) {
    throw new UsageError(
      `arrow tree: --resume continues a run with the settings it began with (its --cycles budget included); ` +
        `cannot change ${fixed.map((f) => `--${f}`).join(", ")}`,
    );
  }
  let start;
  try {
    start = loadStart(values.start as string | undefined);
  } catch (e) {
    if (e instanceof StartError) throw new InputError(`arrow tree: ${e.message}`);
    throw e;
  }
  if (!resume && !values.data) {
    throw new UsageError("arrow tree: missing --data <file.csv> (see arrow tree --help)");
  }
  if (!resume && !values.target) {
    throw new UsageError("arrow tree: missing --target <column> (see arrow tree --help)");
  }
  const metric = values.metric === undefined
    ? undefined
    : oneOf("metric", values.metric, Object.keys(METRICS) as MetricName[], "accuracy");
  const cycles = intFlag("tree", "cycles", values.cycles, 1, 10, 10_000);
  const executors = intFlag("tree", "executors", values.executors, 1, 2, 64);
  const screen = intFlag("tree", "screen", values.screen, 1, SCREEN_FACTOR, 16);
  const seed = intFlag("tree", "seed", values.seed, 0, 0, 2 ** 31 - 1);
  const ideator = oneOf("ideator", values.ideator, ["library", "llm"] as const, "library");
  const search = oneOf("search", values.search, ["tree", "random", "greedy"] as const, "tree");
  const observe = intFlag("tree", "observe-every", values["observe-every"], 1, 10, 3600);
  const budget = intFlag("tree", "budget-seconds", values["budget-seconds"], 1, 600, 86_400);
  const gateAt = oneOf("gate-at", values["gate-at"], ["cycle", "end"] as const, "end");
  const heldoutBudget = values["heldout-budget"] === undefined
    ? undefined
    : intFlag("tree", "heldout-budget", values["heldout-budget"], 1, cycles + 1, 100_000);
  if (values.model && ideator !== "llm" && !resume) {
    throw new UsageError("arrow tree: --model needs --ideator llm");
  }

  const runtime = oneOf("runtime", values.runtime, ["local", "slurm"] as const, "local");
  const bwrap = await findBwrap();
  const runDir = resume ? resolveRun(resume, runsDir) : `${runsDir}/${runName(values.data as string)}`;
  const usesLlm = resume ? readIdeator(runDir) === "llm" : ideator === "llm";
  if (usesLlm && !bwrap && values.unsandboxed !== true) {
    throw new InputError(
      "arrow tree: LLM-written code needs bubblewrap to run sandboxed (apt-get install bubblewrap), or pass --unsandboxed to run it under Deno's permissions alone",
    );
  }
  if (!bwrap && !json) {
    warn("note: bubblewrap is not available; executors run under Deno's permissions alone");
  }
  // The file is read and checked before the run directory exists, so bad data leaves nothing behind.
  const delimiter = delimiterFlag("tree", values.delimiter);
  const checked = resume
    ? null
    : checkData("tree", values.data as string, values.target as string, { delimiter });
  if (checked && !json) {
    for (const n of checked.notes) warn(`note: ${n}`);
    for (const w of checked.warnings) warn(`warning: ${w}`);
  }
  // The cluster is asked before the run directory exists too: one that does not answer leaves nothing.
  const slurm: SlurmClient | null = runtime === "slurm" ? await connectCluster("arrow tree", [], 250) : null;
  Deno.mkdirSync(runDir, { recursive: true });
  let lock;
  try {
    lock = acquireLock(runDir);
  } catch (e) {
    await slurm?.close();
    if (e instanceof LockedError) throw new InputError(`arrow tree: ${e.message}`);
    throw e;
  }
  if (resume && nothingToResume(runDir, json)) {
    lock.release();
    return 0;
  }
  const id = basename(runDir);
  const feeds = new Feeds();
  const feed = serve ? feeds.pin(`tree:${id}`, `${runDir}/tree`) : null;
  const served = serve
    ? startDashboard({
      runsDir: Deno.realPathSync(runsDir),
      port,
      host: values.host as string | undefined,
      feeds,
    }, "tree")
    : null;
  if (served) {
    const link = new URL(served.url);
    link.searchParams.set("run", id);
    link.searchParams.set("view", "tree");
    (json ? warn : say)(`dashboard: ${printable(link.href)}`);
  }
  using interrupt = onInterrupt();
  const t0 = performance.now();
  const meta = { run_id: id, mode: "tree", started_at: new Date().toISOString(), pid: Deno.pid, argv };
  const onStep = (s: TreeState, ev: TreeEvent, incidents: Incident[]) => {
    feed?.poke();
    if (!json) { for (const line of describe(s, ev, incidents)) say(line); }
  };
  let out: TreeOutcome;
  try {
    const llm = usesLlm ? await llmIdeator(values.model as string | undefined, runDir) : undefined;
    const common = { runsDir, bwrap, llm, signal: interrupt.signal, onStep, slurm };
    if (resume) {
      if (!json) say(`arrow tree --resume → ${printable(runDir)}`);
      out = await resumeTree(runDir, common);
    } else {
      writeAtomic(
        `${runDir}/run.json`,
        canonicalPretty({
          ...meta,
          scenario: `tree:${basename(values.data as string)}`,
          data_notes: [...checked?.notes ?? [], ...checked?.warnings ?? []],
        }),
      );
      if (!json) say(`arrow tree ${printable(values.data as string)} → ${printable(runDir)}`);
      out = await startTree({
        ...common,
        runDir,
        data: resolve(values.data as string),
        target: values.target as string,
        delimiter,
        metric,
        cycles,
        executors,
        seed,
        ideator,
        search,
        insights: values["no-insights"] !== true,
        screen,
        start,
        heldoutBudget,
        ...(gateAt === "end" ? { gateAt } : {}),
        observeMs: observe * 1000,
        wallMs: budget * 1000,
      });
    }
  } catch (e) {
    const input = e instanceof CsvError || e instanceof RangeError ||
      (e instanceof TypeError && /^Cannot /.test(e.message));
    if (!input) throw e;
    // Bad input found before the first step: leave no half-made run directory behind.
    if (!resume) Deno.removeSync(runDir, { recursive: true });
    throw new InputError(`arrow tree: ${e.message}`);
  } finally {
    await slurm?.close();
    lock.release();
  }
  const wall = Math.round(performance.now() - t0);
  writeAtomic(
    `${runDir}/run.json`,
    canonicalPretty({
      ...readMeta(runDir),
      ...(resume ? { resumed_at: meta.started_at } : {}),
      finished_at: new Date().toISOString(),
      wall_ms: wall,
      verdict: out.state.verdict,
      ticks: out.state.tick,
    }),
  );
  addDataNotes(runDir);
  if (out.state.pending !== null) {
    warn(
      `arrow tree: interrupted at step ${out.state.tick}; continue with: arrow tree --resume ${
        printable(runDir)
      }`,
    );
    await served?.close();
    return 130;
  }
  const summary = summarize(out.state, runDir, out.incidents);
  if (json) say(JSON.stringify(summary));
  else printSummary(out.state, summary, wall);
  if (served) {
    const interrupted = untilInterrupted();
    (json ? warn : say)("dashboard: still serving this run; Ctrl-C to stop");
    await interrupted;
    await served.close();
  }
  return 0;
}

function readMeta(runDir: string): Record<string, unknown> {
  try {
    return JSON.parse(Deno.readTextFileSync(`${runDir}/run.json`)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function readIdeator(runDir: string): string | null {
  try {
    const s = JSON.parse(Deno.readTextFileSync(`${runDir}/state.json`)) as TreeState;
    return s.config?.ideator ?? null;
  } catch {
    return null;
  }
}
