/**
 * Live dashboard for `arrow run --serve` (issue 5 builds it).
 *
 * @module
 */
import type { Event } from "../model/events.ts";
import type { RunState } from "../model/state.ts";
import { InputError } from "./errors.ts";

export interface LiveOptions {
  runsDir: string;
  runDir: string;
  port: number;
  host: string | undefined;
  quiet: boolean;
}

export interface Live {
  onTick(state: RunState, events: readonly Event[]): void;
  /** Keeps serving until Ctrl-C. */
  hold(): Promise<void>;
  close(): Promise<void>;
}

export function startLive(_opts: LiveOptions): Promise<Live> {
  return Promise.reject(new InputError("arrow run: --serve is not available in this build yet"));
}
