/**
 * The shadows a sandboxed program writes into and the read-only lanes it is given as copies (layout.ts lays
 * them out): what is copied, the signature each copied file is compared by, how a copy of a lane still being
 * written (a stream source) is kept in step with it, and what landed in a shadow (`shadowWrites`).
 *
 * @module
 */
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
   * For a copy of a read-only lane: each file's signature (`size:mtime`) as copied. A file that differs,
   * appears or disappears is a write attempt; for other shadows any file is one.
   */
  baseline?: Record<string, string>;
  /**
   * For a copy kept in step with a lane still being written (a stream source): the host directory, and each
   * file's signature there as last copied. `syncLane` brings the copy up to date after it is inspected.
   */
  source?: string;
  synced?: Record<string, string>;
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

/** The signature a copied file is compared by: size and modification time. */
export function signature(st: Deno.FileInfo): string {
  return `${st.size}:${st.mtime?.getTime() ?? 0}`;
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
  return st && (st.isFile || st.isSymlink) ? signature(st) : null;
}

/** Copies one file (a link as a link) from `from` to `to` through a temporary name beside it. */
function copyOne(from: string, to: string): void {
  const tmp = `${to}.arrow-sync`;
  Deno.mkdirSync(to.slice(0, to.lastIndexOf("/")), { recursive: true });
  if (Deno.lstatSync(from).isSymlink) Deno.symlinkSync(Deno.readLinkSync(from), tmp);
  else Deno.copyFileSync(from, tmp);
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
    else Deno.copyFileSync(from, to);
    baseline[rel] = signature(Deno.lstatSync(to));
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
  for (const [rel, sig] of now) {
    const to = `${shadow.dir}/${rel}`;
    if (synced[rel] === sig && sigAt(to) === baseline[rel]) continue;
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
    Deno.removeSync(`${shadow.dir}/${rel}`);
    delete baseline[rel];
    delete synced[rel];
  }
  for (const rel of Object.keys(baseline).filter((r) => !now.has(r))) {
    delete baseline[rel];
    delete synced[rel];
  }
}

/** Where a file found in `shadow` stands, as evidence shows it. */
export function shadowPath(shadow: Shadow, rel: string): string {
  return shadow.shows ? `${shadow.shows}/${rel}` : rel;
}

/**
 * What landed in a shadow: any file of a plain shadow; in a copy of a read-only lane, a file that is new or
 * differs from its copied signature ("write") or is gone ("delete").
 */
export function shadowWrites(shadow: Shadow): { rel: string; op: "write" | "delete" }[] {
  const out: { rel: string; op: "write" | "delete" }[] = [];
  const seen = new Set<string>();
  for (const rel of listFiles(shadow.dir)) {
    if (shadow.ignore.includes(rel)) continue;
    seen.add(rel);
    const was = shadow.baseline?.[rel];
    if (was !== undefined) {
      let now: string | null = null;
      try {
        now = signature(Deno.lstatSync(`${shadow.dir}/${rel}`));
      } catch {
        // removed since the listing: reported as gone below
      }
      if (now === was) continue;
    }
    out.push({ rel, op: "write" });
  }
  for (const rel of Object.keys(shadow.baseline ?? {})) {
    if (!seen.has(rel)) out.push({ rel, op: "delete" });
  }
  return out.sort((a, b) => a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);
}
