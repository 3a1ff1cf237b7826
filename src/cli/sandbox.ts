/**
 * Picks the sandbox layers and workers for a run's mode: bubblewrap when it is installed and works, the
 * built-in real workers on the real path, and the scenario's faults for the mode — each fault checked to
 * be one its node's worker can act out. A program that would run with no sandbox layer at all is refused
 * unless the user says --unsandboxed; it is then watched in a mount namespace where one can be made (and the
 * user told once when none can: writes to /tmp, $HOME and other runs then go unobserved).
 *
 * @module
 */
import { formatDiagnostic } from "../graph/load.ts";
import { faultProblems } from "../graph/fault_support.ts";
import { expandSweeps } from "../graph/sweep_expand.ts";
import type { Fault } from "../graph/scenario.ts";
import type { Mode } from "../model/state.ts";
import { findBwrap, findUnshare, type Unshare } from "../runtime/sandbox/mod.ts";
import { type BuiltinWorker, selfExec } from "../runtime/backend/mod.ts";

export { findBwrap };
import type { Resolved } from "./catalog.ts";
import { InputError } from "./errors.ts";

export interface SandboxSetup {
  bwrap: string | null;
  builtins: Record<string, BuiltinWorker>;
  faults: Fault[];
  unsandboxed: boolean;
  /**
   * Unconfined (--unsandboxed without bubblewrap), how the user's programs are watched in a mount namespace
   * of their own; null when none can be made here (or none is needed).
   */
  watch: Unshare | null;
  /** The user's programs run unconfined and no namespace can watch them: their writes outside go unseen. */
  unwatched: boolean;
}

export const INSTALL_BWRAP =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";

export async function sandboxSetup(
  mode: Mode,
  res: Resolved,
  quiet: boolean,
  unsandboxed = false,
): Promise<SandboxSetup> {
  const programs = mode !== "mock"
    ? res.plan.nodes.filter((n) =>
      n.worker?.type === "command" || (mode === "live" && n.worker?.type === "agent")
    )
    : [];
  const agents = mode !== "live" ? res.plan.nodes.filter((n) => n.worker?.type === "agent") : [];
  if (mode === "real" && agents.length) {
    throw new InputError(
      `arrow run: node ${
        agents[0]!.id
      } is an LLM agent (worker: {type: agent}); agents run on the live path: ` +
        `arrow run <plan> --live (see arrow run --help)`,
    );
  }
  // Self-executed workers (a compiled binary) have no Deno permission layer, so bubblewrap stands in.
  const needsBwrap = selfExec() || programs.length > 0;
  const bwrap = needsBwrap ? await findBwrap() : null;
  if (programs.length && !bwrap && !unsandboxed) {
    throw new InputError(
      `arrow run: ${programs.map((n) => n.id).join(", ")} run${
        programs.length === 1 ? "s" : ""
      } a program of ` +
        `yours, and bubblewrap is not available to sandbox it`,
      [`${INSTALL_BWRAP}, or pass --unsandboxed to run it without any sandbox (it can then touch anything you can)`],
    );
  }
  const probe = programs.length && !bwrap && unsandboxed ? await findUnshare() : null;
  const watch = probe && !("why" in probe) ? probe : null;
  if (needsBwrap && !bwrap && !quiet) {
    console.error(
      unsandboxed
        ? "note: --unsandboxed: programs run without a sandbox layer, one at a time; the fingerprint guard still " +
          "watches every scope" + (watch
            ? ", and a mount namespace of each program's own watches /tmp, $HOME and other runs"
            : probe && "why" in probe
            ? `; writes to /tmp, $HOME and other runs are unobserved: ${probe.why}`
            : "")
        : "note: bubblewrap (bwrap) is not available; built-in workers run without their sandbox layer",
    );
  }
  let builtins: Record<string, BuiltinWorker> = {};
  let faults = res.faults;
  let pos = res.faultPos;
  if (mode !== "mock") {
    const real = await import("../workers/real/registry.ts").catch(() => undefined);
    if (!real) throw new InputError("arrow run: the real path is not available in this build");
    if (res.real?.skip) {
      throw new InputError(`arrow run: scenario ${res.name} has no real variant: ${res.real.skip}`);
    }
    for (const n of res.plan.nodes) {
      // On the live path a node without a worker plays its mock part (arrow run --live --node N3).
      const bare = !n.worker && n.kind !== "reactive" &&
        !["protocol", "harness", "analysis", "report"].includes(n.role);
      if (bare && mode === "real") {
        throw new InputError(`arrow run --real: node ${n.id} has no worker: section to run on the real path`);
      }
      if (n.worker?.type === "builtin" && !real.BUILTINS[n.worker.name]) {
        throw new InputError(
          `arrow run --real: node ${n.id} names an unknown built-in worker "${n.worker.name}" (built in: ${
            Object.keys(real.BUILTINS).join(", ")
          })`,
        );
      }
    }
    builtins = real.BUILTINS;
    if (res.real?.faults) [faults, pos] = [res.real.faults, res.realFaultPos];
  }
  const supported = Object.fromEntries(Object.entries(builtins).map(([k, b]) => [k, b.faults ?? []]));
  const bad = faultProblems(expandSweeps(res.plan), faults, pos, res.faultFile, mode, supported);
  if (bad.length) {
    throw new InputError(
      `arrow run: ${res.faultFile} aims faults where they cannot take effect:`,
      bad.map(formatDiagnostic),
    );
  }
  return { bwrap, builtins, faults, unsandboxed, watch, unwatched: probe !== null && "why" in probe };
}
