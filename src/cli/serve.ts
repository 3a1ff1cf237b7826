/**
 * `arrow serve`: the dashboard over a runs directory — every run, live or finished, opened in the browser
 * with its task graph, incident stream, metric curves, anytime report and a replay player.
 *
 * @module
 */
import { isAlive } from "../runtime/proc/mod.ts";
import { DEFAULT_HOST, exposureWarning, listen, type Served, type ServeOptions } from "../server/listen.ts";
import { intFlag, parse } from "./args.ts";
import { InputError, UsageError } from "./errors.ts";
import { printable } from "./escape.ts";

export const DEFAULT_PORT = 8765;

export const help = `Usage: arrow serve [--port N] [--runs-dir D] [--host H] [--token T] [--allow-host NAME]

Serves the dashboard: lists the runs in the runs directory (live and finished) and opens any of them —
the task graph coloured by status, the incident stream with its evidence, a plain-language narration,
metric curves against the baseline, the anytime report, and a replay player that pauses on the incidents
that matter. Live runs (an arrow run in another terminal) update as they go. Read-only: it changes nothing.

Options:
  --port <n>           Port (default ${DEFAULT_PORT}; 0 picks a free one)
  --runs-dir <dir>     Where the run directories are (default ./runs)
  --host <addr>        Bind address (default ${DEFAULT_HOST}). Any other address is reachable by others, so
                       an access token is then required: one is generated and printed once, in the link
  --token <t>          Require this access token (at least 16 characters) on every request
  --no-token           Beyond loopback, rely on --allow-host alone (no token)
  --allow-host <name>  Host name requests may be addressed to (repeatable); others get 403
  -h, --help

Stop it with Ctrl-C.`;

/** Starts the dashboard, turning socket and access errors into one-line input errors; warns about exposure. */
export function startDashboard(opts: ServeOptions, cmd: string): Served {
  const host = opts.host ?? DEFAULT_HOST;
  let served: Served;
  try {
    served = listen({ alive: isAlive, ...opts });
  } catch (e) {
    if (e instanceof RangeError) {
      throw new InputError(`arrow ${cmd}: ${e.message}`, [
        "drop --no-token, or name the hosts with --allow-host",
      ]);
    }
    // Binding is all listen() does that can fail otherwise: a taken port, a bad port or an unusable address.
    if (e instanceof Deno.errors.AddrInUse) {
      throw new InputError(
        `arrow ${cmd}: port ${opts.port} is already in use (pick another with --port, or 0)`,
      );
    }
    throw new InputError(
      `arrow ${cmd}: cannot listen on ${printable(host)} port ${opts.port}: ${
        printable((e as Error).message)
      }`,
    );
  }
  const warning = exposureWarning(host, served.token);
  if (warning) console.error(printable(warning));
  return served;
}

/** The --token, --no-token and --allow-host flags as listen() options. */
export function accessFlags(
  cmd: string,
  values: Record<string, unknown>,
): Pick<ServeOptions, "token" | "allowHosts"> {
  const token = values.token as string | undefined;
  if (token !== undefined && values["no-token"]) {
    throw new UsageError(`arrow ${cmd}: --token and --no-token contradict each other`);
  }
  if (token !== undefined && !/^[A-Za-z0-9_-]{16,256}$/.test(token)) {
    throw new UsageError(`arrow ${cmd}: --token must be 16 to 256 letters, digits, "-" or "_"`);
  }
  const allowHosts = ((values["allow-host"] as string[] | undefined) ?? []).flatMap((h) => h.split(","))
    .map((h) => h.trim().toLowerCase()).filter(Boolean);
  for (const h of allowHosts) {
    if (!/^(?:[a-z0-9][a-z0-9.-]*|\[[0-9a-f:.]+\])$/.test(h)) {
      throw new UsageError(`arrow ${cmd}: --allow-host ${JSON.stringify(printable(h))} is not a host name`);
    }
  }
  return {
    ...(token !== undefined ? { token } : values["no-token"] ? { token: null } : {}),
    ...(allowHosts.length ? { allowHosts } : {}),
  };
}

/** The flags every command that serves the dashboard takes. */
export const SERVE_FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  token: { type: "string" },
  "no-token": { type: "boolean" },
  "allow-host": { type: "string", multiple: true },
} as const;

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
  const { values } = parse("serve", argv, { ...SERVE_FLAGS, "runs-dir": { type: "string" } }, 0);
  const port = intFlag("serve", "port", values.port, 0, DEFAULT_PORT);
  if (port > 65535) throw new InputError(`arrow serve: --port must be at most 65535, got ${port}`);
  const access = accessFlags("serve", values);
  const given = (values["runs-dir"] as string | undefined) ?? "runs";
  let runsDir: string;
  try {
    runsDir = Deno.realPathSync(given);
  } catch {
    throw new InputError(
      `arrow serve: no runs directory at ${printable(given)}`,
      ["start a run first (arrow run --scenario green) or point --runs-dir at one"],
    );
  }
  if (!Deno.statSync(runsDir).isDirectory) {
    throw new InputError(`arrow serve: ${printable(given)} is not a directory`);
  }
  const served = startDashboard(
    { runsDir, port, host: values.host as string | undefined, ...access },
    "serve",
  );
  // Listen for Ctrl-C before telling anyone where we are, so an early Ctrl-C still stops cleanly.
  const interrupted = untilInterrupted();
  console.log(`arrow serve: ${served.url}  (runs in ${printable(runsDir)}; Ctrl-C to stop)`);
  await interrupted;
  await served.close();
  return 0;
}
