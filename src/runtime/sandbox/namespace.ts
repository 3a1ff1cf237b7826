/**
 * A watch-only layout (layout.ts, `watchOnly`) rendered for a private mount namespace made with util-linux
 * `unshare`, for programs that run unconfined because bubblewrap is missing (--unsandboxed): /tmp, the top
 * level of $HOME and of the project directory, and the other runs are shadow directories Arrow inspects
 * after, exactly as it inspects bubblewrap's; everything else — what is bound back included — stays the
 * host's, writable. The namespace is made by a small `sh -c` script of `mount --bind` commands run before
 * the program in place of it (exec: the program keeps the pid, its group and its parent).
 *
 * @module
 */
import { type Layout, type Mount, planLayout, under } from "./layout.ts";
import type { Refusal, Shadow } from "./lanes.ts";

/** How to make a private mount namespace here, found once at start (`findUnshare`). */
export interface Unshare {
  /** unshare and its flags, up to and including `--`. */
  prefix: string[];
  /** Absolute paths of mount(8) and of a POSIX shell. */
  mount: string;
  sh: string;
  /**
   * As a normal user the namespace is made as root of a user namespace of its own: the unshare command
   * that maps the user back to itself once the mounts are made (so the program runs as who it is), or
   * null when that is not possible here (it then runs as that namespace's root).
   */
  remap: string[] | null;
}

/** The watch of one program: the argv prefix (the program's argv follows it), its shadows, its refusals. */
export interface Watched {
  prefix: string[];
  shadows: Shadow[];
  refusing: Refusal[];
}

const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** File descriptors a script may hold on covered directories (a POSIX shell redirects 0–9). */
const FDS = [3, 4, 5, 6, 7, 8, 9];

function lstat(p: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * The watch-only layout of `o` as an `unshare … sh -c <script>` prefix. Mount points (and the links of
 * watched directories) are made in the shadows here, on the host, before the start; the layout lists them
 * so they are never taken for writes. A directory about to be covered by its shadow is opened first, and
 * what is bound back in it is reached through that handle (`/proc/self/fd/N/…`): after the cover, its path
 * shows the shadow. The handles are closed before the program runs, so it holds no way around the shadows.
 */
export function watchLayout(u: Unshare, o: Layout): Watched {
  const { mounts, shadows, refusing } = planLayout({ ...o, watchOnly: true });
  for (const s of shadows) s.by = "namespace-shadow";
  const lines = ["set -e"];
  const covers: { at: string; fd: number }[] = [];
  const done: Extract<Mount, { from: string }>[] = [];
  // Where a path lands on the host: under the deepest mount made so far that holds it — the latest of
  // those made at one place (the other runs' shadow over the runs directory bound back in /tmp's).
  const hostPath = (p: string): string => {
    const c = done.filter((m) => m.at !== p && under(p, m.at)).reverse()
      .sort((a, b) => b.at.length - a.at.length)[0];
    return c ? c.from + p.slice(c.at.length) : p;
  };
  // A source as the host has it: through the handle of the deepest covered directory that holds it.
  const source = (p: string): string => {
    const c = covers.filter((x) => under(p, x.at) && p !== x.at).sort((a, b) => b.at.length - a.at.length)[0];
    return c ? `/proc/self/fd/${c.fd}${p.slice(c.at.length)}` : p;
  };
  for (const [i, m] of mounts.entries()) {
    if (m.op === "symlink") {
      const at = hostPath(m.at);
      if (!lstat(at)) Deno.symlinkSync(m.target, at);
      continue;
    }
    if (m.op !== "bind" && m.op !== "back") {
      throw new RangeError(`Cannot watch "${m.at}": a watch-only layout has no "${m.op}" mount`);
    }
    const st = lstat(m.from);
    if (m.op === "back") {
      if (!st) continue; // vanished since the listing: nothing to bind back
      const at = hostPath(m.at);
      if (!lstat(at)) {
        if (st.isDirectory) Deno.mkdirSync(at, { recursive: true });
        else Deno.writeFileSync(at, new Uint8Array());
      }
      // An entry of a shared directory may vanish before the mount: skipped, never a failed start.
      lines.push(`${q(u.mount)} -c --bind ${q(source(m.from))} ${q(m.at)} 2>/dev/null || :`);
    } else {
      // A covered directory whose entries are bound back later is opened before its cover.
      if (mounts.slice(i + 1).some((n) => "from" in n && n.from !== m.at && under(n.from, m.at))) {
        const fd = FDS[covers.length];
        if (fd === undefined) throw new RangeError(`Cannot watch "${m.at}": more than ${FDS.length} covers`);
        lines.push(`exec ${fd}<${q(m.at)}`);
        covers.push({ at: m.at, fd });
      }
      lines.push(
        `${q(u.mount)} -c --bind ${q(source(m.from))} ${q(m.at)} || ` +
          `{ echo ${q(`arrow: cannot watch ${m.at} (mount --bind failed)`)} >&2; exit 125; }`,
      );
    }
    done.push(m);
  }
  if (covers.length) lines.push(`exec ${covers.map((c) => `${c.fd}<&-`).join(" ")}`);
  // The start directory was reached before the mounts: entered again, it is the namespace's view of it.
  lines.push(`cd ${q(o.scope)} 2>/dev/null || :`);
  lines.push(u.remap ? `exec ${u.remap.map(q).join(" ")} "$@"` : `exec "$@"`);
  return { prefix: [...u.prefix, u.sh, "-c", lines.join("\n"), "arrow-watch"], shadows, refusing };
}

/**
 * Where the program `name` found on PATH really is, or null. Its real path: the script runs mount(8) after
 * /tmp is covered, so a PATH entry inside /tmp (a directory of links) would no longer reach it.
 */
function onPath(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    if (!dir.startsWith("/") || !lstat(`${dir}/${name}`)) continue;
    try {
      return Deno.realPathSync(`${dir}/${name}`);
    } catch {
      continue; // a dangling link
    }
  }
  return null;
}

let probed: Promise<Unshare | { why: string }> | undefined;

/**
 * How to make a watch-only mount namespace here, or why it cannot be made. Probed once per process: as
 * root `unshare --mount --propagation private`; as a normal user in a user namespace of its own
 * (`--user --map-root-user`), the user mapped back to itself after the mounts where that works.
 */
export function findUnshare(): Promise<Unshare | { why: string }> {
  return probed ??= probe();
}

async function probe(): Promise<Unshare | { why: string }> {
  const unshare = onPath("unshare");
  const mount = onPath("mount");
  const sh = ["/bin/sh", "/usr/bin/sh"].find((p) => lstat(p)) ?? null;
  if (!unshare || !mount || !sh) {
    return { why: `${!unshare ? "unshare" : !mount ? "mount" : "sh"} (util-linux) is not installed` };
  }
  const uid = Deno.uid() ?? 0;
  const flags = uid === 0
    ? ["--mount", "--propagation", "private"]
    : ["--user", "--map-root-user", "--mount", "--propagation", "private"];
  const prefix = [unshare, ...flags, "--"];
  const remap = uid === 0
    ? null
    : [unshare, "--user", `--map-user=${uid}`, `--map-group=${Deno.gid() ?? uid}`, "--"];
  const dir = await Deno.makeTempDir({ prefix: "arrow-unshare-probe-" });
  try {
    const tryRun = async (then: string[]) => {
      const script = `${q(mount)} -c --bind ${q(dir)} ${q(dir)} && exec "$@"`;
      const out = await new Deno.Command(prefix[0]!, {
        args: [...prefix.slice(1), sh, "-c", script, "arrow-probe", ...then],
        stdout: "null",
        stderr: "piped",
      }).output().catch((e) => ({ success: false, stderr: new TextEncoder().encode(String(e)) }));
      return out.success ? null : new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
    };
    const failed = await tryRun(["true"]);
    if (failed !== null) return { why: `unshare cannot make a mount namespace here (${failed || "failed"})` };
    const mapped = remap ? (await tryRun([...remap, "true"])) === null : false;
    return { prefix, mount, sh, remap: mapped ? remap : null };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
