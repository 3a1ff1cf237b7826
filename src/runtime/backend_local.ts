/**
 * The local backend: an attempt is a detached process group on this machine, recorded in the run's process
 * journal (so a resumed run stops what a dead arrow left), stopped by signalling the group (TERM, grace,
 * KILL) and, where no bubblewrap pid namespace held it, by finding stray daemons by their attempt token.
 *
 * @module
 */
import type { Backend, Phase, Proc, StartRequest } from "./backend.ts";
import type { Command } from "./launch.ts";
import { sweepOrphans } from "./orphans.ts";
import { spawn, type Spawned, stopGroup } from "./proc.ts";
import type { ProcJournal } from "./proc_journal.ts";

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
    if (!s) return { phase: "running" };
    return { phase: "ended", exit: s.signal ? null : s.code, signal: s.signal ?? null, job: null };
  }

  async stop(): Promise<void> {
    await this.drop();
    // Without bubblewrap's pid namespace a daemon could outlive its group: find it by its attempt token.
    if (this.cmd.sandbox !== "bwrap" && this.cmd.env.ARROW_TOKEN) {
      await sweepOrphans(this.cmd.env.ARROW_TOKEN);
    }
  }

  /**
   * Stops the group only: a standby that never worked is dropped this way (its attempt token may already
   * belong to the process started in its place).
   */
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

  constructor(readonly journal: ProcJournal) {}

  /** Spawns the command; throws when the program cannot be started at all (the caller reports it). */
  start(req: StartRequest): LocalProc {
    return this.spawn(req.node.id, req.cmd, req.stderr, req.stdout);
  }

  /** A process for a node (or a standby, labelled so), journalled before anything depends on it. */
  spawn(label: string, cmd: Command, stderr: string, stdout: string): LocalProc {
    const p = spawn(cmd.cmd, cmd.args, {
      cwd: cmd.cwd,
      env: cmd.env,
      stdin: cmd.lockstep ? "piped" : "null",
      stdout: cmd.lockstep ? "piped" : "null",
      stderrFile: stderr,
      ...(cmd.lockstep ? {} : { stdoutFile: stdout }),
    });
    this.journal.log("start", label, p);
    return new LocalProc(p, label, cmd, this.journal);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

export type { LocalProc };
