/**
 * A sandbox layout (layout.ts) rendered as bubblewrap arguments: the system read-only, the layout's mounts
 * over it, no network, a new session and pid namespace. bubblewrap resolves bind sources on the host and
 * creates missing mount points inside the shadows, which the layout lists so they are never mistaken for
 * writes.
 *
 * @module
 */
import { type Layout, type Mount, planLayout } from "./layout.ts";
import type { Refusal, Shadow } from "./lanes.ts";

export { MAX_SHADOWED_ENTRIES, planLayout, SECRETS, TOP_COPY } from "./layout.ts";
export type { Layout, Mount } from "./layout.ts";
export {
  COPY_LIMIT,
  type Refusal,
  type Shadow,
  shadowPath,
  shadowWrites,
  sigMatches,
  signature,
  syncLane,
} from "./lanes.ts";

/** One mount as bubblewrap arguments: an entry bound back may vanish before bwrap runs (`-try`). */
function bwrapArgs(m: Mount): string[] {
  switch (m.op) {
    case "bind":
      return ["--bind", m.from, m.at];
    case "ro-bind":
      return ["--ro-bind", m.from, m.at];
    case "back":
      return ["--ro-bind-try", m.from, m.at];
    case "symlink":
      return ["--symlink", m.target, m.at];
    case "dir":
      return ["--dir", m.at];
  }
}

/** bubblewrap arguments (everything before `--`), the shadows to inspect, and the lanes left refusing. */
export function bwrapLayout(o: Layout): { args: string[]; shadows: Shadow[]; refusing: Refusal[] } {
  const { mounts, shadows, refusing } = planLayout(o);
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const m of mounts) args.push(...bwrapArgs(m));
  args.push("--unshare-all", "--die-with-parent", "--new-session", "--chdir", o.scope);
  return { args, shadows, refusing };
}

let probed: string | null | undefined;

/** Path of a working bwrap, or null. Probed once per process. */
export async function findBwrap(): Promise<string | null> {
  if (probed !== undefined) return probed;
  probed = null;
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin").split(":")) {
    const p = `${dir}/bwrap`;
    try {
      Deno.statSync(p);
    } catch {
      continue;
    }
    const out = await new Deno.Command(p, {
      args: [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-all",
        "--die-with-parent",
        "--",
        "true",
      ],
      stdout: "null",
      stderr: "null",
    }).output().catch(() => ({ code: 1 }));
    if (out.code === 0) probed = p;
    break;
  }
  return probed;
}
