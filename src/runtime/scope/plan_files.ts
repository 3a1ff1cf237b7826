/**
 * The plan's own files a claim is judged by — the declared evaluator (`protocol.evaluate`) and the files
 * acceptance commands name — held to what they were when the run started. No sandbox layer sees an
 * unconfined worker (`--unsandboxed`) rewrite the evaluator to print 0.999, so SENSE compares them every
 * tick and right before any acceptance runs: a changed file is put back from the blob store (it is a
 * SCOPE_VIOLATION all the same), and one that cannot be put back refuses every claim its acceptance would
 * have judged. A claim is never verified by an edited evaluator.
 *
 * The record (`.arrow/plan_files.json`) is written once, at the run's first tick, so a resumed run holds the
 * files to the run's start, not to whatever was there when it resumed. The plan file itself is not held:
 * the run reads it once, and its content travels in the black box's init line.
 *
 * @module
 */
import type { RunState } from "../../model/state.ts";
import { writeAtomic } from "../atomic.ts";
import { besidePlan } from "../backend/launch.ts";
import { hashRegular } from "../safe_read.ts";
import { sigMatches, signature } from "../sandbox/bwrap.ts";
import { copyable } from "../sandbox/lanes.ts";
import type { BlobStore } from "./blobs.ts";

/** A plan file as the run started with it: content hash, size, and the signature last seen. */
interface Held {
  hash: string;
  size: number;
  sig: string;
  /** Permission bits, put back with the content (an executable acceptance script stays executable). */
  mode: number | null;
  /** Found changed and not put back: every claim is refused until it holds its recorded content again. */
  lost?: boolean;
}

/**
 * A held file found changed (whether it was put back, re-hashed to its recorded content), or a file of the
 * plan's directory that appeared, changed or went (`op`; never put back: it was never kept).
 */
export interface PlanFileChange {
  path: string;
  op?: "write" | "delete";
  restored: boolean;
}

/**
 * Where the plan's directory is watched as a whole (unconfined runs: no copy shows what a program writes
 * there): each file's signature as last seen, or why it is not watched (past COPY_LIMIT).
 */
type Listing = { files: Record<string, string> } | { unwatched: string };

const under = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");

/**
 * The plan's files the judgement runs: argv words of the evaluator and of acceptance commands that name a
 * regular file in the plan's directory (relative to it, or absolute inside it). Absolute paths, sorted.
 */
export function declaredFiles(state: RunState): string[] {
  const dir = state.plan.dir;
  if (!dir) return [];
  const words = [
    ...(state.plan.protocol.evaluate ?? []),
    ...state.plan.nodes.flatMap((n) => n.acceptance[0]?.startsWith("@") ? [] : n.acceptance),
  ];
  const out = new Set<string>();
  for (const w of words) {
    const p = besidePlan(w, dir);
    if (!p.startsWith("/") || !under(p, dir) || p === dir) continue;
    try {
      if (Deno.lstatSync(p).isFile) out.add(p);
    } catch {
      // not there: nothing to hold
    }
  }
  return [...out].sort();
}

function sigOf(path: string): string | null {
  try {
    const st = Deno.lstatSync(path);
    return st.isFile ? signature(st, path) : `not a file`;
  } catch {
    return null;
  }
}

export class PlanFiles {
  #held: Map<string, Held> | null = null;
  #listing: Listing | null = null;
  readonly #record: string;
  readonly #listed: string;

  /**
   * `watch`: the plan's whole directory is watched too (no sandbox shows a write there), leaving out the
   * subtrees `skip` names (the runs); at most COPY_LIMIT files, or not at all.
   */
  constructor(
    runDir: string,
    readonly blobs: BlobStore,
    readonly watch: { skip: string[] } | null = null,
  ) {
    this.#record = `${runDir}/.arrow/plan_files.json`;
    this.#listed = `${runDir}/.arrow/plan_dir.json`;
  }

  /**
   * A run's plan files: held files always; in an unconfined run (`unconfined`: no copy shows a write into
   * the plan's directory) the whole directory as well, leaving out the run and the runs beside it.
   */
  static forRun(runDir: string, blobs: BlobStore, unconfined: boolean, runsDir: string | null): PlanFiles {
    return new PlanFiles(
      runDir,
      blobs,
      unconfined ? { skip: [runDir, ...(runsDir ? [runsDir] : [])] } : null,
    );
  }

  /** The directory's files now (signatures), leaving out the held files; or why it cannot be listed. */
  #scanDir(dir: string, held: Map<string, Held>): Listing {
    const files = copyable(dir, this.watch?.skip ?? []);
    if (!Array.isArray(files)) return { unwatched: files.why };
    const out: Record<string, string> = {};
    for (const rel of files) {
      const sig = sigOf(`${dir}/${rel}`);
      if (sig !== null && !held.has(`${dir}/${rel}`)) out[rel] = sig;
    }
    return { files: out };
  }

  /** The run's listing of the plan's directory (made at its first tick), or null when not watched. */
  #list(state: RunState): Listing | null {
    const dir = state.plan.dir;
    if (!this.watch || !dir) return null;
    if (this.#listing) return this.#listing;
    try {
      return this.#listing = JSON.parse(Deno.readTextFileSync(this.#listed)) as Listing;
    } catch {
      // first tick of the run: list the directory as it is
    }
    this.#listing = this.#scanDir(dir, this.#load(state));
    writeAtomic(this.#listed, JSON.stringify(this.#listing), false);
    return this.#listing;
  }

  /** Files of the plan's directory that appeared, changed or went since the last look (watched only). */
  #dirChanges(state: RunState): PlanFileChange[] {
    const was = this.#list(state);
    const dir = state.plan.dir!;
    if (!was || "unwatched" in was) return [];
    const now = this.#scanDir(dir, this.#load(state));
    // Grown past the limit since: what is still listed is compared, nothing new is (it cannot all be).
    const files = "files" in now ? now.files : {};
    const out: PlanFileChange[] = [];
    // A signature recorded with a hash (the file was recent) that still matches: kept as size and times
    // once they are old enough, so it is not hashed again at every look.
    let settled = false;
    for (const [rel, sig] of Object.entries(files)) {
      if (was.files[rel] === sig) continue;
      if (!sigMatches(was.files[rel], `${dir}/${rel}`)) {
        out.push({ path: `${dir}/${rel}`, op: "write", restored: false });
      } else settled ||= !sig.includes("#");
    }
    for (const rel of Object.keys(was.files)) {
      if (!(rel in files) && "files" in now) {
        out.push({ path: `${dir}/${rel}`, op: "delete", restored: false });
      }
    }
    if (out.length || settled) {
      this.#listing = "files" in now ? now : was;
      writeAtomic(this.#listed, JSON.stringify(this.#listing), false);
    }
    return out.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  }

  /** Loads the run's record, or makes it from the files as they are now (the run's first tick). */
  #load(state: RunState): Map<string, Held> {
    if (this.#held) return this.#held;
    try {
      const rec = JSON.parse(Deno.readTextFileSync(this.#record)) as Record<string, Held>;
      return this.#held = new Map(Object.entries(rec));
    } catch {
      // first tick of the run: hold the files as they are
    }
    const held = new Map<string, Held>();
    for (const p of declaredFiles(state)) {
      const d = hashRegular(p);
      const sig = sigOf(p);
      if ("error" in d || sig === null) continue;
      this.blobs.put(p, d.hash, d.size);
      held.set(p, { hash: d.hash, size: d.size, sig, mode: Deno.lstatSync(p).mode });
    }
    writeAtomic(this.#record, JSON.stringify(Object.fromEntries(held)), false);
    return this.#held = held;
  }

  /**
   * The held files that changed since the last look, each put back from the blob store when it can be
   * (a file that only changed its time is no change). Costs one lstat a file when nothing changed.
   */
  check(state: RunState): PlanFileChange[] {
    const out: PlanFileChange[] = [];
    for (const [path, h] of this.#load(state)) {
      if (sigMatches(h.sig, path)) {
        if (h.sig.includes("#")) h.sig = sigOf(path) ?? h.sig; // hashed while recent; times suffice once old
        continue;
      }
      const d = hashRegular(path);
      if (!("error" in d) && d.hash === h.hash) {
        h.sig = sigOf(path) ?? h.sig;
        h.lost = false;
        continue;
      }
      const put = this.blobs.restoreOne(path, { v: h.hash, n: h.size });
      if (put && h.mode !== null) Deno.chmodSync(path, h.mode & 0o7777);
      const again = put ? hashRegular(path) : null;
      const restored = again !== null && !("error" in again) && again.hash === h.hash;
      // Reported once a change: a file that cannot be put back is looked at again only when it changes.
      h.sig = sigOf(path) ?? h.sig;
      h.lost = !restored;
      out.push({ path, restored });
    }
    return [...out, ...this.#dirChanges(state)];
  }

  /** Held files found changed and not put back (by `check`): no claim they judge can stand. */
  broken(state: RunState): string[] {
    return [...this.#load(state)].filter(([, h]) => h.lost).map(([p]) => p);
  }
}
