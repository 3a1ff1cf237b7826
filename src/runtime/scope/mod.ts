/**
 * Scopes at rest and in motion: fingerprints, the blob store, the scope record, manifests, the plan's held files.
 *
 * The face of `runtime/scope/` for the rest of the product (its own files, and the child programs that load
 * one file alone, import by file).
 *
 * @module
 */
export * from "./blobs.ts";
export * from "./fingerprint.ts";
export * from "./fingerprint_store.ts";
export * from "./fingerprint_table.ts";
export * from "./manifest.ts";
export * from "./node_files.ts";
export * from "./plan_files.ts";
export * from "./scope_files.ts";
export * from "./scope_record.ts";
export * from "./scope_record_fold.ts";
export * from "./scope_record_io.ts";
