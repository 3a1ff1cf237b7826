/**
 * The one builder of sandbox layouts: which host paths a program sees where, as a list of mounts (data) and
 * the shadow directories Arrow inspects after — rendered as bubblewrap arguments (bwrap.ts) or, watch-only,
 * as mount commands in a private mount namespace (namespace.ts).
 *
 * Confined (bubblewrap): the system and the program's own environment read-only (a venv, conda or pyenv
 * under $HOME keeps working), its inputs and its scope — not other nodes' scopes, not the run's state and
 * logs, not other runs, not secrets. No write is refused in silence where Arrow can give it somewhere to
 * land: the top level of $HOME, the project directory and the run's nodes/ are shadow directories, and the
 * run's own directory, other runs and hidden data directories are empty shadows (they look empty; a write
 * there is seen); /tmp is an empty shadow whatever the host's /tmp holds (only the entries the program needs
 * are bound back, so its cost and its start do not depend on /tmp); and the input scopes the program may
 * read — and the plan's directory, beside its runs or not — are copies in its shadow (lanes.ts), compared
 * after, so an edit of an input, of the harness or of an evaluator is seen and named while the original
 * stays untouched; a stream source's copy is kept in step with it every tick.
 *
 * Watch-only (`watchOnly`, an unconfined program where bubblewrap is missing): only the watched directories
 * (/tmp, the top level of $HOME and the project directory) and the runs directory's other runs are shadows,
 * everything bound back stays writable, nothing is hidden or copied but those shadows' small top-level files.
 *
 * Mounts are listed outer first, so a copy never covers what is mounted inside it. Missing mount points are
 * created inside the shadows; those are listed so they are never mistaken for writes.
 *
 * @module
 */
import { copyable, copyKeepingTime, copyLane, type Refusal, type Shadow, sigAt, signature } from "./lanes.ts";

/** Files and directories under $HOME that hold credentials: masked inside every confining sandbox. */
export const SECRETS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".netrc",
  ".config/gcloud",
  ".azure",
  ".kube",
  ".docker",
  ".git-credentials",
  ".pypirc",
  ".npmrc",
  ".config/gh",
  ".password-store",
];

export interface Layout {
  runDir: string;
  /** Directory holding other runs (hidden), when the run lives in one. */
  runsDir: string | null;
  scope: string;
  /** Scopes the program may read (its artifact ancestors and stream sources). */
  readable: string[];
  /** Writable extras: scratch directories and the fault log file. */
  writable: string[];
  /** Where this attempt's shadows live (one per attempt, so a restart is not blamed for an earlier one). */
  shadowRoot: string;
  /** Every scope of the plan, relative to nodes/ (mirrored empty in the nodes/ shadow). */
  scopes: readonly string[];
  /** Host directories whose top level is shadowed (/tmp, $HOME, the project directory). */
  watched: string[];
  /**
   * Watched directories shared with the whole machine (/tmp): their entries are never listed; only those
   * holding a path in `needed` are bound back.
   */
  lean?: string[];
  /** Host paths the program needs to see (its program files, PATH, Deno): bound back in a lean directory. */
  needed?: string[];
  /**
   * Read-only lanes given as copies (input scopes), so a write attempt lands in the copy and is seen. A lane
   * past COPY_LIMIT is bound read-only instead, and named in the result's `refusing` list.
   */
  copied?: string[];
  /**
   * Lanes still being written by their owner (stream sources), given as copies Arrow keeps in step with
   * them every tick (`syncLane`), so a write attempt into one lands in the copy and is seen too.
   */
  synced?: string[];
  home: string | null;
  /**
   * Read-only everywhere, scope included (acceptance commands, evaluators, tree recomputations); no input
   * is copied, but `watched` directories are still shadows when given.
   */
  readOnly?: boolean;
  /**
   * With `readOnly`: the scope is given as a copy (within COPY_LIMIT), compared after, so a check that
   * writes the scope it judges is seen; past the limit it is bound read-only and named in `refusing`.
   */
  copyScope?: boolean;
  /** More host paths hidden like the run: a directory behind an empty shadow, a file behind /dev/null. */
  masked?: string[];
  /**
   * Watch, never confine: only the watched directories and the other runs (the runs directory, as a lean
   * shadow holding this run) are shadows, and what is bound back in them stays writable.
   */
  watchOnly?: boolean;
}

/**
 * One mount of a layout, where it lands (`at`) and what it shows: `bind` a shadow, copy or lane there,
 * writable; `ro-bind` read-only; `back` a host entry bound back at its own path inside its watched
 * directory's shadow (read-only when confined; it may vanish before the start); `symlink` a link;
 * `dir` an empty directory.
 */
export type Mount =
  | { at: string; op: "bind" | "ro-bind" | "back"; from: string }
  | { at: string; op: "symlink"; target: string }
  | { at: string; op: "dir" };

export interface Planned {
  /** Outer first (stable among equals). */
  mounts: Mount[];
  shadows: Shadow[];
  /** Lanes left read-only binds (too large to copy, or a directory with too many entries). */
  refusing: Refusal[];
}

/** Most entries a watched directory may have to be shadowed (each is bound back one by one). */
export const MAX_SHADOWED_ENTRIES = 400;

/**
 * Top-level regular files of a watched directory ($HOME, the project directory) given as copies in its
 * shadow, so an edit of `~/.bashrc` or `<project>/evaluate.py` lands there and is seen: each at most
 * `file` bytes, at most `files` of them and `bytes` in all per directory. Larger ones stay binds.
 */
export const TOP_COPY = { files: 200, bytes: 8 << 20, file: 1 << 20 };

function lstat(p: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(p);
  } catch {
    return null;
  }
}

function readLink(p: string): string | null {
  try {
    return Deno.readLinkSync(p);
  } catch {
    return null;
  }
}

export const under = (p: string, dir: string) =>
  p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");

/** The top-level entries of `dir` that hold one of `paths` (or are one). */
function holders(dir: string, paths: readonly string[]): string[] {
  const names = new Set<string>();
  for (const p of paths) {
    if (!under(p, dir) || p === dir) continue;
    names.add(p.slice(dir.length + 1).split("/")[0]!);
  }
  return [...names].sort();
}

/** Number of path components: mounts are made outer first, so an inner one is never covered. */
const depth = (p: string) => p.split("/").filter(Boolean).length;

/**
 * The mounts of a layout, the shadows to inspect, and the lanes left refusing. Mounts are collected with
 * where they land and returned outer first (stable among equals), so a lane that holds other mounts (a plan
 * directory holding the runs) is mounted before them and never covers them.
 */
export function planLayout(o: Layout): Planned {
  const mounts: Mount[] = [];
  const shadows: Shadow[] = [];
  const refusing: Refusal[] = [];
  const watch = o.watchOnly === true;
  const secrets = o.home && !watch ? SECRETS.map((s) => `${o.home}/${s}`) : [];
  const hidden = watch ? [] : [o.runDir, ...(o.masked ?? [])];
  const otherRuns = o.runsDir && under(o.runDir, o.runsDir) && o.runsDir !== o.runDir ? o.runsDir : null;
  if (otherRuns && !watch) hidden.push(otherRuns);
  // Hidden files (a secret such as ~/.netrc) are empty writable files of their own (below): a watched
  // directory's shadow binds nothing of theirs back.
  const hiddenFiles = new Set([...secrets, ...hidden].filter((p) => p !== o.runDir && lstat(p)?.isFile));
  // Read-only lanes given as copies. A lane may hold the run or other mounts (a plan directory beside its
  // runs/): those subtrees are left out of the copy, mounted over it as usual.
  const synced = new Set(o.readOnly || watch ? [] : o.synced ?? []);
  const copied = new Set(o.readOnly || watch ? [] : [...o.copied ?? [], ...synced]);
  // Watch-only, the other runs are watched like /tmp: an empty shadow where only this run is bound back.
  const lean = new Set([...o.lean ?? [], ...(watch && otherRuns ? [otherRuns] : [])]);
  const watched = [...new Set([...o.watched, ...(watch && otherRuns ? [otherRuns] : [])])]
    .filter((d) => d !== "/" && lstat(d)?.isDirectory)
    .sort((a, b) => a.length - b.length);
  const lanes = new Map<string, string[] | { why: string }>();
  for (const r of o.readable) {
    if (r === o.scope || !copied.has(r)) continue;
    const skip = [...hidden, ...secrets, ...watched, ...o.writable, o.scope, o.shadowRoot]
      .filter((x) => x !== r && under(x, r));
    lanes.set(r, copyable(r, skip));
  }
  for (const d of watched) {
    // A watched directory that is itself a copied lane (the plan's directory as the project directory)
    // is observed by its copy, file by file, instead of by a top-level shadow.
    if (Array.isArray(lanes.get(d))) continue;
    // A shared directory (/tmp) is never listed: its size, and entries vanishing under a busy machine,
    // must not change what a start costs or whether it succeeds.
    const names = lean.has(d)
      ? holders(d, [...(o.needed ?? []), o.runDir, o.scope, ...o.readable, ...o.writable, ...watched])
      : [...Deno.readDirSync(d)].map((e) => e.name);
    // Each entry bound back is a mount: past a few hundred, the directory stays as it is instead
    // (a write there is refused when confined, not caught in a shadow).
    if (names.length > MAX_SHADOWED_ENTRIES) {
      refusing.push({
        path: d,
        why: `${names.length} entries, more than ${MAX_SHADOWED_ENTRIES} (MAX_SHADOWED_ENTRIES)`,
      });
      continue;
    }
    shadows.push(watchedShadow(o, d, names, lean.has(d), hiddenFiles, mounts));
  }
  if (!watch) {
    confine(o, { mounts, shadows, refusing }, { lanes, secrets, hidden, hiddenFiles, synced, watched });
  }
  const sorted = mounts.map((m, i) => ({ m, i })).sort((a, b) => depth(a.m.at) - depth(b.m.at) || a.i - b.i);
  return { mounts: sorted.map((x) => x.m), shadows, refusing };
}

/** A watched directory's shadow: its entries bound back (small top-level files as copies), mounted over it. */
function watchedShadow(
  o: Layout,
  d: string,
  names: string[],
  lean: boolean,
  hiddenFiles: Set<string>,
  mounts: Mount[],
): Shadow {
  const dir = `${o.shadowRoot}/host${d.replaceAll("/", "_")}`;
  Deno.mkdirSync(dir, { recursive: true });
  mounts.push({ at: d, op: "bind", from: dir });
  const ignore: string[] = [];
  const baseline: Record<string, string> = {};
  let copies = 0;
  let bytes = 0;
  // Anyone may remove an entry of a shared directory between this listing and the mounts: a vanished
  // entry is skipped (`back` may fail), never a failed start.
  for (const name of names) {
    const p = `${d}/${name}`;
    const st = lstat(p);
    if (hiddenFiles.has(p)) {
      ignore.push(name); // its mount point: the empty file of its own is bound there
      continue;
    }
    // A small regular file of a directory that is not shared is a copy: an edit lands in it, is seen.
    const small = st?.isFile && !lean && st.size <= TOP_COPY.file &&
      copies < TOP_COPY.files && bytes + st.size <= TOP_COPY.bytes;
    if (small && copyTop(p, `${dir}/${name}`, baseline, name)) {
      copies++;
      bytes += st.size;
      continue;
    }
    if (st?.isSymlink) {
      const target = readLink(p);
      if (target === null) continue;
      mounts.push({ at: p, op: "symlink", target });
    } else if (st || !lean) mounts.push({ at: p, op: "back", from: p });
    else continue;
    ignore.push(name);
  }
  return { dir, shows: d, ignore, ...(copies ? { baseline } : {}) };
}

/** What a confining layout adds to the watched shadows: hidden paths, nodes/, lanes, the scope. */
function confine(
  o: Layout,
  out: { mounts: Mount[]; shadows: Shadow[]; refusing: Refusal[] },
  c: {
    lanes: Map<string, string[] | { why: string }>;
    secrets: string[];
    hidden: string[];
    hiddenFiles: Set<string>;
    synced: Set<string>;
    watched: string[];
  },
): void {
  const { mounts, shadows, refusing } = out;
  // Shadows whose mount points inside (made by the sandbox) are listed once every mount is known.
  const inspected: { at: string; shadow: Shadow }[] = [];
  // A lane given as a copy standing where it is: the program reads the same bytes, what it writes stays.
  const laneCopy = (r: string, files: string[]): Shadow => {
    const rel = under(r, `${o.runDir}/nodes`)
      ? r.slice(o.runDir.length + 1)
      : `host${r.replaceAll("/", "_")}`;
    const dir = `${o.shadowRoot}/lanes/${rel}`;
    const baseline = copyLane(r, dir, files);
    mounts.push({ at: r, op: "bind", from: dir });
    const shows = under(r, o.runDir) ? r.slice(o.runDir.length + 1) : r;
    const shadow: Shadow = { dir, shows, ignore: [], baseline };
    shadows.push(shadow);
    return shadow;
  };
  // Outer first, so an inner hiding (the run inside a hidden data directory) is not undone. A hidden
  // directory (a secret one under $HOME too) looks empty; what a program writes there lands in a shadow of
  // its own and is seen.
  const hiding = [...new Set([...c.secrets, ...c.hidden])].sort((a, b) => a.length - b.length);
  for (const d of hiding) {
    const st = d === o.runDir ? null : lstat(d);
    if (c.hiddenFiles.has(d)) {
      shadows.push(emptyFile(d, `${o.shadowRoot}/hidden/file${d.replaceAll("/", "_")}`, mounts));
      continue;
    }
    if (d !== o.runDir && !st?.isDirectory) {
      if (st) mounts.push({ at: d, op: "ro-bind", from: "/dev/null" });
      continue;
    }
    const dir = `${o.shadowRoot}/hidden/${d === o.runDir ? "run" : `host${d.replaceAll("/", "_")}`}`;
    Deno.mkdirSync(dir, { recursive: true });
    mounts.push({ at: d, op: "bind", from: dir });
    const shadow: Shadow = { dir, shows: under(d, o.runDir) ? d.slice(o.runDir.length + 1) : d, ignore: [] };
    inspected.push({ at: d, shadow });
    shadows.push(shadow);
  }
  const nodes = `${o.shadowRoot}/nodes`;
  if (o.readOnly) {
    mounts.push({ at: `${o.runDir}/nodes`, op: "dir" });
  } else if (o.scopes.length > 0) {
    for (const s of o.scopes) Deno.mkdirSync(`${nodes}/${s}`, { recursive: true });
    mounts.push({ at: `${o.runDir}/nodes`, op: "bind", from: nodes });
    shadows.push({ dir: nodes, shows: "nodes", ignore: [] });
  }
  for (const r of o.readable) {
    if (r === o.scope) continue;
    const files = c.lanes.get(r);
    if (!Array.isArray(files)) {
      if (files) refusing.push({ path: r, why: files.why });
      // A watched directory keeps its top-level shadow: a read-only bind would cover it.
      if (o.readOnly || !c.watched.includes(r)) mounts.push({ at: r, op: "ro-bind", from: r });
      continue;
    }
    const shadow = laneCopy(r, files);
    if (c.synced.has(r)) {
      shadow.source = r;
      shadow.synced = Object.fromEntries(files.map((f) => [f, sigAt(`${r}/${f}`)!]));
    }
    inspected.push({ at: r, shadow });
  }
  // A read-only check's scope as a copy, so a write to what it judges is seen; otherwise a bind.
  const own = o.readOnly && o.copyScope ? copyable(o.scope, [...o.writable, o.shadowRoot]) : null;
  if (Array.isArray(own)) inspected.push({ at: o.scope, shadow: laneCopy(o.scope, own) });
  else {
    if (own) refusing.push({ path: o.scope, why: own.why });
    mounts.push({ at: o.scope, op: o.readOnly ? "ro-bind" : "bind", from: o.scope });
  }
  for (const w of o.writable) mounts.push({ at: w, op: "bind", from: w });
  // What the sandbox mounts inside a copy or a hidden directory (the runs in a plan directory, the run's
  // nodes/ and scratch) it creates there first: never a write of the program's.
  for (const { at, shadow } of inspected) {
    shadow.ignore = mounts.filter((m) => m.at !== at && under(m.at, at)).map((m) =>
      m.at.slice(at.length + 1)
    );
  }
}

/** Copies a top-level file into a watched directory's shadow; false when it vanished meanwhile. */
function copyTop(from: string, to: string, baseline: Record<string, string>, name: string): boolean {
  try {
    copyKeepingTime(from, to);
    baseline[name] = signature(Deno.lstatSync(to), to);
    return true;
  } catch {
    return false;
  }
}

/**
 * A hidden file (a secret such as ~/.netrc) as an empty writable file of its own: the program sees nothing
 * of the original, and what it writes there is seen (the shadow's one file no longer matches its baseline).
 */
function emptyFile(path: string, dir: string, mounts: Mount[]): Shadow {
  const name = path.slice(path.lastIndexOf("/") + 1);
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeFileSync(`${dir}/${name}`, new Uint8Array());
  mounts.push({ at: path, op: "bind", from: `${dir}/${name}` });
  return {
    dir,
    shows: path.slice(0, path.lastIndexOf("/")),
    ignore: [],
    baseline: { [name]: signature(Deno.lstatSync(`${dir}/${name}`), `${dir}/${name}`) },
  };
}
