/**
 * Loads a plan from YAML text: syntax, structure, semantics and graph normalization, each problem
 * reported as `file:line:col: message`, all of them at once.
 *
 * @module
 */
import { type Document, LineCounter, parseDocument, type YAMLError } from "yaml";
import { checkDocument, escapeControls, type Pos } from "./check.ts";
import { normalize } from "./normalize.ts";
import { planSchema } from "./plan_schema.ts";
import { resolvePlan } from "./resolve.ts";
import { validateSweeps } from "./sweep.ts";
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

/** Largest YAML text read (plans of 100,000 nodes fit many times over). */
export const MAX_YAML_CHARS = 64 * 1024 * 1024;
/** Deepest nesting of flow collections (`[…]`, `{…}`) read; plans need a handful. */
export const MAX_FLOW_DEPTH = 64;

export interface ParsedYaml {
  doc?: Document;
  lines: LineCounter;
  /** Syntax errors (the document is unusable when there is one) and warnings, as diagnostics. */
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

/**
 * Parses YAML text with positions, after refusing what would only make the parser slow or overflow its
 * stack (a text over MAX_YAML_CHARS, flow collections nested past MAX_FLOW_DEPTH); parser messages are
 * made printable, and a parser stack overflow reads as what it is.
 */
export function parseYaml(text: string, file: string): ParsedYaml {
  const lines = new LineCounter();
  const diag = (p: Pos, message: string): Diagnostic => ({ file, line: p.line, col: p.col, message });
  const refused = preflight(text);
  if (refused) return { lines, errors: [diag(refused.pos, refused.message)], warnings: [] };
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const toDiag = (e: YAMLError) => diag(e.linePos?.[0] ?? { line: 1, col: 1 }, yamlMessage(e.message));
  return { doc, lines, errors: doc.errors.map(toDiag), warnings: doc.warnings.map(toDiag) };
}

function yamlMessage(raw: string): string {
  const first = raw.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  if (/call stack|stack overflow/i.test(first)) return "YAML: the document is nested too deeply to read";
  return `YAML: ${escapeControls(first)}`;
}

/**
 * A cheap pass before parsing: the size, and the nesting depth of flow collections. Brackets count where
 * YAML opens a collection — inside one, or where a value starts — never inside quoted strings, comments
 * or block scalars (`|`, `>`), so ordinary text with brackets is never refused.
 */
function preflight(text: string): { pos: Pos; message: string } | null {
  if (text.length > MAX_YAML_CHARS) {
    return { pos: { line: 1, col: 1 }, message: `the file is over ${MAX_YAML_CHARS} characters long` };
  }
  let depth = 0;
  let quote: string | null = null;
  let blockIndent = -1;
  const lines = text.split("\n");
  for (let ln = 0; ln < lines.length; ln++) {
    const l = lines[ln]!;
    const indent = l.length - l.trimStart().length;
    if (blockIndent >= 0 && quote === null) {
      if (l.trim() === "" || indent > blockIndent) continue;
      blockIndent = -1;
    }
    let valueStart = quote === null;
    /** Inside a plain (unquoted) scalar of block context, where brackets are just text. */
    let plain = false;
    let spaced = true;
    for (let i: number = quote === null ? indent : 0; i < l.length; i++) {
      const c: string = l[i]!;
      if (quote !== null) {
        if (quote === '"' && c === "\\") i++;
        else if (c === quote && quote === "'" && l[i + 1] === "'") i++;
        else if (c === quote) {
          quote = null;
          valueStart = false;
        }
        continue;
      }
      if (c === " " || c === "\t" || c === "\r") {
        spaced = true;
        continue;
      }
      const after = l[i + 1];
      const ends = after === undefined || after === " " || after === "\t" || after === "\r";
      if (c === "#" && spaced) break;
      if ((c === '"' || c === "'") && valueStart) quote = c;
      else if ((c === "[" || c === "{") && (depth > 0 || !plain)) {
        if (++depth > MAX_FLOW_DEPTH) {
          return {
            pos: { line: ln + 1, col: i + 1 },
            message: `YAML: collections nested deeper than ${MAX_FLOW_DEPTH} levels`,
          };
        }
        valueStart = true;
      } else if ((c === "]" || c === "}") && depth > 0) {
        depth--;
        valueStart = false;
      } else if (c === "," && depth > 0) valueStart = true;
      else if (c === ":" && (depth > 0 || ends)) {
        valueStart = true;
        plain = false;
      } else if ((c === "-" || c === "?") && valueStart && ends) {
        valueStart = true;
      } else if ((c === "&" || c === "!") && valueStart) {
        // An anchor or a tag: the value still starts after it.
        while (i + 1 < l.length && l[i + 1] !== " ") i++;
      } else if ((c === "|" || c === ">") && valueStart && depth === 0) {
        blockIndent = indent;
        break;
      } else {
        valueStart = false;
        if (depth === 0) plain = true;
      }
      spaced = false;
    }
  }
  return null;
}

/** Parses and validates a plan. `plan` is set only when there are no errors. */
export function loadPlan(text: string, file: string): LoadResult {
  const { doc, lines, errors: syntaxErrors, warnings: syntaxWarnings } = parseYaml(text, file);
  const diag = (p: Pos, message: string): Diagnostic => ({ file, line: p.line, col: p.col, message });
  const syntax = [...syntaxErrors, ...syntaxWarnings];
  if (!doc || syntaxErrors.length) return { errors: syntax.sort(byPos), warnings: [] };
  if (doc.contents === null) return { errors: [diag({ line: 1, col: 1 }, "plan is empty")], warnings: [] };

  const checked = checkDocument(doc, planSchema, lines);
  const raw = (checked.value ?? {}) as Partial<PlanFile>;
  const semantic = validatePlan(raw, checked.pos, checked.keyPos);
  const workers = validateWorkers(raw, checked.pos, checked.keyPos);
  const sweeps = validateSweeps(raw, checked.pos, checked.keyPos);
  const errors = [
    ...syntax,
    ...checked.problems.map((p) => diag(p, p.message)),
    ...[...semantic.errors, ...workers.errors, ...sweeps.errors].map((f) => diag(f.pos, f.message)),
  ];
  const warnings = [...semantic.warnings, ...workers.warnings, ...sweeps.warnings].map((f) =>
    diag(f.pos, f.message)
  );

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
