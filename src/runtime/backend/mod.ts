/**
 * Where an attempt runs: the local and Slurm backends, the launch commands, the worker config.
 *
 * The face of `runtime/backend/` for the rest of the product (its own files, and the child programs that load
 * one file alone, import by file).
 *
 * @module
 */
export * from "./backend.ts";
export * from "./launch.ts";
export * from "./local.ts";
export * from "./reattach.ts";
export * from "./slurm.ts";
export * from "./worker_config.ts";
