/**
 * The lanes a sandbox left read-only, on the record, and the writes refused there that can still be seen.
 * A lane past COPY_LIMIT (or a watched directory past MAX_SHADOWED_ENTRIES) is a read-only bind: a write
 * there fails with EROFS and lands nowhere Arrow could inspect. So each such lane is noted on the node at
 * launch (`RefusalLog`, a note in the black box and a line of the report), and a refused write is seen when
 * the program says so itself: a line of its stderr that reports "Read-only file system" and names a path
 * under one of those lanes (`StderrRefusals`). Only lanes Arrow bound read-only count, and the writer is
 * always the program whose stderr it is, so a program that fakes such a line blames only itself. A program
 * that swallows the error, or whose message names no path, stays unseen: the limit is the program's words.
 *
 * @module
 */
import type { NodeId, PlanNode } from "../../graph/types.ts";
import type { Event } from "../../model/events.ts";
import type { LaneRefusal, RunState } from "../../model/state.ts";
import type { Refusal } from "./lanes.ts";

/** The layer that refused a write under a lane bound read-only (`EscapeAttempt.stopped_by`), both modes. */
export const READ_ONLY_MOUNT = "read-only mount";
/** Where such a write was seen when a program's own stderr named it (`EscapeAttempt.seen_in`). */
export const IN_STDERR = "the program's stderr";

/**
 * The read-only lanes of each node's latest attempt, noted on the node when they change: the graph path's
 * engine notes them (`notes`), tree mode records an executor's on its node with its result (`lanes`).
 */
export class RefusalLog {
  readonly #lanes = new Map<NodeId, LaneRefusal[]>();

  constructor(readonly rel: (abs: string) => string) {}

  /** Notes what the layout of `node`'s attempt (its worker's, or its acceptance check's) left refusing. */
  add(node: NodeId, attempt: number, by: LaneRefusal["by"], refusals: readonly Refusal[]): void {
    if (!refusals.length) return;
    const kept = (this.#lanes.get(node) ?? []).filter((r) => r.attempt === attempt);
    for (const { path, why } of refusals) {
      const entry = { attempt, by, path: this.rel(path), why };
      if (!kept.some((k) => k.by === by && k.path === entry.path)) kept.push(entry);
    }
    this.#lanes.set(node, kept);
  }

  /** What `node`'s latest attempt left read-only, as recorded (empty when nothing). */
  lanes(node: NodeId): LaneRefusal[] {
    return [...this.#lanes.get(node) ?? []];
  }

  /** Note events for every node whose recorded list differs from what its latest attempt has. */
  notes(state: RunState): Event[] {
    const out: Event[] = [];
    for (const [node, lanes] of this.#lanes) {
      if (JSON.stringify(state.nodes[node]?.refused ?? []) === JSON.stringify(lanes)) continue;
      out.push({ e: "note", node, set: { refused: lanes } });
    }
    return out;
  }
}

/**
 * Notes the lanes an attempt's layout left read-only (`cmd.refusing`), and reads its stderr for writes
 * refused there — a program's `logs/<node>.err`, an agent's commands' stderr in its transcript; null when
 * there are none.
 */
export function refusedWrites(
  log: RefusalLog,
  runDir: string,
  node: Pick<PlanNode, "id" | "worker">,
  attempt: number,
  cmd: { refusing: readonly Refusal[]; cwd: string },
): StderrRefusals | null {
  log.add(node.id, attempt, "worker", cmd.refusing);
  const lanes = cmd.refusing.map((r) => r.path);
  if (!lanes.length) return null;
  return node.worker?.type === "agent"
    ? new StderrRefusals(`${runDir}/logs/agent/${node.id}.jsonl`, lanes, cmd.cwd, true)
    : new StderrRefusals(`${runDir}/logs/${node.id}.err`, lanes, cmd.cwd);
}

/** Most bytes of stderr read per look: a chatty program cannot make SENSE slow. */
const MAX_READ = 1 << 20;
const EROFS = /read-only file system/i;

const under = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");

/** Collapses `.` and `..` of an absolute path (no link followed: what the program named, not the host). */
function normal(p: string): string {
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (!part || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}

/**
 * The paths a stderr line names (absolute, or relative to the program's directory): words and quoted
 * strings, trimmed of the punctuation shells and runtimes put around them.
 */
export function namedPaths(line: string, cwd: string): string[] {
  const words = [...line.matchAll(/'([^']+)'|"([^"]+)"|([^\s'"]+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  const out: string[] = [];
  for (let w of words) {
    w = w.replace(/^[([{<]+/, "").replace(/[)\]}>:,;.]+$/, "");
    if (!w.includes("/") || /^[a-z]+:\/\//i.test(w)) continue;
    out.push(normal(w.startsWith("/") ? w : `${cwd}/${w}`));
  }
  return out;
}

/** Writes a program's stderr says were refused under the read-only lanes Arrow gave it. */
export class StderrRefusals {
  #offset: number;
  #partial = "";
  readonly #seen = new Set<string>();

  /**
   * Reads `path` from its size now on (earlier attempts' lines are theirs), resolving from `cwd`;
   * `transcript`: each line is an agent transcript record, and a command record's stderr is the text.
   */
  constructor(
    readonly path: string,
    readonly lanes: readonly string[],
    readonly cwd: string,
    readonly transcript = false,
  ) {
    this.#offset = sizeOf(path);
  }

  /** Paths newly named by a "Read-only file system" line under one of the lanes (each reported once). */
  read(): string[] {
    let text = "";
    try {
      using f = Deno.openSync(this.path, { read: true });
      f.seekSync(this.#offset, Deno.SeekMode.Start);
      const buf = new Uint8Array(MAX_READ);
      const n = f.readSync(buf) ?? 0;
      this.#offset += n;
      text = this.#partial + new TextDecoder().decode(buf.subarray(0, n));
    } catch {
      return [];
    }
    const lines = text.split("\n");
    this.#partial = (lines.pop() ?? "").slice(-4096);
    const said = this.transcript ? lines.map(commandStderr) : lines;
    const out = refusedPaths(said.join("\n"), this.lanes, this.cwd).filter((p) => !this.#seen.has(p));
    for (const p of out) this.#seen.add(p);
    return out;
  }
}

/**
 * The paths under `lanes` that lines of `text` saying "Read-only file system" name, once each, in order:
 * what a program reported bubblewrap refused it.
 */
export function refusedPaths(text: string, lanes: readonly string[], cwd: string): string[] {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    if (!EROFS.test(line)) continue;
    for (const p of namedPaths(line, cwd)) if (lanes.some((l) => under(p, l))) out.add(p);
  }
  return [...out];
}

/** The stderr of an agent transcript's command record (one JSON line), else nothing. */
function commandStderr(line: string): string {
  try {
    const o = JSON.parse(line) as { type?: unknown; stderr?: unknown };
    return o.type === "command" && typeof o.stderr === "string" ? o.stderr : "";
  } catch {
    return "";
  }
}

function sizeOf(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}
