/**
 * Runs one sandboxed child and watches it the way overwatch watches a node: started in its own process
 * group (runtime/proc/proc.ts) and journalled so a resumed run can stop what a dead one left; observed every
 * `observeMs` — an executor whose metrics.jsonl gains no line for K_FREEZE observations is hung, any child
 * past its wall budget is over budget, and either is stopped as a group; its permission audit compared with
 * what it was granted, so a read or write it attempted elsewhere is named. Output is read bounded.
 *
 * @module
 */
import {
  IN_STDERR,
  inside,
  READ_ONLY_MOUNT,
  type Refusal,
  resolvePath,
  type Shadow,
  shadowPath,
  shadowWrites,
  StderrRefusals,
} from "../../runtime/sandbox/mod.ts";
import {
  HangClock,
  JsonlTail,
  overrun,
  spawn,
  type Spawned,
  stopGroup,
  watchLoop,
} from "../../runtime/proc/mod.ts";
import type { Hang, Overrun } from "../../runtime/proc/mod.ts";
import type { ProcJournal } from "../../runtime/proc/mod.ts";
import { readRange, readRegular } from "../../runtime/safe_read.ts";
import type { ChildCommand } from "./sandbox.ts";
import type { Escape } from "../types.ts";

export interface ChildOutcome {
  exit: number | null;
  signal: string | null;
  stdout: string;
  stderrTail: string[];
  hung: Hang | null;
  overBudget: Overrun | null;
  escapes: Escape[];
  /** The lanes its layout left read-only binds (bubblewrap only; empty for most): what its node records. */
  refusing: Refusal[];
  /** Metric lines seen (executors), and the last step among them. */
  lines: Record<string, unknown>[];
  wallMs: number;
  /** Time since its stdin line was written (a standby's working time), else its wall time. */
  activeMs: number;
  /** A standby cancelled before it was given its line. */
  cancelled: boolean;
  /** What a slot's job signed its printed results with (slot_pool.ts); a child's is the caller's own. */
  nonce?: string;
}

export interface WatchOptions {
  label: string;
  observeMs: number;
  wallMs: number;
  journal: ProcJournal;
  /**
   * A first stdin line (the nonce results are signed with). A promise makes the child a standby: it starts
   * now and waits on stdin for the line, so its start-up overlaps whatever runs meanwhile; null cancels it.
   */
  stdin?: string | Promise<string | null>;
  /** The executor's metrics.jsonl: silence there is a hang. */
  metrics?: string;
  /**
   * Children without metrics (recomputation, gate, final test): the harness logs a line to the command's
   * progress file at each stage (loaded, each fold), and none for K_FREEZE observations — counted from when
   * a standby is given its line — is a hang, stopped long before the wall budget.
   */
  progress?: boolean;
  signal?: AbortSignal;
  /** A standby's budget once given its line (the caller may set it until then). */
  activeLimit?: { ms: number };
  logDir: string;
}

/**
 * Where a child's stdout is kept: its predictions or its model, a channel to Arrow (read back byte for byte)
 * that holds the user's data — kept out of logs/, which is for people (stderr and the scripts stay there).
 */
export function outDirOf(o: Pick<WatchOptions, "logDir">): string {
  return `${o.logDir.replace(/\/+$/, "").replace(/\/[^/]*$/, "")}/.arrow/out`;
}

const MAX_STDOUT = 64 << 20;

const dec = new TextDecoder();

/** Permission checks outside the grants: reads, writes and network, deduplicated in log order. */
export function auditEscapes(path: string, cmd: ChildCommand, stoppedBy: string): Escape[] {
  return auditRows(new JsonlTail(path).read(), cmd, stoppedBy);
}

/** `auditEscapes` over audit rows already read (a slot's rows of one job). */
export function auditRows(
  rows: readonly Record<string, unknown>[],
  cmd: Pick<ChildCommand, "cwd" | "read" | "write">,
  stoppedBy: string,
): Escape[] {
  const out: Escape[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const perm = row.permission, value = row.value;
    if (typeof value !== "string") continue;
    let e: Escape | null = null;
    if (perm === "read" || perm === "write") {
      // A module a worker loads is checked as a file: URL.
      const abs = resolvePath(
        cmd.cwd,
        value.startsWith("file://") ? decodeURIComponent(new URL(value).pathname) : value,
      );
      const allowed = perm === "read" ? cmd.read : cmd.write;
      if (!allowed.some((a) => inside(abs, a))) e = { path: abs, op: perm, stopped_by: stoppedBy };
    } else if (perm === "net") e = { path: value, op: "net", stopped_by: stoppedBy };
    if (e && !seen.has(`${e.op} ${e.path}`)) {
      seen.add(`${e.op} ${e.path}`);
      out.push(e);
    }
  }
  return out;
}

/**
 * Writes bubblewrap caught in a child's shadows (a write outside its lane that Deno's layer did not see),
 * skipping those already in `seen` (a slot's earlier jobs) and adding the new ones to it.
 */
export function shadowEscapes(shadows: readonly Shadow[], seen = new Set<string>()): Escape[] {
  const out: Escape[] = [];
  for (const s of shadows) {
    for (const { rel, op } of shadowWrites(s)) {
      const key = `${s.dir}/${rel}:${op}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ path: shadowPath(s, rel), op, stopped_by: "bwrap-shadow" });
    }
  }
  return out;
}

/**
 * Watches a child's stderr (`stderrFile`, from its size now on: a slot's earlier jobs' lines are theirs) for
 * writes refused under the lanes its layout left read-only — the graph path's reader (sandbox/refusals.ts),
 * resolving relative paths from the child's directory; null when it has no such lane.
 */
export function stderrRefusals(
  cmd: Pick<ChildCommand, "cwd" | "refusing">,
  stderrFile: string,
): StderrRefusals | null {
  const lanes = (cmd.refusing ?? []).map((r) => r.path);
  return lanes.length ? new StderrRefusals(stderrFile, lanes, cmd.cwd) : null;
}

/** The writes a child's stderr newly says a read-only mount refused, as escapes of its node. */
export function refusedEscapes(refused: StderrRefusals | null): Escape[] {
  return (refused?.read() ?? []).map((path) => ({
    path,
    op: "write",
    stopped_by: READ_ONLY_MOUNT,
    seen_in: IN_STDERR,
  }));
}

/** Every escape a child's layers saw: its permission audit, its shadows and its stderr's refusals. */
export function escapesOf(cmd: ChildCommand, refused: StderrRefusals | null): Escape[] {
  return [
    ...auditEscapes(cmd.audit, cmd, "deno"),
    ...shadowEscapes(cmd.shadows ?? []),
    ...refusedEscapes(refused),
  ];
}

/**
 * The last `n` lines of a log (each cut to 500 characters), read bounded; with `from`, only what was
 * written from that byte on (a slot's log during one job), at most its last MiB.
 */
export function tail(path: string, n = 8, from?: number): string[] {
  let bytes: Uint8Array;
  if (from === undefined) {
    const r = readRegular(path, 1 << 20);
    if (!r.ok) return [];
    bytes = r.bytes;
  } else {
    const end = readRange(path, 0, 0);
    if (!end.ok) return [];
    const r = readRange(path, Math.max(from, end.size - (1 << 20)), 1 << 20);
    if (!r.ok) return [];
    bytes = r.bytes;
  }
  return dec.decode(bytes).split("\n").map((l) => l.trimEnd()).filter(Boolean).slice(-n).map((l) =>
    l.slice(0, 500)
  );
}

/** A child's two output files, made empty: stderr in logs/ (for people), stdout in `outDirOf` (for Arrow). */
export function childFiles(
  o: Pick<WatchOptions, "logDir" | "label">,
): { stderrFile: string; stdoutFile: string } {
  Deno.mkdirSync(o.logDir, { recursive: true });
  Deno.mkdirSync(outDirOf(o), { recursive: true });
  const files = { stderrFile: `${o.logDir}/${o.label}.err`, stdoutFile: `${outDirOf(o)}/${o.label}.out` };
  for (const f of Object.values(files)) Deno.writeTextFileSync(f, "");
  return files;
}

export async function runChild(cmd: ChildCommand, o: WatchOptions): Promise<ChildOutcome> {
  const { stderrFile, stdoutFile } = childFiles(o);
  const refused = stderrRefusals(cmd, stderrFile);
  const t0 = performance.now();
  const p: Spawned = spawn(cmd.cmd, cmd.args, {
    cwd: cmd.cwd,
    env: cmd.env,
    stdin: o.stdin !== undefined ? "piped" : "null",
    stdout: "null",
    stdoutFile,
    stderrFile,
  });
  o.journal.log("start", o.label, p);
  let active = t0;
  const watched = o.metrics ?? (o.progress && cmd.progress ? cmd.progress : null);
  // The hang clock: the last sign of life (a standby's starts when it is told to go).
  const clock = new HangClock(watched ? new JsonlTail(watched) : null, p.pid, t0);
  let wake = () => {};
  let cancelled = false;
  if (o.stdin !== undefined) {
    const w = p.child.stdin.getWriter();
    const give = async (line: string | null) => {
      if (line === null) {
        cancelled = true;
        wake();
      } else {
        active = performance.now();
        clock.news(active);
        await w.write(new TextEncoder().encode(line + "\n")).catch(() => {});
      }
      await w.close().catch(() => {});
    };
    if (typeof o.stdin === "string") await give(o.stdin);
    else void o.stdin.then(give);
  }
  const standby = o.stdin !== undefined && typeof o.stdin !== "string";
  const { hung, overBudget } = await watchLoop(o.observeMs, {
    async wait(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([p.status, new Promise<void>((r) => (timer = setTimeout(wake = r, ms)))]);
      clearTimeout(timer);
    },
    ended: () => p.exited !== null,
    check(now) {
      const hung = clock.look(now, o.observeMs, standby && active === t0);
      const limit = o.activeLimit?.ms;
      return {
        hung,
        overBudget: hung ? null : overrun(now, t0, o.wallMs) ??
          (limit !== undefined && active > t0 ? overrun(now, active, limit) : null),
      };
    },
    abort: () => cancelled || !!o.signal?.aborted,
    stop: () => stopGroup(p, 500),
  });
  await p.status;
  o.journal.log("stop", o.label, p);
  const lines = clock.finish();
  const out = readRegular(stdoutFile, MAX_STDOUT);
  const status = p.exited!;
  return {
    exit: status.signal ? null : status.code,
    signal: status.signal ?? null,
    stdout: out.ok ? dec.decode(out.bytes) : "",
    stderrTail: tail(stderrFile),
    hung,
    overBudget,
    escapes: escapesOf(cmd, refused),
    refusing: cmd.refusing ?? [],
    lines,
    wallMs: performance.now() - t0,
    activeMs: performance.now() - active,
    cancelled,
  };
}

/** The payload of the last stdout line signed with `nonce`, or why there is none. */
export function signedLine(
  stdout: string,
  nonce: string,
): { ok: true; text: string } | { ok: false; problem: string } {
  const lines = stdout.split("\n").filter((l) => l.startsWith(`${nonce} `));
  const last = lines.at(-1);
  if (!last) return { ok: false, problem: "it printed no result" };
  return { ok: true, text: last.slice(nonce.length + 1) };
}
