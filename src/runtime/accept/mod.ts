/**
 * Acceptance: the built-in checker, acceptance commands and declared evaluators.
 *
 * The face of `runtime/accept/` for the rest of the product (its own files, and the child programs that load
 * one file alone, import by file).
 *
 * @module
 */
export * from "./accept.ts";
export * from "./accept_command.ts";
