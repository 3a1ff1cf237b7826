/**
 * One writer per run directory: a lock file holding the owner's pid and kernel start time. A lock left by
 * a dead process is detected and taken over.
 *
 * @module
 */
import { isAlive, procStartTime } from "./proc.ts";

export class LockedError extends Error {
  override name = "LockedError";
  constructor(readonly runDir: string, readonly pid: number) {
    super(`Cannot open ${runDir}: another arrow process (pid ${pid}) is running it`);
  }
}

export interface Lock {
  /** Pid of a dead previous owner whose stale lock was taken over. */
  tookOverFrom: number | null;
  release(): void;
}

export function acquireLock(runDir: string): Lock {
  const path = `${runDir}/.arrow/lock`;
  Deno.mkdirSync(`${runDir}/.arrow`, { recursive: true });
  const mine = JSON.stringify({ pid: Deno.pid, start: procStartTime(Deno.pid) });
  let tookOverFrom: number | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      using f = Deno.openSync(path, { write: true, createNew: true });
      f.writeSync(new TextEncoder().encode(mine));
      return {
        tookOverFrom,
        release: () => {
          try {
            if (Deno.readTextFileSync(path) === mine) Deno.removeSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    let owner: { pid?: number; start?: string | null } = {};
    try {
      owner = JSON.parse(Deno.readTextFileSync(path));
    } catch {
      owner = {};
    }
    if (typeof owner.pid === "number" && owner.pid !== Deno.pid && isAlive(owner.pid, owner.start ?? null)) {
      throw new LockedError(runDir, owner.pid);
    }
    tookOverFrom = typeof owner.pid === "number" ? owner.pid : -1;
    Deno.removeSync(path);
  }
  throw new LockedError(runDir, -1);
}
