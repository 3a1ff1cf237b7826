/**
 * Plans: types, YAML loading with positioned errors, validation and the graph normalizer.
 *
 * @module
 */
export * from "./types.ts";
export { formatDiagnostic, loadPlan } from "./load.ts";
export type { Diagnostic, LoadResult } from "./load.ts";
export { normalize, stronglyConnected, topoOrder } from "./normalize.ts";
export type { Normalized, NormalizeIssue } from "./normalize.ts";
export { planSchema } from "./plan_schema.ts";
export { toJsonSchema } from "./schema.ts";
export { resolveScope } from "./validate.ts";
