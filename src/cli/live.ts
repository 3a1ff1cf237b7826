/**
 * Live dashboard for `arrow run --serve`: the same server as `arrow serve`, with the run this process drives
 * pinned to an in-process feed that the engine pokes after every tick, so a browser sees each tick as soon
 * as the black box has written it (no file watching in between).
 *
 * @module
 */
import type { Event } from "../model/events.ts";
import type { RunState } from "../model/state.ts";
import { Feeds } from "../server/feeds.ts";
import type { ServeOptions } from "../server/listen.ts";
import { printable } from "./escape.ts";
import { startDashboard, untilInterrupted } from "./serve.ts";

export interface LiveOptions {
  runsDir: string;
  runDir: string;
  port: number;
  host: string | undefined;
  quiet: boolean;
  /** Access flags (see accessFlags in serve.ts); beyond loopback a token is generated when none is given. */
  access?: Pick<ServeOptions, "token" | "allowHosts">;
}

export interface Live {
  /** Where the run's page is (printed once at start). */
  readonly url: string;
  onTick(state: RunState, events: readonly Event[]): void;
  /** Keeps serving until Ctrl-C. */
  hold(): Promise<void>;
  close(): Promise<void>;
}

export function startLive(opts: LiveOptions): Promise<Live> {
  const id = opts.runDir.slice(opts.runDir.lastIndexOf("/") + 1);
  const feeds = new Feeds();
  // The black box appends the tick's line before onTick runs, so a poke always finds it on disk.
  const feed = feeds.pin(id, opts.runDir);
  const served = startDashboard(
    { runsDir: opts.runsDir, host: opts.host, port: opts.port, feeds, ...opts.access },
    "run",
  );
  const link = new URL(served.url);
  link.searchParams.set("run", id);
  // The run id is a plain name made by arrow, but it came from a path: print it escaped all the same.
  const url = printable(link.href);
  // With --json stdout carries one JSON object only, so the address goes to stderr.
  (opts.quiet ? console.error : console.log)(`dashboard: ${url}`);
  return Promise.resolve({
    url,
    onTick: () => feed.poke(),
    hold: async () => {
      const interrupted = untilInterrupted();
      (opts.quiet ? console.error : console.log)("dashboard: still serving this run; Ctrl-C to stop");
      await interrupted;
      await served.close();
    },
    close: () => served.close(),
  });
}
