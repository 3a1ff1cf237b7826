/**
 * The shadows a sandboxed program writes into and the read-only lanes it is given as copies (layout.ts lays
 * them out): what is copied, the signature each copied file is compared by, how a copy of a lane still being
 * written (a stream source) is kept in step with it, and what landed in a shadow (`shadowWrites`).
 *
 * @module
 */
import { hashRegular } from "../safe_read.ts";
import { listFiles } from "../scope/scope_files.ts";

/** A shadow directory standing in for a host directory inside the sandbox. */
export interface Shadow {
  /** Host directory that receives stray writes. */
  dir: string;
  /**
   * The path it stands for, as evidence shows it: run-relative inside the run ("nodes", "" for the run
   * directory itself), else absolute. `shadowPath` joins a file to it.
   */
  shows: string;
  /** Entries bubblewrap itself created in it (mount points of what is bound back): never a write. */
  ignore: string[];
  /**
   * For a copy of a read-only lane: each file's signature (`signature`) as copied. A file that differs,
   * appears or disappears is a write attempt; for other shadows any file is one.
   */
  baseline?: Record<string, string>;
  /**
   * For a copy kept in step with a lane still being written (a stream source): the host directory, and each
   * file's signature there as last copied. `syncLane` brings the copy up to date after it is inspected.
   */
  source?: string;
  synced?: Record<string, string>;
  /**
   * Files `shadowWrites` has named since the last `syncLane`: only those of the program's writes are put
   * back. A write landing between the look and the sync waits for the next look instead of being
   * overwritten unseen.
   */
  named?: Set<string>;
  /** What catches a write landing here, when not bubblewrap's shadow: a watch-only mount namespace's. */
  by?: "namespace-shadow";
}

/** Largest read-only lane copied into a shadow (files and bytes); a larger one is bound read-only. */
export const COPY_LIMIT = { files: 2_000, bytes: 64 * 1024 * 1024 };

function lstat(p: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * How recently a file must have changed for its size and times not to tell one write from the next: a
 * filesystem stamps times from a clock that moves in ticks (milliseconds on ext4, seconds for Deno's
 * change time, two seconds on FAT), so two same-size writes within a tick look alike.
 */
export const RACY_MS = 3_000;
/** Largest racy file whose content is hashed into its signature (a larger one keeps size and times). */
const RACY_BYTES = 8 * 1024 * 1024;

/**
 * The signature a file is compared by: size, modification and change time (a write that puts the
 * modification time back still moves the change time), and, while either time is recent (`RACY_MS`) or
 * `hashed` asks, a hash of the content — so a same-size rewrite within one clock tick of the look is seen.
 */
export function signature(st: Deno.FileInfo, path: string, hashed = false, at = Date.now()): string {
  const m = st.mtime?.getTime() ?? 0;
  const c = st.ctime?.getTime() ?? 0;
  const base = `${st.size}:${m}:${c}`;
  const racy = hashed || at - Math.max(m, c) < RACY_MS;
  if (!st.isFile || !racy || st.size > RACY_BYTES) return base;
  const d = hashRegular(path);
  return "error" in d ? base : `${base}#${d.hash.slice(0, 24)}`;
}

/** Whether the file at `path` still has the signature `was` (hashed again when `was` holds a hash). */
export function sigMatches(was: string | undefined, path: string): boolean {
  if (was === undefined) return false;
  const st = lstat(path);
  if (!st || !(st.isFile || st.isSymlink)) return false;
  return signature(st, path, was.includes("#")) === was;
}

/** A lane Arrow could not give as a copy, left a read-only bind (a write there is refused, not caught). */
export interface Refusal {
  /** The host path bound read-only. */
  path: string;
  /** Why it is no copy: the limit it is past, or what it holds. */
  why: string;
}

const count = (n: number) => n.toLocaleString("en-US");

/**
 * Files of `dir` (relative paths), leaving out the subtrees `skip` names (absolute), or why it cannot be
 * copied: more than COPY_LIMIT, or a special file.
 */
export function copyable(dir: string, skip: readonly string[] = []): string[] | { why: string } {
  const out: string[] = [];
  let bytes = 0;
  let why = "";
  const walk = (rel: string): boolean => {
    for (const e of Deno.readDirSync(rel ? `${dir}/${rel}` : dir)) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (skip.includes(`${dir}/${r}`)) continue;
      if (e.isDirectory) {
        if (!walk(r)) return false;
        continue;
      }
      const st = lstat(`${dir}/${r}`);
      if (!st || !(st.isFile || st.isSymlink)) {
        why = `${r} is ${st ? "a special file" : "gone"}`;
        return false;
      }
      bytes += st.size;
      out.push(r);
      if (out.length > COPY_LIMIT.files) why = `more than ${count(COPY_LIMIT.files)} files (COPY_LIMIT)`;
      else if (bytes > COPY_LIMIT.bytes) why = `more than ${COPY_LIMIT.bytes >> 20} MiB (COPY_LIMIT)`;
      if (why) return false;
    }
    return true;
  };
  try {
    return walk("") ? out : { why };
  } catch (e) {
    return { why: `unreadable (${(e as Error).name})` };
  }
}

export function sigAt(p: string): string | null {
  const st = lstat(p);
  return st && (st.isFile || st.isSymlink) ? signature(st, p) : null;
}

/**
 * Copies a regular file with its modification time, so the copy's signature is not racy (no hash needed)
 * and any write of the program's moves the time away from the source's.
 */
export function copyKeepingTime(from: string, to: string): void {
  Deno.copyFileSync(from, to);
  const st = Deno.statSync(from);
  if (st.mtime) Deno.utimeSync(to, st.atime ?? st.mtime, st.mtime);
}

/** Copies one file (a link as a link) from `from` to `to` through a temporary name beside it. */
function copyOne(from: string, to: string): void {
  const tmp = `${to}.arrow-sync`;
  Deno.mkdirSync(to.slice(0, to.lastIndexOf("/")), { recursive: true });
  if (Deno.lstatSync(from).isSymlink) Deno.symlinkSync(Deno.readLinkSync(from), tmp);
  else copyKeepingTime(from, tmp);
  Deno.renameSync(tmp, to);
}

/** Copies `src` into `dst` (links copied as links) and returns each file's signature there. */
export function copyLane(src: string, dst: string, files: string[]): Record<string, string> {
  const baseline: Record<string, string> = {};
  Deno.mkdirSync(dst, { recursive: true });
  for (const rel of files) {
    const from = `${src}/${rel}`;
    const to = `${dst}/${rel}`;
    Deno.mkdirSync(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    const st = Deno.lstatSync(from);
    if (st.isSymlink) Deno.symlinkSync(Deno.readLinkSync(from), to);
    else copyKeepingTime(from, to);
    baseline[rel] = signature(Deno.lstatSync(to), to);
  }
  return baseline;
}

/**
 * Brings a kept-in-step copy (a stream source's) up to date with its source, once its writes were read
 * (`shadowWrites`): what the owner wrote since is copied in, what the program wrote is replaced by the
 * source's version (or removed), and the baseline moves with it. Nothing of the source is changed.
 */
export function syncLane(shadow: Shadow): void {
  const { source, baseline, synced } = shadow;
  if (!source || !baseline || !synced) return;
  const now = new Map<string, string>();
  for (const rel of listFiles(source)) {
    const sig = sigAt(`${source}/${rel}`);
    if (sig !== null) now.set(rel, sig);
  }
  const named = shadow.named ?? new Set<string>();
  for (const [rel, sig] of now) {
    const to = `${shadow.dir}/${rel}`;
    const untouched = baseline[rel] === undefined ? lstat(to) === null : sigMatches(baseline[rel], to);
    // The program wrote it since the last look: left for the next look to name, put back after that.
    if (!untouched && !named.has(rel)) continue;
    if (untouched && (synced[rel] === sig || sigMatches(synced[rel], `${source}/${rel}`))) continue;
    try {
      Deno.removeSync(to, { recursive: true });
    } catch {
      // not there yet
    }
    try {
      copyOne(`${source}/${rel}`, to);
    } catch {
      continue; // gone since the listing: the next sync removes it
    }
    baseline[rel] = sigAt(to)!;
    synced[rel] = sig;
  }
  for (const rel of listFiles(shadow.dir)) {
    if (now.has(rel) || shadow.ignore.includes(rel)) continue;
    // Gone from the source: its copy goes too, unless the program's write there is still unnamed.
    if (!named.has(rel) && !sigMatches(baseline[rel], `${shadow.dir}/${rel}`)) continue;
    Deno.removeSync(`${shadow.dir}/${rel}`);
    delete baseline[rel];
    delete synced[rel];
  }
  for (const rel of Object.keys(baseline).filter((r) => !now.has(r))) {
    if (!named.has(rel) && lstat(`${shadow.dir}/${rel}`) !== null) continue;
    delete baseline[rel];
    delete synced[rel];
  }
  named.clear();
}

/** Where a file found in `shadow` stands, as evidence shows it. */
export function shadowPath(shadow: Shadow, rel: string): string {
  return shadow.shows ? `${shadow.shows}/${rel}` : rel;
}

/**
 * What landed in a shadow: any file of a plain shadow; in a copy of a read-only lane, a file that is new or
 * differs from its copied signature ("write") or is gone ("delete").
 */
export function shadowWrites(shadow: Shadow, at = Date.now()): { rel: string; op: "write" | "delete" }[] {
  const out: { rel: string; op: "write" | "delete" }[] = [];
  const seen = new Set<string>();
  for (const rel of listFiles(shadow.dir)) {
    if (shadow.ignore.includes(rel)) continue;
    seen.add(rel);
    const was = shadow.baseline?.[rel];
    const path = `${shadow.dir}/${rel}`;
    if (was !== undefined && sigMatches(was, path)) {
      // A copy recorded with its content's hash (recent at the copy) that is old now is kept as size and
      // times, so it is not hashed again at every look (a write from now on moves its times).
      if (was.includes("#")) {
        const st = lstat(path);
        const now = st ? signature(st, path, false, at) : was;
        if (!now.includes("#")) shadow.baseline![rel] = now;
      }
      continue;
    }
    out.push({ rel, op: "write" });
  }
  for (const rel of Object.keys(shadow.baseline ?? {})) {
    if (!seen.has(rel)) out.push({ rel, op: "delete" });
  }
  if (shadow.source) {
    shadow.named ??= new Set();
    for (const { rel } of out) shadow.named.add(rel);
  }
  return out.sort((a, b) => a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);
}
