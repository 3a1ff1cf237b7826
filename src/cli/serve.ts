/**
 * `arrow serve`: the dashboard over a runs directory — every run, live or finished, opened in the browser
 * with its task graph, incident stream, metric curves, anytime report and a replay player.
 *
 * @module
 */
import { isAlive } from "../runtime/proc.ts";
import { DEFAULT_HOST, exposureWarning, listen, type Served, type ServeOptions } from "../server/listen.ts";
import { intFlag, parse } from "./args.ts";
import { InputError } from "./errors.ts";

export const DEFAULT_PORT = 8765;

export const help = `Usage: arrow serve [--port N] [--runs-dir D] [--host H]

Serves the dashboard: lists the runs in the runs directory (live and finished) and opens any of them —
the task graph coloured by status, the incident stream with its evidence, a plain-language narration,
metric curves against the baseline, the anytime report, and a replay player that pauses on the incidents
that matter. Live runs (an arrow run in another terminal) update as they go. Read-only: it changes nothing.

Options:
  --port <n>        Port (default ${DEFAULT_PORT}; 0 picks a free one)
  --runs-dir <dir>  Where the run directories are (default ./runs)
  --host <addr>     Bind address (default ${DEFAULT_HOST}; anything else lets others read your runs)
  -h, --help

Stop it with Ctrl-C.`;

/** Starts the dashboard, turning socket errors into one-line input errors and warning about exposure. */
export function startDashboard(opts: ServeOptions, cmd: string): Served {
  const host = opts.host ?? DEFAULT_HOST;
  const warning = exposureWarning(host);
  if (warning) console.error(warning);
  try {
    return listen({ alive: isAlive, ...opts });
  } catch (e) {
    // Binding is all listen() does that can fail: a taken port, a bad port or an address we cannot use.
    if (e instanceof Deno.errors.AddrInUse) {
      throw new InputError(
        `arrow ${cmd}: port ${opts.port} is already in use (pick another with --port, or 0)`,
      );
    }
    throw new InputError(`arrow ${cmd}: cannot listen on ${host} port ${opts.port}: ${(e as Error).message}`);
  }
}

/** Resolves on the first Ctrl-C (or SIGTERM). */
export function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const sigs: Deno.Signal[] = ["SIGINT", "SIGTERM"];
    const done = () => {
      for (const s of sigs) Deno.removeSignalListener(s, done);
      resolve();
    };
    for (const s of sigs) Deno.addSignalListener(s, done);
  });
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parse("serve", argv, {
    port: { type: "string" },
    "runs-dir": { type: "string" },
    host: { type: "string" },
  }, 0);
  const port = intFlag("serve", "port", values.port, 0, DEFAULT_PORT);
  if (port > 65535) throw new InputError(`arrow serve: --port must be at most 65535, got ${port}`);
  const given = (values["runs-dir"] as string | undefined) ?? "runs";
  let runsDir: string;
  try {
    runsDir = Deno.realPathSync(given);
  } catch {
    throw new InputError(
      `arrow serve: no runs directory at ${given}`,
      ["start a run first (arrow run --scenario green) or point --runs-dir at one"],
    );
  }
  if (!Deno.statSync(runsDir).isDirectory) throw new InputError(`arrow serve: ${given} is not a directory`);
  const served = startDashboard({ runsDir, port, host: values.host as string | undefined }, "serve");
  // Listen for Ctrl-C before telling anyone where we are, so an early Ctrl-C still stops cleanly.
  const interrupted = untilInterrupted();
  console.log(`arrow serve: ${served.url}  (runs in ${runsDir}; Ctrl-C to stop)`);
  await interrupted;
  await served.close();
  return 0;
}
