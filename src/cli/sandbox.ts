/**
 * Picks the sandbox layers and workers for a run's mode: bubblewrap when it is installed and works (said
 * once when it does not), the built-in real workers on the real path, and the scenario's faults for it.
 *
 * @module
 */
import type { Fault } from "../graph/scenario.ts";
import type { Mode } from "../model/state.ts";
import { type BuiltinWorker, selfExec } from "../runtime/launch.ts";
import type { Resolved } from "./catalog.ts";
import { InputError } from "./errors.ts";

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

export interface SandboxSetup {
  bwrap: string | null;
  builtins: Record<string, BuiltinWorker>;
  faults: Fault[];
}

export async function sandboxSetup(mode: Mode, res: Resolved, quiet: boolean): Promise<SandboxSetup> {
  // Self-executed workers (a compiled binary) have no Deno permission layer, so bubblewrap stands in.
  const needsBwrap = selfExec() ||
    (res.plan.nodes.some((n) => n.worker?.type === "command") && mode !== "mock");
  const bwrap = needsBwrap ? await findBwrap() : null;
  if (needsBwrap && !bwrap && !quiet) {
    console.error(
      "note: bubblewrap (bwrap) is not available: command workers run unsandboxed; the fingerprint guard still watches every scope",
    );
  }
  if (mode === "mock") return { bwrap, builtins: {}, faults: res.faults };
  const real = await import("../../scripts/real/registry.ts").catch(() => undefined);
  if (!real) throw new InputError("arrow run: the real path is not available in this build");
  if (res.real?.skip) {
    throw new InputError(`arrow run: scenario ${res.name} has no real variant: ${res.real.skip}`);
  }
  for (const n of res.plan.nodes) {
    if (
      !n.worker && n.kind !== "reactive" && !["protocol", "harness", "analysis", "report"].includes(n.role)
    ) {
      throw new InputError(`arrow run --real: node ${n.id} has no worker: section to run on the real path`);
    }
  }
  return { bwrap, builtins: real.BUILTINS, faults: res.real?.faults ?? res.faults };
}
