/**
 * Processes: groups and their journal, the subreaper, orphan sweeps, tails of what children write, CPU wait,
 * and the one child watcher (watch.ts).
 *
 * The face of `runtime/proc/` for the rest of the product (its own files, and the child programs that load
 * one file alone, import by file).
 *
 * @module
 */
export * from "./cpu_wait.ts";
export * from "./libc.ts";
export * from "./orphans.ts";
export * from "./proc.ts";
export * from "./proc_journal.ts";
export * from "./proc_stat.ts";
export * from "./pump.ts";
export * from "./reaper.ts";
export * from "./steps_tail.ts";
export * from "./tail.ts";
export * from "./watch.ts";
