/**
 * Loads a plan from YAML text: syntax, structure, semantics and graph normalization, each problem
 * reported as `file:line:col: message`, all of them at once.
 *
 * @module
 */
import { LineCounter, parseDocument } from "yaml";
import { checkDocument, type Pos } from "./check.ts";
import { normalize } from "./normalize.ts";
import { planSchema } from "./plan_schema.ts";
import { resolvePlan } from "./resolve.ts";
import type { Plan, PlanEdgeFile, PlanFile } from "./types.ts";
import { validatePlan } from "./validate.ts";
import { validateWorkers } from "./validate_workers.ts";

export interface Diagnostic extends Pos {
  file: string;
  message: string;
}

export interface LoadResult {
  plan?: Plan;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

/** `file:line:col: message` */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col}: ${d.message}`;
}

const byPos = (a: Diagnostic, b: Diagnostic) => a.line - b.line || a.col - b.col;

/** Parses and validates a plan. `plan` is set only when there are no errors. */
export function loadPlan(text: string, file: string): LoadResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const diag = (p: Pos, message: string): Diagnostic => ({ file, line: p.line, col: p.col, message });
  const syntax = [...doc.errors, ...doc.warnings].map((e) => {
    const p = e.linePos?.[0] ?? { line: 1, col: 1 };
    return diag(p, `YAML: ${e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`);
  });
  if (doc.errors.length) return { errors: syntax.sort(byPos), warnings: [] };
  if (doc.contents === null) return { errors: [diag({ line: 1, col: 1 }, "plan is empty")], warnings: [] };

  const checked = checkDocument(doc, planSchema, lines);
  const raw = (checked.value ?? {}) as Partial<PlanFile>;
  const semantic = validatePlan(raw, checked.pos, checked.keyPos);
  const workers = validateWorkers(raw, checked.pos, checked.keyPos);
  const errors = [
    ...syntax,
    ...checked.problems.map((p) => diag(p, p.message)),
    ...[...semantic.errors, ...workers.errors].map((f) => diag(f.pos, f.message)),
  ];
  const warnings = [...semantic.warnings, ...workers.warnings].map((f) => diag(f.pos, f.message));

  const nodes = raw.nodes ?? [];
  const ids = nodes.map((n) => n.id);
  const known = new Set(ids);
  // Edges between known nodes, each with its index in the file, for positions of normalizer findings.
  const edges: PlanEdgeFile[] = [];
  const fileIndex: number[] = [];
  (raw.edges ?? []).forEach((e, i) => {
    if (!known.has(e.from) || !known.has(e.to)) return;
    edges.push(e);
    fileIndex.push(i);
  });
  const norm = normalize([...known], edges);
  const edgePos = (i: number) => checked.pos(["edges", fileIndex[i] ?? 0]);
  for (const w of norm.warnings) warnings.push(diag(edgePos(w.edge), w.message));
  for (const e of norm.errors) errors.push(diag(edgePos(e.edge), e.message));

  if (errors.length || !raw.question || !raw.protocol) {
    return { errors: errors.sort(byPos), warnings: warnings.sort(byPos) };
  }
  const plan = resolvePlan(raw as PlanFile, norm);
  return { plan, errors: [], warnings: warnings.sort(byPos) };
}
