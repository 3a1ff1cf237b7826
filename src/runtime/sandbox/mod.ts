/**
 * The one sandbox builder (bubblewrap layouts and their lanes) and Deno's permission audit.
 *
 * The face of `runtime/sandbox/` for the rest of the product (its own files, and the child programs that load
 * one file alone, import by file).
 *
 * @module
 */
export * from "./audit.ts";
export * from "./bwrap.ts";
export * from "./lanes.ts";
export * from "./refusals.ts";
