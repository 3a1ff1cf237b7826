/**
 * Arrow worker SDK for Deno: the worker side of Arrow's file protocol, with the same functions as
 * `arrow_sdk.py` (camelCase). No npm, no remote imports: it runs under `deno run --no-npm --no-remote` with
 * `--allow-env --allow-read --allow-write={scope}`. The reference is WORKERS.md at the repository's top.
 *
 * ```ts
 * import * as arrow from "./arrow_sdk.ts";
 * const { data, split } = arrow.frozenData();
 * arrow.logMetric(epoch, devR2, { loss });
 * arrow.saveCheckpoint(epoch, state);                        // ckpt/step_000012.json, atomically
 * const from = arrow.resumeCheckpoint();                     // ARROW_RESUME_FROM on a restart, else null
 * arrow.writeManifest(score, "model.json", { data, split }); // results.json: the claim
 * ```
 *
 * @module
 */
import { createHash } from "node:crypto";
import { faultHooks } from "./faults.ts";
import type { ArrowEnv, Json, Manifest } from "./types.ts";
import { basename, finite, isAbsolute, join, normalize, resolveInside } from "./paths.ts";

export type { ArrowEnv, Json, Manifest };

const STARTED = performance.now();
const MAX_LINE_BYTES = 64 * 1024;
const MAX_MANIFEST_BYTES = 1024 * 1024;
const TUPLE = ["data_hash", "split_hash", "protocol_version", "seed"] as const;
/** Keys writeManifest computes itself; passing them as extras would bypass the computation. */
const RESERVED = new Set(["node", "metric", "score", "artifact", "code_sha", "wall_s", ...TUPLE]);
const EXT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

function getVar(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    throw new Error(`Cannot read ${name}: run the worker with --allow-env (Deno permission)`);
  }
}

function jsonVar<T>(name: string, fallback: T, check: (v: unknown) => boolean, want: string): T {
  const raw = getVar(name);
  if (raw === undefined) return fallback;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new SyntaxError(`Cannot read ${name}: not JSON (${(e as Error).message})`);
  }
  if (!check(v)) throw new TypeError(`Cannot read ${name}: expected ${want}`);
  return v as T;
}

const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);

/** {node: absolute scope}; an entry may also be {scope, role}. */
function scopes(name: string, refs: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [node, ref] of Object.entries(refs)) {
    const scope = isObject(ref) ? (ref as { scope?: unknown }).scope : ref;
    if (typeof scope !== "string" || !isAbsolute(scope)) {
      throw new TypeError(
        `Cannot read ${name}: ${JSON.stringify(scope)} is not an absolute path for ${node}`,
      );
    }
    out[node] = scope;
  }
  return out;
}

function intVar(name: string, fallback: number): number {
  const raw = getVar(name);
  if (raw === undefined) return fallback;
  if (!/^-?[0-9]+$/.test(raw)) throw new TypeError(`Cannot read ${name}: "${raw}" is not an integer`);
  return Number(raw);
}

let cached: ArrowEnv | null = null;

/** The worker's environment, read once per process. */
export function env(): ArrowEnv {
  if (cached) return cached;
  const frozen = jsonVar<ArrowEnv["frozen"]>("ARROW_FROZEN", null, isObject, "a JSON object");
  cached = {
    runDir: getVar("ARROW_RUN_DIR") ?? null,
    scope: normalize(getVar("ARROW_SCOPE") ?? Deno.cwd()),
    node: getVar("ARROW_NODE") ?? null,
    attempt: intVar("ARROW_ATTEMPT", 1),
    lap: intVar("ARROW_LAP", 1),
    resumeFrom: getVar("ARROW_RESUME_FROM") ?? null,
    metric: getVar("ARROW_METRIC") ?? null,
    direction: getVar("ARROW_DIRECTION") === "minimize" ? "minimize" : "maximize",
    protocolVersion: getVar("ARROW_PROTOCOL_VERSION") ?? null,
    inputs: scopes("ARROW_INPUTS", jsonVar("ARROW_INPUTS", {}, isObject, "a JSON object")),
    sources: scopes("ARROW_SOURCES", jsonVar("ARROW_SOURCES", {}, isObject, "a JSON object")),
    frozen,
    faults: jsonVar("ARROW_FAULTS", [], Array.isArray, "a JSON array"),
    faultLog: getVar("ARROW_FAULT_LOG") ?? null,
  };
  return cached;
}

/** Forgets the cached environment (tests change it between calls). */
export function resetEnv(): void {
  cached = null;
  lastStep = null;
  hooks = null;
}

let hooks: ReturnType<typeof faultHooks> | null = null;
const faults = () => (hooks ??= faultHooks(env()));

function metricName(what: string): string {
  const m = env().metric;
  if (!m) {
    throw new Error(
      `Cannot ${what}: ARROW_METRIC is not set (arrow sets it to the plan's protocol.metric; set it yourself ` +
        `when you run the program outside arrow)`,
    );
  }
  return m;
}

/** Writes bytes under a dot-prefixed temporary name in the same directory, fsyncs, renames into place. */
function atomicWrite(path: string, data: Uint8Array): string {
  const tmp = join(path.slice(0, path.lastIndexOf("/")), `.${basename(path)}.${Deno.pid}.tmp`);
  try {
    const f = Deno.openSync(tmp, { write: true, create: true, truncate: true });
    try {
      let off = 0;
      while (off < data.length) off += f.writeSync(data.subarray(off));
      f.syncSync();
    } finally {
      f.close();
    }
    Deno.renameSync(tmp, path);
  } catch (e) {
    try {
      Deno.removeSync(tmp);
    } catch {
      // nothing left behind
    }
    throw e;
  }
  return path;
}

let lastStep: number | null = null;
const enc = new TextEncoder();

/** A JSON.stringify replacer that refuses NaN and ±Infinity (JSON would silently write null). */
function finiteOnly(what: string) {
  return (key: string, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) throw new RangeError(`Cannot ${what}: ${key} is ${v}`);
    return v;
  };
}

/** JSON with every object's keys sorted, two-space indented, finite numbers only. */
function sortedJson(value: Json, what: string): string {
  const check = finiteOnly(what);
  return JSON.stringify(value, (key, v) => {
    check(key, v);
    if (!isObject(v)) return v;
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  }, 2);
}

/**
 * Appends `{"step": step, "<metric>": value, ...extra}` to metrics.jsonl. Steps never go back within one
 * process; both numbers must be finite. Returns the record written.
 */
export function logMetric(step: number, value: number, extra: Record<string, Json> = {}): Manifest {
  finite(step, "log a metric step");
  finite(value, `log metric value for step ${step}`);
  const metric = metricName("log a metric");
  const clash = Object.keys(extra).find((k) => k === "step" || k === metric);
  if (clash) {
    throw new RangeError(`Cannot log a metric: extra key "${clash}" would overwrite the step or metric`);
  }
  if (lastStep !== null && step < lastStep) {
    throw new RangeError(`Cannot log step ${step}: it comes after step ${lastStep} (steps never go back)`);
  }
  faults().atStep(step);
  const record: Manifest = { step, [metric]: value, ...extra };
  const bytes = enc.encode(JSON.stringify(record, finiteOnly(`log step ${step}`)) + "\n");
  if (bytes.length > MAX_LINE_BYTES) throw new RangeError(`Cannot log step ${step}: the line is over 64 KiB`);
  Deno.writeFileSync(join(env().scope, "metrics.jsonl"), bytes, { append: true, create: true });
  lastStep = step;
  return record;
}

/**
 * Writes ckpt/step_NNNNNN.<ext> atomically (temporary dot-name, fsync, rename): Arrow never sees half a
 * checkpoint. Bytes are written as they are (.bin), a string as text (.txt), anything else as JSON (.json).
 * Returns the checkpoint's absolute path.
 */
export function saveCheckpoint(step: number, payload: Uint8Array | string | Json, ext?: string): string {
  finite(step, "save a checkpoint step");
  if (step < 0 || !Number.isInteger(step)) {
    throw new RangeError(`Cannot save a checkpoint: step ${step} is not a whole number >= 0`);
  }
  let data: Uint8Array;
  let fallback: string;
  if (payload instanceof Uint8Array) [data, fallback] = [payload, "bin"];
  else if (typeof payload === "string") [data, fallback] = [enc.encode(payload), "txt"];
  else [data, fallback] = [enc.encode(JSON.stringify(payload) + "\n"), "json"];
  const e = (ext ?? fallback).replace(/^\./, "");
  if (!EXT.test(e)) throw new RangeError(`Cannot save a checkpoint: "${e}" is not a plain file extension`);
  const dir = join(env().scope, "ckpt");
  Deno.mkdirSync(dir, { recursive: true });
  return atomicWrite(join(dir, `step_${String(step).padStart(6, "0")}.${e}`), data);
}

/** The checkpoint to continue from (ARROW_RESUME_FROM, set only on a restart), or null. */
export function resumeCheckpoint(): string | null {
  const path = env().resumeFrom;
  if (path === null) return null;
  let isFile = false;
  try {
    isFile = Deno.statSync(path).isFile;
  } catch {
    // reported below
  }
  if (!isFile) throw new Error(`Cannot resume: ARROW_RESUME_FROM names "${path}", which is not a file`);
  return path;
}

/** The step a checkpoint file stands for: the first run of digits in its name (step_000012.json → 12). */
export function checkpointStep(path: string): number | null {
  const m = /[0-9]+/.exec(basename(path));
  return m ? Number(m[0]) : null;
}

/** sha256 hex digest of the file's bytes: how Arrow computes data_hash and split_hash. */
export function fileHash(path: string): string {
  const h = createHash("sha256");
  const f = Deno.openSync(path, { read: true });
  try {
    const buf = new Uint8Array(1 << 20);
    for (;;) {
      const n = f.readSync(buf);
      if (n === null) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    f.close();
  }
  return h.digest("hex");
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
}

const exists = (path: string) => {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
};

/** Absolute path of `name` in the first artifact ancestor (by sorted node id) that has it, else null. */
export function findInput(name: string): string | null {
  const { inputs } = env();
  for (const node of Object.keys(inputs).sort()) {
    const path = join(inputs[node]!, name);
    if (exists(path)) return path;
  }
  return null;
}

/**
 * Absolute paths of the frozen data set's files, found through the ancestors' manifests: the one whose
 * data_hash is the frozen one (before the tuple is frozen: the first that names both artifact and split).
 */
export function frozenData(): { data: string; split: string } {
  const { inputs, frozen } = env();
  const want = frozen?.data_hash;
  for (const node of Object.keys(inputs).sort()) {
    const m = readJson(join(inputs[node]!, "results.json")) as Manifest | undefined;
    if (!isObject(m) || (want !== undefined && m!.data_hash !== want)) continue;
    const data = resolveInside(inputs[node]!, m!.artifact);
    const split = resolveInside(inputs[node]!, m!.split);
    if (data && split) return { data, split };
  }
  const ids = Object.keys(inputs).sort().join(", ") || "none";
  throw new Error(
    `Cannot find the frozen data set: no input in ARROW_INPUTS (${ids}) has a results.json naming artifact ` +
      `and split${want ? ` with data_hash ${want.slice(0, 12)}` : ""}`,
  );
}

/** protocol_version and seed: from ARROW_FROZEN, else from the inputs' manifests (sorted ids, first wins). */
function inherited(): Manifest {
  const { frozen, inputs } = env();
  const out: Manifest = {};
  for (const key of ["protocol_version", "seed"] as const) {
    if (frozen?.[key] !== undefined && frozen[key] !== null) out[key] = frozen[key]!;
  }
  for (const node of Object.keys(inputs).sort()) {
    const m = readJson(join(inputs[node]!, "results.json"));
    if (!isObject(m)) continue;
    for (const key of ["protocol_version", "seed"]) {
      const v = (m as Manifest)[key];
      if (out[key] === undefined && v !== undefined && v !== null) out[key] = v;
    }
  }
  return out;
}

function mainProgram(): string | null {
  if (!Deno.mainModule.startsWith("file:")) return null;
  try {
    const path = decodeURIComponent(new URL(Deno.mainModule).pathname);
    return Deno.statSync(path).isFile ? path : null;
  } catch {
    return null;
  }
}

export interface ManifestOptions {
  /** The data file and split file you actually read: their sha256 become data_hash and split_hash. */
  data?: string;
  split?: string;
  /** The program whose sha256 becomes code_sha (default: the main module; "" for none). */
  code?: string;
  /** Other fields to keep in results.json. */
  extra?: Record<string, Json>;
}

/**
 * Writes results.json atomically and returns it: node, metric, score, artifact (relative to the scope), the
 * hashes of the files you pass, protocol_version and seed (from the frozen tuple), code_sha, wall_s, extras.
 */
export function writeManifest(
  score: number | null,
  artifact: string | null,
  opts: ManifestOptions = {},
): Manifest {
  const e = env();
  if (!e.node) {
    throw new Error(
      "Cannot write results.json: ARROW_NODE is not set (arrow sets it; set it yourself outside arrow)",
    );
  }
  const bad = Object.keys(opts.extra ?? {}).find((k) => RESERVED.has(k));
  if (bad) throw new RangeError(`Cannot write results.json: "${bad}" is computed by writeManifest`);
  const m: Manifest = { node: e.node };
  if (e.metric) m.metric = e.metric;
  if (score !== null) m.score = finite(score, "claim a score");
  if (artifact !== null) {
    const rel = resolveInside(e.scope, artifact, true);
    if (!rel || !exists(rel)) {
      throw new RangeError(
        `Cannot name artifact "${artifact}": it must be a file inside the scope ${e.scope}`,
      );
    }
    m.artifact = rel.slice(e.scope.length + 1);
  }
  if (opts.data !== undefined) m.data_hash = fileHash(opts.data);
  if (opts.split !== undefined) m.split_hash = fileHash(opts.split);
  Object.assign(m, inherited());
  const program = opts.code ?? mainProgram();
  if (program) m.code_sha = fileHash(program).slice(0, 12);
  m.wall_s = Math.round(performance.now() - STARTED) / 1000;
  Object.assign(m, opts.extra ?? {});
  faults().onManifest(m);
  const bytes = enc.encode(sortedJson(m, "write results.json") + "\n");
  if (bytes.length > MAX_MANIFEST_BYTES) throw new RangeError("Cannot write results.json: it is over 1 MiB");
  atomicWrite(join(e.scope, "results.json"), bytes);
  return m;
}
