/**
 * The local backend: an attempt is a detached process group on this machine, recorded in the run's process
 * journal (so a resumed run stops what a dead arrow left), stopped by signalling the group (TERM, grace,
 * KILL). Without bubblewrap's pid namespace, what a worker leaves behind is found two ways as soon as the
 * worker exits, before anything waits on its output pipes (which such a leftover may hold open): arrow
 * adopts its orphans as their subreaper (reaper.ts), and the processes still carrying its attempt token
 * are killed (orphans.ts). Whatever is left when the backend closes is swept once more.
 *
 * @module
 */
import type { Backend, Phase, Proc, StartRequest } from "./backend.ts";
import type { Command } from "./launch.ts";
import { sweepOrphans } from "../proc/orphans.ts";
import { signalGroup, spawn, type Spawned, stopGroup } from "../proc/proc.ts";
import type { ProcJournal } from "../proc/proc_journal.ts";
import * as reaper from "../proc/reaper.ts";

class LocalProc implements Proc {
  readonly backend = "local" as const;

  constructor(
    readonly spawned: Spawned,
    readonly label: string,
    readonly cmd: Command,
    readonly journal: ProcJournal,
  ) {}

  look(): Phase {
    const s = this.spawned.exited;
    if (!s) {
      reaper.reapZombies();
      return { phase: "running" };
    }
    return { phase: "ended", exit: s.signal ? null : s.code, signal: s.signal ?? null, job: null };
  }

  async stop(): Promise<void> {
    // Stopping waits for the exit, and with it the clean-up of what the worker left (LocalBackend#settle).
    await this.drop();
  }

  /** Stops the group; what it left is cleaned up on its exit like any attempt's. */
  async drop(graceMs?: number, label = this.label): Promise<void> {
    await stopGroup(this.spawned, graceMs);
    this.journal.log("stop", label, this.spawned);
  }

  job(): null {
    return null;
  }
}

export class LocalBackend implements Backend {
  readonly name = "local" as const;
  /** Attempt tokens of the processes still running (a standby and its replacement may share one). */
  readonly #live = new Map<string, number>();
  /** Attempt tokens of unconfined processes that ended, for the closing sweep. */
  readonly #ended = new Set<string>();

  constructor(readonly journal: ProcJournal) {}

  /** Spawns the command; throws when the program cannot be started at all (the caller reports it). */
  start(req: StartRequest): LocalProc {
    return this.spawn(req.node.id, req.cmd, req.stderr, req.stdout);
  }

  /** A process for a node (or a standby, labelled so), journalled before anything depends on it. */
  spawn(label: string, cmd: Command, stderr: string, stdout: string): LocalProc {
    // Only bubblewrap's pid namespace holds a worker's descendants; the Deno sandbox cannot spawn any, but
    // a program it runs unconfined can: those are adopted from before their start.
    const adopt = cmd.sandbox === "none" && reaper.enable();
    const token = cmd.env.ARROW_TOKEN ?? null;
    let worker: reaper.Worker | null = null;
    let p: Spawned;
    try {
      p = spawn(cmd.cmd, cmd.args, {
        cwd: cmd.cwd,
        env: cmd.env,
        stdin: cmd.lockstep ? "piped" : "null",
        stdout: cmd.lockstep ? "piped" : "null",
        stderrFile: stderr,
        ...(cmd.lockstep ? {} : { stdoutFile: stdout }),
        settle: () => this.#settle(p, cmd, token, worker),
      });
    } catch (e) {
      if (adopt) reaper.release(null);
      throw e;
    }
    if (adopt) worker = reaper.hold(p.pid, p.startTime, token, this);
    if (token) this.#live.set(token, (this.#live.get(token) ?? 0) + 1);
    this.journal.log("start", label, p);
    return new LocalProc(p, label, cmd, this.journal);
  }

  /**
   * Runs once a process has exited, before its pipes are drained: kills the rest of its group, every
   * process still carrying its token (unless another live process of this backend carries it too: a
   * standby's token may belong to the process started in its place), and its adopted orphans.
   */
  async #settle(p: Spawned, cmd: Command, token: string | null, worker: reaper.Worker | null): Promise<void> {
    const left = token ? (this.#live.get(token) ?? 1) - 1 : 0;
    if (token) {
      if (left > 0) this.#live.set(token, left);
      else this.#live.delete(token);
    }
    reaper.release(worker);
    signalGroup(p.pid, "SIGKILL");
    if (cmd.sandbox !== "bwrap" && token && left === 0) {
      this.#ended.add(token);
      await sweepOrphans(token);
    }
    await reaper.sweep();
  }

  /** A last sweep once every process was stopped: nothing an attempt left outlives the backend. */
  async close(): Promise<void> {
    const done = new Set([...this.#ended].filter((t) => !this.#live.has(t)));
    this.#ended.clear();
    await sweepOrphans(done);
    await reaper.sweep(this);
  }
}

export type { LocalProc };
