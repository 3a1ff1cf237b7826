/**
 * What /proc/<pid>/stat says about a process: its state, parent, process group, session and kernel start
 * time — read defensively (the command name in parentheses may hold spaces and parentheses itself).
 *
 * @module
 */

export interface ProcStat {
  /** R, S, D, Z, T … */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Clock ticks since boot at which the process started: with the pid, an identity that is never reused. */
  start: string;
}

/** The process's stat line, parsed, or null when it is gone. */
export function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgrp, session, start] = [f[0], f[1], f[2], f[3], f[19]];
  if (!state || !ppid || !pgrp || !session || !start) return null;
  return { state, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session), start };
}

/** Kernel start time of a pid from /proc, or null when the process is gone. */
export function procStartTime(pid: number): string | null {
  return readStat(pid)?.start ?? null;
}
