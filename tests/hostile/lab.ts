/**
 * A laboratory for one hostile campaign (a temporary base with arrow's working directory, a fake HOME with
 * a planted ~/.ssh key, a place outside every scope, one runs directory per run), and what is read back
 * from a run: its state, its incidents, its scope record, and whether arrow survived.
 *
 * @module
 */
import { denoDir, fileSize, type Mode, RSS_LIMIT_KB, watchArrow, type Watched } from "../helpers/hostile.ts";

/** Text planted where a worker must not read it: in a fake ~/.ssh and in another run of the same runs dir. */
export const CANARY = { ssh: "HOSTILE-CANARY-SSH-KEY", otherRun: "HOSTILE-CANARY-OTHER-RUN" } as const;

export interface Incident {
  tick: number;
  type: string;
  node: string;
  ladder: string;
  evidence: Record<string, unknown>;
}

export interface Outcome {
  w: Watched;
  /** The run directory ("" when arrow never made one). */
  dir: string;
  state: RunStateLite | null;
  incidents: Incident[];
}

/** The parts of state.json the assertions read. */
export interface RunStateLite {
  verdict: string | null;
  tick: number;
  nodes: Record<string, { status: string; cause: string | null; best: number | null; ckpts: unknown[] }>;
}

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(Deno.readTextFileSync(path)) as T;
  } catch {
    return null;
  }
}

/**
 * A laboratory for one test: a temporary base holding arrow's working directory, a fake HOME with a
 * planted ~/.ssh key, an `outside` directory for files a worker links to, and one runs directory per run
 * (each with an older run beside it, holding a canary). Removed on dispose unless ARROW_KEEP_RUNS=1.
 */
export class Lab {
  readonly cwd: string;
  readonly home: string;
  readonly outside: string;
  #n = 0;

  constructor(readonly base: string) {
    this.cwd = `${base}/cwd`;
    this.home = `${base}/home`;
    this.outside = `${base}/outside`;
    for (const d of [this.cwd, `${this.home}/.ssh`, this.outside]) Deno.mkdirSync(d, { recursive: true });
    Deno.writeTextFileSync(`${this.home}/.ssh/id_rsa`, `${CANARY.ssh}\n`);
  }

  static open(label: string): Lab {
    return new Lab(Deno.makeTempDirSync({ prefix: `arrow-hostile-${label}-` }));
  }

  env(mode: Mode, extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: mode.path,
      HOME: this.home,
      DENO_DIR: denoDir(),
      NO_COLOR: "1",
      RUST_BACKTRACE: "0",
      LANG: "C.UTF-8",
      ...extra,
    };
  }

  /**
   * Writes a plan file (JSON is YAML) and returns its path. Plans have a directory of their own: a sandboxed
   * program sees the plan's directory through a copy it may write into (seen and blamed), and the lab's
   * other directories — arrow's working directory, HOME, `outside`, arrow's own copy — are not the plan's.
   */
  plan(name: string, doc: unknown): string {
    Deno.mkdirSync(`${this.base}/plans`, { recursive: true });
    const path = `${this.base}/plans/${name}.yaml`;
    Deno.writeTextFileSync(path, JSON.stringify(doc, null, 1));
    return path;
  }

  /** A fresh runs directory holding an older run with a canary in its state.json. */
  runsDir(): string {
    const runs = `${this.base}/runs-${++this.#n}`;
    Deno.mkdirSync(`${runs}/older-run`, { recursive: true });
    Deno.writeTextFileSync(`${runs}/older-run/state.json`, JSON.stringify({ secret: CANARY.otherRun }));
    return runs;
  }

  /** The run directory arrow made in `runs`, or "" while there is none. */
  static runIn(runs: string): string {
    try {
      const d = [...Deno.readDirSync(runs)].find((e) => e.isDirectory && e.name !== "older-run");
      return d ? `${runs}/${d.name}` : "";
    } catch {
      return "";
    }
  }

  /** `arrow run <plan> --real` in `mode`, watched. */
  async run(
    mode: Mode,
    plan: string,
    o: {
      timeoutMs?: number;
      env?: Record<string, string>;
      /** Called every 20 ms with the run directory ("" until it exists); true kills arrow -9. */
      poll?: (dir: string) => boolean | void;
      args?: string[];
      main?: string;
      cwd?: string;
    } = {},
  ): Promise<Outcome> {
    const runs = this.runsDir();
    const w = await watchArrow(
      ["run", plan, "--real", "--runs-dir", runs, ...mode.flags, ...(o.args ?? [])],
      {
        cwd: o.cwd ?? this.cwd,
        env: this.env(mode, o.env),
        timeoutMs: o.timeoutMs ?? 300_000,
        ...(o.main ? { main: o.main } : {}),
        ...(o.poll ? { poll: () => o.poll!(Lab.runIn(runs)) } : {}),
        progress: () => fileSize(`${Lab.runIn(runs)}/replay.jsonl`),
      },
    );
    return Lab.outcome(w, Lab.runIn(runs));
  }

  /** `arrow resume <dir>` in `mode`, watched. */
  async resume(mode: Mode, dir: string, o: { timeoutMs?: number; env?: Record<string, string> } = {}) {
    const w = await watchArrow(["resume", dir], {
      cwd: this.cwd,
      env: this.env(mode, o.env),
      timeoutMs: o.timeoutMs ?? 300_000,
      progress: () => fileSize(`${dir}/replay.jsonl`),
    });
    return Lab.outcome(w, dir);
  }

  /** Any other arrow command (replay, report …) in `mode`, watched. */
  cli(mode: Mode, args: string[], timeoutMs = 60_000): Promise<Watched> {
    return watchArrow(args, { cwd: this.cwd, env: this.env(mode), timeoutMs });
  }

  static outcome(w: Watched, dir: string): Outcome {
    const state = dir ? readJson<RunStateLite>(`${dir}/state.json`) : null;
    let incidents: Incident[] = [];
    try {
      incidents = Deno.readTextFileSync(`${dir}/incidents.jsonl`).split("\n").filter(Boolean).map((l) =>
        JSON.parse(l)
      );
    } catch {
      incidents = [];
    }
    return { w, dir, state, incidents };
  }

  [Symbol.dispose](): void {
    if (Deno.env.get("ARROW_KEEP_RUNS") === "1") return console.log(`hostile: kept ${this.base}`);
    try {
      Deno.removeSync(this.base, { recursive: true });
    } catch (e) {
      // A process of an aborted run may still be writing there: say so rather than fail the clean-up.
      console.log(`hostile: could not remove ${this.base}: ${(e as Error).message}`);
    }
  }
}

/**
 * What must hold after every arrow process an attack met: it neither hung nor ballooned, it exited 0 (not
 * 2, an internal failure), it stayed under RSS_LIMIT_KB, and its run has a verdict.
 */
export function survivalProblems(o: Outcome, verdict = true): string[] {
  const out: string[] = [];
  if (o.w.hung) {
    out.push(`arrow hung: ${o.w.why} (state ${o.w.lastState}${o.w.termIgnored ? ", ignored SIGTERM" : ""})`);
  }
  if (o.w.ballooned) out.push("arrow's resident memory went past 1.5 GB");
  if (!o.w.hung && !o.w.ballooned && o.w.code !== 0) out.push(`arrow exited ${o.w.code ?? o.w.signal}`);
  if (o.w.peakKb > RSS_LIMIT_KB) out.push(`arrow peaked at ${Math.round(o.w.peakKb / 1024)} MB RSS (> 300)`);
  if (verdict && !o.state?.verdict) out.push("the run has no verdict");
  return out;
}

/** Incidents of one type on one node. */
export const incidentsOf = (o: Outcome, node: string, type: string) =>
  o.incidents.filter((i) => i.node === node && i.type === type);

/** Every scope as the scope record (.arrow/scopes.jsonl) last has it: node → relative path → entry. */
export function scopeRecord(dir: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let text = "";
  try {
    text = Deno.readTextFileSync(`${dir}/.arrow/scopes.jsonl`);
  } catch {
    return out;
  }
  for (const line of text.split("\n").filter(Boolean)) {
    const r = JSON.parse(line) as { changes: Record<string, Record<string, [string, number] | null>> };
    for (const [node, diff] of Object.entries(r.changes)) {
      const files = (out[node] ??= {});
      for (const [rel, v] of Object.entries(diff)) {
        if (v === null) delete files[rel];
        else files[rel] = v[0];
      }
    }
  }
  return out;
}
