/**
 * The one sandbox layout builder (layout.ts), its renderers — bubblewrap and a watch-only mount namespace —
 * the lanes and shadows they inspect, and Deno's permission audit.
 *
 * The face of `runtime/sandbox/` for the rest of the product (its own files, and the child programs that load
 * one file alone, import by file).
 *
 * @module
 */
export * from "./audit.ts";
export * from "./bwrap.ts";
export * from "./lanes.ts";
export * from "./namespace.ts";
export * from "./refusals.ts";
