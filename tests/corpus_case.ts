/**
 * One case of the supervision corpus (`tests/corpus/<case>/`): its plan, fault script and expectations,
 * loaded and checked strictly, so a typo in an expectation is an error rather than a silently skipped check.
 *
 * @module
 */
import { parse } from "yaml";
import { type Resolved, resolvePlanFile } from "../src/cli/catalog.ts";
import { formatDiagnostic } from "../src/graph/load.ts";
import { faultProblems } from "../src/graph/fault_support.ts";

export const CORPUS = new URL("./corpus/", import.meta.url).pathname;

const VERDICTS = ["RESEARCH ANSWERED", "NEGATIVE RESULT", "RESULT WITHHELD", "NO VERDICT"] as const;
const LADDERS = ["bounce", "blame_routing", "downstream_invalidation", "graph_surgery", "fuse"];

/** What a case expects, derived by hand from the seed's rules (never copied from a run). */
export interface Expect {
  /** The rule the expectation rests on, in one line. */
  why: string;
  verdict: (typeof VERDICTS)[number];
  /** Every incident, in black-box order: [type, node, ladder]. */
  incidents: [string, string, string][];
  /** Final status of every node that exists (spawn_only nodes only once grown). */
  statuses: Record<string, string>;
  /** The method the verdict rests on, and its score or best score. */
  method?: string;
  score?: number;
  best_score?: number;
  /** Evidence fields of the incident at each index of `incidents`. */
  evidence?: Record<number, Record<string, unknown>>;
  /** Fields of a node's final state, by dotted path ("manifest.score"). */
  nodes?: Record<string, Record<string, unknown>>;
  /** Fields of the frozen comparability tuple ("by" is the node that froze it). */
  frozen?: Record<string, unknown>;
  /** Fields of JSON files in the run directory. */
  files?: Record<string, Record<string, unknown>>;
  /** Run-relative paths that must not exist at the end. */
  absent?: string[];
  /** The final report: phrases it must not contain; nodes it must list with their status. */
  report?: { lacks?: string[]; lists?: string[] };
  /** The run must have concluded by this tick. */
  max_tick?: number;
}

export interface Case {
  name: string;
  dir: string;
  resolved: Resolved;
  expect: Expect;
}

const KEYS = new Set([
  "why",
  "verdict",
  "incidents",
  "statuses",
  "method",
  "score",
  "best_score",
  "evidence",
  "nodes",
  "frozen",
  "files",
  "absent",
  "report",
  "max_tick",
]);

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** Reads and checks `expect.yaml`; every problem is collected and thrown as one error naming the file. */
export function loadExpect(file: string, nodeIds: readonly string[]): Expect {
  const raw = parse(Deno.readTextFileSync(file)) as unknown;
  const bad: string[] = [];
  if (!isRecord(raw)) throw new TypeError(`Cannot load ${file}: not a mapping`);
  for (const k of Object.keys(raw)) if (!KEYS.has(k)) bad.push(`unknown key "${k}"`);
  if (typeof raw.why !== "string" || raw.why.length < 10) bad.push("why: a one-line rule is required");
  if (!VERDICTS.includes(raw.verdict as Expect["verdict"])) bad.push(`verdict: got ${String(raw.verdict)}`);
  const inc = raw.incidents;
  if (!Array.isArray(inc)) bad.push("incidents: a list is required (empty for a clean case)");
  else {
    inc.forEach((i, n) => {
      const ok = Array.isArray(i) && i.length === 3 && i.every((x) => typeof x === "string") &&
        nodeIds.includes(i[1] as string) && LADDERS.includes(i[2] as string);
      if (!ok) bad.push(`incidents[${n}]: expected [TYPE, known node, ladder], got ${JSON.stringify(i)}`);
    });
  }
  if (!isRecord(raw.statuses)) bad.push("statuses: a mapping is required");
  else {
    for (const id of Object.keys(raw.statuses)) {
      if (!nodeIds.includes(id)) bad.push(`statuses: unknown node "${id}"`);
    }
  }
  for (const k of ["evidence", "nodes", "frozen", "files", "report"] as const) {
    if (raw[k] !== undefined && !isRecord(raw[k])) bad.push(`${k}: a mapping is required`);
  }
  if (isRecord(raw.evidence) && Array.isArray(inc)) {
    for (const k of Object.keys(raw.evidence)) {
      if (!(Number(k) >= 0 && Number(k) < inc.length)) bad.push(`evidence: no incident at index ${k}`);
    }
  }
  if (isRecord(raw.nodes)) {
    for (const id of Object.keys(raw.nodes)) if (!nodeIds.includes(id)) bad.push(`nodes: unknown "${id}"`);
  }
  if (bad.length) throw new TypeError(`Cannot load ${file}:\n  ${bad.join("\n  ")}`);
  return raw as unknown as Expect;
}

/** Loads a case: plan and faults through the same loader `arrow run plan.yaml --faults` uses. */
export function loadCase(name: string): Case {
  const dir = `${CORPUS}${name}`;
  const resolved = resolvePlanFile(`${dir}/plan.yaml`, `${dir}/faults.yaml`);
  const problems = faultProblems(
    resolved.plan,
    resolved.faults,
    resolved.faultPos,
    resolved.faultFile,
    "mock",
  );
  if (problems.length) {
    throw new TypeError(`Cannot load case ${name}: ${problems.map(formatDiagnostic).join("; ")}`);
  }
  const expect = loadExpect(`${dir}/expect.yaml`, resolved.plan.nodes.map((n) => n.id));
  return { name, dir, resolved, expect };
}

/** Every case directory, sorted by name. */
export function caseNames(): string[] {
  return [...Deno.readDirSync(CORPUS)].filter((e) => e.isDirectory).map((e) => e.name).sort();
}
