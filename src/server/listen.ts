/**
 * Puts the dashboard on a socket: Deno.serve on the loopback address unless told otherwise, and a shutdown
 * that ends open event streams first (so it never hangs on a watching browser). Beyond loopback the server
 * never runs open: it requires an access token (given, or generated here) or an explicit host allowlist.
 *
 * @module
 */
import { newToken } from "./access.ts";
import { type AppDeps, createApp } from "./app.ts";
import { Feeds } from "./feeds.ts";

export const DEFAULT_HOST = "127.0.0.1";
/** How long a shutdown waits for event streams to deliver what is queued before ending them. */
const SHUTDOWN_GRACE_MS = 1000;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
/** The names a loopback server answers to; a page on another site could rebind its own name to 127.0.0.1. */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

export interface ServeOptions {
  runsDir: string;
  host?: string;
  port: number;
  alive?: AppDeps["alive"];
  /** Reuse a registry, e.g. one with the run this process drives pinned in it. */
  feeds?: Feeds;
  /**
   * Access token: a string to require that one; "generate" for a fresh one; null for none (refused beyond
   * loopback unless `allowHosts` is given). Default: none on loopback, generated beyond.
   */
  token?: string | "generate" | null;
  /** Host names (without port) requests may name beyond loopback; on loopback the loopback names. */
  allowHosts?: readonly string[];
  stallMs?: number;
}

export interface Served {
  /** Where the dashboard is, with `?token=` when a token is required (print it once). */
  url: string;
  /** The token in force, if any. */
  token: string | null;
  feeds: Feeds;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}

/** The warning to print for a bind address others can reach, or null. */
export function exposureWarning(host: string, token: string | null): string | null {
  if (isLoopback(host)) return null;
  return token
    ? `warning: the dashboard listens on ${host}: anyone who can reach this machine and has the link ` +
      `(its token) can read your runs`
    : `warning: the dashboard listens on ${host} without a token: anyone who can reach this machine under ` +
      `an allowed host name can read your runs`;
}

/** The access policy for a bind address; throws a RangeError when beyond loopback it would be open. */
export function accessFor(
  host: string,
  token: ServeOptions["token"],
  allowHosts: readonly string[] | undefined,
): { token: string | null; hosts: readonly string[] | undefined } {
  const loop = isLoopback(host);
  const chosen = token === "generate" || (token === undefined && !loop) ? newToken() : token ?? null;
  if (!loop && chosen === null && !allowHosts?.length) {
    throw new RangeError(
      `Cannot listen on ${host} without an access token or a host allowlist: anyone on the network could read your runs`,
    );
  }
  return { token: chosen, hosts: loop ? [...LOOPBACK_NAMES, ...(allowHosts ?? [])] : allowHosts };
}

/** Starts serving; Deno's AddrInUse / AddrNotAvailable errors reach the caller unchanged. */
export function listen(opts: ServeOptions): Served {
  const host = opts.host ?? DEFAULT_HOST;
  const feeds = opts.feeds ?? new Feeds();
  const access = accessFor(host, opts.token, opts.allowHosts);
  const app = createApp({
    runsDir: opts.runsDir,
    feeds,
    alive: opts.alive,
    hosts: access.hosts,
    ...(access.token ? { token: access.token } : {}),
    ...(opts.stallMs !== undefined ? { stallMs: opts.stallMs } : {}),
  });
  const server = Deno.serve(
    { hostname: host.replace(/^\[(.*)\]$/, "$1"), port: opts.port, onListen() {} },
    app.fetch,
  );
  const { hostname, port } = server.addr;
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shown}:${port}/${access.token ? `?token=${access.token}` : ""}`,
    token: access.token,
    feeds,
    close: () =>
      closing ??= (async () => {
        await feeds.close();
        const done = server.shutdown();
        // A client that stopped reading would hold a graceful shutdown forever: abort what is left.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<boolean>((resolve) =>
          timer = setTimeout(() => resolve(true), SHUTDOWN_GRACE_MS)
        );
        if (await Promise.race([done.then(() => false), late])) feeds.abort();
        clearTimeout(timer);
        await done;
      })(),
  };
}
