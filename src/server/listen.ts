/**
 * Puts the dashboard on a socket: Deno.serve on the loopback address unless told otherwise, a warning when
 * the bind address is reachable by others, and a shutdown that ends open event streams first (so it never
 * hangs on a watching browser).
 *
 * @module
 */
import { type AppDeps, createApp } from "./app.ts";
import { Feeds } from "./feeds.ts";

export const DEFAULT_HOST = "127.0.0.1";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export interface ServeOptions {
  runsDir: string;
  host?: string;
  port: number;
  alive?: AppDeps["alive"];
  /** Reuse a registry, e.g. one with the run this process drives pinned in it. */
  feeds?: Feeds;
}

export interface Served {
  url: string;
  feeds: Feeds;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}

/** The warning to print for a bind address others can reach, or null. */
export function exposureWarning(host: string): string | null {
  return isLoopback(host)
    ? null
    : `warning: the dashboard listens on ${host}, so anyone who can reach this ` +
      `machine can read your runs (no authentication); use the default ${DEFAULT_HOST} unless you mean it`;
}

/** Starts serving; Deno's AddrInUse / AddrNotAvailable errors reach the caller unchanged. */
export function listen(opts: ServeOptions): Served {
  const host = opts.host ?? DEFAULT_HOST;
  const feeds = opts.feeds ?? new Feeds();
  const app = createApp({
    runsDir: opts.runsDir,
    feeds,
    alive: opts.alive,
    // A page on another site could rebind its own name to 127.0.0.1; only our own names are served.
    hosts: isLoopback(host) ? ["127.0.0.1", "localhost", "[::1]"] : undefined,
  });
  const server = Deno.serve(
    { hostname: host.replace(/^\[(.*)\]$/, "$1"), port: opts.port, onListen() {} },
    app.fetch,
  );
  const { hostname, port } = server.addr;
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shown}:${port}/`,
    feeds,
    close: () =>
      closing ??= (async () => {
        await feeds.close();
        await server.shutdown();
      })(),
  };
}
