/**
 * Mock behaviours of fast and reactive nodes by role. Deterministic: a node's files are a function of its
 * config, its inputs and the tick, so two runs of a scenario produce the same bytes.
 *
 * @module
 */
import type { WorkerConfig } from "../lib/config.ts";
import { type Fault, faultsOf } from "../lib/config.ts";
import { fired } from "../lib/fired.ts";
import { readJson, type ScopeWriter, sha256 } from "../lib/files.ts";
import { ACCEPT_EPS, improves } from "../../thresholds.ts";
import type { StreamEvent, TickMsg, TickResult } from "../lib/protocol.ts";
import { mulberry32 } from "../../tabular/prng.ts";

type Manifest = Record<string, unknown>;
const TUPLE = ["data_hash", "split_hash", "protocol_version", "seed"] as const;

/** The tuple fields this node inherits from its inputs (sorted by id; the first to carry a field wins). */
export function inherited(cfg: WorkerConfig): Manifest {
  const out: Manifest = {};
  for (const id of Object.keys(cfg.inputs).sort()) {
    const m = readJson<Manifest>(`${cfg.inputs[id]!.scope}/results.json`) ?? {};
    for (const f of TUPLE) if (out[f] === undefined && m[f] !== undefined) out[f] = m[f];
  }
  return out;
}

export async function manifestBase(cfg: WorkerConfig, ticks: number, dry = false): Promise<Manifest> {
  const over = faultsOf(cfg, "manifest_override", true);
  for (const f of over) fired(cfg, f, dry);
  const overrides = over.reduce<Manifest>((acc, f) => ({ ...acc, ...(f.set as Manifest) }), {});
  return {
    node: cfg.node,
    metric: cfg.protocol.metric,
    ...inherited(cfg),
    code_sha: (await sha256(`mock:${cfg.role}:${JSON.stringify(cfg.mock)}`)).slice(0, 12),
    wall_s: ticks,
    ...overrides,
  };
}

function inputOf(cfg: WorkerConfig, role: string): { id: string; m: Manifest } | undefined {
  for (const id of Object.keys(cfg.inputs).sort()) {
    if (cfg.inputs[id]!.role !== role) continue;
    const m = readJson<Manifest>(`${cfg.inputs[id]!.scope}/results.json`);
    if (m) return { id, m };
  }
  return undefined;
}

/** Writes the role's outputs and manifest; returns the manifest written. */
async function produce(cfg: WorkerConfig, out: ScopeWriter, ticks: number): Promise<void> {
  const base = await manifestBase(cfg, ticks, out.dry);
  switch (cfg.role) {
    case "protocol": {
      const seed = Number(cfg.protocol.seed ?? cfg.args.seed ?? 7);
      out.json("protocol.json", { ...cfg.protocol, seed });
      out.json("results.json", {
        ...base,
        protocol_version: cfg.protocol.version,
        seed,
        artifact: "protocol.json",
      });
      return;
    }
    case "data": {
      const seed = Number(base.seed ?? 7);
      const rand = mulberry32(seed);
      const rows = ["x1,x2,x3,x4,x5,x6,x7,y"];
      for (let i = 0; i < 400; i++) {
        const x = Array.from({ length: 7 }, () => Math.round((rand() * 2 - 1) * 1e4) / 1e4);
        const y = Math.sin(3 * x[0]!) + x[1]! * x[2]! + 0.5 * x[3]! + 0.3 * (rand() - 0.5);
        rows.push([...x, Math.round(y * 1e4) / 1e4].join(","));
      }
      const csv = rows.join("\n") + "\n";
      const split = { train: [0, 240], dev: [240, 320], test: [320, 400], seed };
      out.write("data.csv", csv);
      out.json("split.json", split);
      out.json("results.json", {
        ...base,
        data_hash: await sha256(csv),
        split_hash: await sha256(JSON.stringify(split)),
        artifact: "data.csv",
      });
      return;
    }
    case "harness": {
      const frozen = Object.fromEntries(TUPLE.map((f) => [f, base[f]]));
      out.json("harness.json", { frozen, metric: cfg.protocol.metric, direction: cfg.protocol.direction });
      out.json("results.json", { ...base, artifact: "harness.json" });
      return;
    }
    case "baseline": {
      const score = cfg.mock.score ?? 0.6041;
      out.json("model.json", { kind: "mock", node: cfg.node, model: "ols", score });
      out.json("results.json", { ...base, score: claimed(cfg, out) ?? score, artifact: "model.json" });
      return;
    }
    case "analysis": {
      const baseline = inputOf(cfg, "baseline");
      const method = inputOf(cfg, "eval") ?? inputOf(cfg, "train");
      const b = baseline?.m.score as number | undefined;
      const s = method?.m.score as number | undefined;
      const delta = b !== undefined && s !== undefined ? Math.round((s - b) * 1e6) / 1e6 : null;
      // The verdict's own rule: better by at least ACCEPT_EPS.
      const beats = b !== undefined && s !== undefined && improves(b, s, ACCEPT_EPS, cfg.protocol.direction);
      out.json("analysis.json", {
        baseline: baseline?.id ?? null,
        baseline_score: b,
        method: method?.id,
        method_score: s,
        delta,
        beats,
      });
      out.json("results.json", { ...base, artifact: "analysis.json" });
      return;
    }
    default: {
      const inputs = Object.keys(cfg.inputs).sort();
      out.write(`${cfg.role}.md`, `# ${cfg.node} (${cfg.role})\n\nInputs: ${inputs.join(", ") || "none"}\n`);
      const score = claimed(cfg, out) ?? cfg.mock.score;
      out.json("results.json", { ...base, ...(score !== undefined ? { score } : {}) });
    }
  }
}

/** The false_claim fault: the score this lap claims instead of the real one, if any. */
export function claimed(cfg: WorkerConfig, out: ScopeWriter): number | undefined {
  const f = faultsOf(cfg, "false_claim", true).at(-1);
  const c = (f?.claims as number[] | undefined)?.[cfg.lap - 1];
  if (f && c !== undefined) fired(cfg, f, out.dry);
  return c;
}

/** What the stall and crash faults make of this local step: stay silent, die, or carry on. */
export function disturbance(cfg: WorkerConfig, out: ScopeWriter, step: number): "stall" | "go" {
  const crash = faultsOf(cfg, "crash")[0];
  if (crash && !out.dry && step >= (crash.at_step as number)) {
    fired(cfg, crash);
    Deno.exit((crash.exit as number | undefined) ?? 1);
  }
  const st = faultsOf(cfg, "stall")[0];
  if (!st || step < (st.at_step as number)) return "go";
  const ticks = st.ticks as number | undefined;
  stalled.set(st, (stalled.get(st) ?? 0) + 1);
  if (ticks !== undefined && stalled.get(st)! > ticks) return "go";
  fired(cfg, st, out.dry);
  return "stall";
}

const stalled = new Map<Fault, number>();

/**
 * The out_of_scope_write fault: on its tick, try to write outside the scope and swallow the refusal, as a
 * careless agent would (the sandbox layers are what the overwatch reads). Never during a fast-forward.
 */
export function strayWrite(cfg: WorkerConfig, out: ScopeWriter, local: number): void {
  const escape = faultsOf(cfg, "out_of_scope_write")[0];
  if (!escape || out.dry || local !== ((escape.at_tick as number | undefined) ?? 1)) return;
  fired(cfg, escape);
  const path = String(escape.path);
  try {
    Deno.writeTextFileSync(path.startsWith("/") ? path : `${cfg.nodes}/${path}`, `written by ${cfg.node}\n`);
  } catch {
    // refused by the sandbox, on purpose ignored
  }
}

/** A fast node: `ticks` ticks of work, unless a fault keeps it busy, then outputs and a completion claim. */
export function fast(cfg: WorkerConfig, out: ScopeWriter) {
  const ticks = cfg.mock.ticks ?? 1;
  const tokens = cfg.mock.tokens ?? 120;
  const frozen = faultsOf(cfg, "frozen_scope")[0];
  const flip = faultsOf(cfg, "flip_flop")[0];
  let local = 0;
  let worked = 0;
  return async (): Promise<TickResult> => {
    local++;
    strayWrite(cfg, out, local);
    if (disturbance(cfg, out, local) === "stall") return { tokens: 0, done: false };
    if (frozen) {
      fired(cfg, frozen, out.dry);
      return { tokens, done: false };
    }
    if (flip) {
      fired(cfg, flip, out.dry);
      out.write(
        "draft.md",
        local % 2 ? "# Conclusion\n\nThe method wins.\n" : "# Conclusion\n\nThe baseline wins.\n",
      );
      return { tokens, done: false };
    }
    worked++;
    if (worked < ticks) {
      out.append("work.log", `tick ${worked}: working\n`);
      return { tokens, done: false };
    }
    await produce(cfg, out, ticks);
    return { tokens, done: true };
  };
}

/** A reactive checkpoint evaluator: scores each checkpoint it is handed; on finish, claims the best. */
export function reactive(cfg: WorkerConfig, out: ScopeWriter) {
  const better = (a: number, b: number) => (cfg.protocol.direction === "maximize" ? a > b : a < b);
  let best: { score: number; from: string; step: number } | null = null;
  let seen = 0;
  const take = (ev: StreamEvent) => {
    const src = cfg.sources[ev.from];
    const ck = src ? readJson<{ dev?: number }>(`${src.scope}/${ev.file}`) : undefined;
    seen++;
    if (typeof ck?.dev !== "number") {
      out.append(
        "evals.jsonl",
        JSON.stringify({ from: ev.from, step: ev.step, file: ev.file, error: "unreadable" }) + "\n",
      );
      return;
    }
    if (!best || better(ck.dev, best.score)) best = { score: ck.dev, from: ev.from, step: ev.step };
    out.append(
      "evals.jsonl",
      JSON.stringify({ from: ev.from, step: ev.step, file: ev.file, score: ck.dev }) + "\n",
    );
  };
  const dry = out.dry;
  out.dry = true;
  for (const ev of cfg.delivered) take(ev);
  out.dry = dry;
  let local = 0;
  const queued: StreamEvent[] = [];
  return async (msg: TickMsg): Promise<TickResult> => {
    local++;
    strayWrite(cfg, out, local);
    queued.push(...msg.events);
    if (disturbance(cfg, out, local) === "stall") return { tokens: 0, done: false };
    const evs = queued.splice(0, queued.length);
    for (const ev of evs) take(ev);
    if (!msg.finish) return { tokens: 40 * evs.length, done: false };
    const b = best as { score: number; from: string; step: number } | null;
    const score = claimed(cfg, out) ?? b?.score;
    out.json("results.json", {
      ...(await manifestBase(cfg, seen, out.dry)),
      ...(score !== undefined ? { score } : {}),
      ...(b ? { best_from: b.from, best_step: b.step } : {}),
      artifact: "evals.jsonl",
    });
    return { tokens: 0, done: true };
  };
}
