/**
 * The bubblewrap layout a sandboxed program runs in. It sees the system and its own program's environment
 * read-only (a venv, conda or pyenv under $HOME keeps working), its inputs read-only and its scope
 * read-write — not other nodes' scopes, not the run's state and logs, not other runs, not secrets, no
 * network. A write elsewhere is refused (read-only filesystem) or, at the top level of /tmp, $HOME, the
 * project directory and the run's nodes/, lands in a shadow directory Arrow inspects, so it is seen and
 * named. bubblewrap resolves bind sources on the host and creates missing mount points inside the
 * shadows; those mount points are listed so they are never mistaken for writes.
 *
 * @module
 */

/** A shadow directory standing in for a host directory inside the sandbox. */
export interface Shadow {
  /** Host directory that receives stray writes. */
  dir: string;
  /** The path it stands for, as evidence shows it (run-relative for the run's nodes/, else absolute). */
  shows: string;
  /** Entries bubblewrap itself created in it (mount points of what is bound back): never a write. */
  ignore: string[];
}

/** Files and directories under $HOME that hold credentials: masked inside every sandbox. */
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
  home: string | null;
  /** Read-only everywhere, scope included (acceptance commands and evaluators). */
  readOnly?: boolean;
}

/** Most entries a watched directory may have to be shadowed (each is bound back one by one). */
export const MAX_SHADOWED_ENTRIES = 400;

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

const under = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");

/** bubblewrap arguments (everything before `--`) and the shadows to inspect. */
export function bwrapLayout(o: Layout): { args: string[]; shadows: Shadow[] } {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  const shadows: Shadow[] = [];
  const watched = [...new Set(o.watched)].filter((d) => d !== "/" && lstat(d)?.isDirectory)
    .sort((a, b) => a.length - b.length);
  if (!o.readOnly) {
    for (const d of watched) {
      const entries = [...Deno.readDirSync(d)];
      // Each entry bound back is a mount: past a few hundred, the directory stays read-only instead
      // (a write there is refused, not caught in a shadow).
      if (entries.length > MAX_SHADOWED_ENTRIES) continue;
      const tag = d.replaceAll("/", "_");
      const dir = `${o.shadowRoot}/host${tag}`;
      Deno.mkdirSync(dir, { recursive: true });
      args.push("--bind", dir, d);
      const ignore: string[] = [];
      // Anyone may remove an entry of a shared directory such as /tmp between this listing and bwrap's
      // mounts: a vanished entry is skipped (--ro-bind-try), never a failed start.
      for (const e of entries) {
        const p = `${d}/${e.name}`;
        if (e.isSymlink) {
          const target = readLink(p);
          if (target === null) continue;
          args.push("--symlink", target, p);
        } else args.push("--ro-bind-try", p, p);
        ignore.push(e.name);
      }
      shadows.push({ dir, shows: d, ignore });
    }
  }
  for (const s of SECRETS) {
    if (!o.home) break;
    const p = `${o.home}/${s}`;
    const st = lstat(p);
    if (st?.isDirectory) args.push("--tmpfs", p);
    else if (st) args.push("--ro-bind", "/dev/null", p);
  }
  if (o.runsDir && under(o.runDir, o.runsDir) && o.runsDir !== o.runDir) args.push("--tmpfs", o.runsDir);
  args.push("--tmpfs", o.runDir);
  if (o.readOnly) {
    args.push("--dir", `${o.runDir}/nodes`);
  } else {
    const nodes = `${o.shadowRoot}/nodes`;
    for (const s of o.scopes) Deno.mkdirSync(`${nodes}/${s}`, { recursive: true });
    args.push("--bind", nodes, `${o.runDir}/nodes`);
    shadows.push({ dir: nodes, shows: "nodes", ignore: [] });
  }
  for (const r of o.readable) if (r !== o.scope) args.push("--ro-bind", r, r);
  args.push(o.readOnly ? "--ro-bind" : "--bind", o.scope, o.scope);
  for (const w of o.writable) args.push("--bind", w, w);
  args.push("--unshare-all", "--die-with-parent", "--new-session", "--chdir", o.scope);
  return { args, shadows };
}
