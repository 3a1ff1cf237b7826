/**
 * The fuzz targets and their properties: the plan loader, the fault-script loader, the bounded JSON parser
 * (manifests), the metrics tail, and the CSV reader. Each must never throw anything but its documented
 * error, never hang, and give every rejection a clear message (file:line:col for plans and fault scripts,
 * file:line for CSV, no raw control characters). `runTarget` feeds one target seeded inputs — corpus files
 * mutated, or generated — and reports counts, time and every violation with the input that caused it.
 *
 * @module
 */
import { formatDiagnostic, loadPlan } from "../src/graph/load.ts";
import type { Diagnostic } from "../src/graph/load.ts";
import { loadFaults } from "../src/graph/scenario.ts";
import { parseBounded } from "../src/runtime/bounded_json.ts";
import { JsonlTail, metricPoints } from "../src/runtime/proc/tail.ts";
import { CsvError } from "../src/tabular/csv.ts";
import { parseNumericCsv } from "../src/tabular/numeric.ts";
import { printable } from "../src/cli/escape.ts";
import { mulberry32, mutate, pick, type Rand, randomJson } from "./fuzz_mutate.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** What a message shown to a person must not carry raw: controls and bidi overrides. */
// deno-lint-ignore no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A property the target broke on an input. */
export class Violation extends Error {
  override name = "Violation";
}

const must = (cond: unknown, what: string) => {
  if (!cond) throw new Violation(what);
};

export interface Target {
  name: string;
  /** Corpus texts to mutate. */
  seeds(): string[];
  /** A fresh input, for targets with a generator. */
  generate?(rand: Rand): string;
  /** Runs the target on `input`; throws a Violation (or whatever the target threw) on a failure. */
  check(input: string): "accepted" | "rejected";
  /** Cleans up what the target made (temporary files). */
  dispose?(): void;
}

export interface Finding {
  target: string;
  input: string;
  applied: string[];
  problem: string;
  stack?: string;
}

export interface TargetReport {
  target: string;
  inputs: number;
  accepted: number;
  rejected: number;
  ms: number;
  slowestMs: number;
  findings: Finding[];
}

function filesIn(dir: string, ext: RegExp): string[] {
  try {
    return [...Deno.readDirSync(`${ROOT}${dir}`)].filter((e) => e.isFile && ext.test(e.name)).sort((a, b) =>
      a.name < b.name ? -1 : 1
    ).map((e) => Deno.readTextFileSync(`${ROOT}${dir}/${e.name}`));
  } catch {
    return [];
  }
}

function checkDiagnostics(input: string, file: string, diags: readonly Diagnostic[]): void {
  const lines = input.split(/\r\n|\r|\n/).length;
  for (const d of diags) {
    const shown = formatDiagnostic(d);
    must(d.file === file, `diagnostic names file ${JSON.stringify(d.file)}: ${shown}`);
    must(Number.isInteger(d.line) && d.line >= 1 && d.line <= lines + 1, `line out of range: ${shown}`);
    must(Number.isInteger(d.col) && d.col >= 1, `column out of range: ${shown}`);
    must(d.message.trim().length > 0, "empty message");
    must(!UNPRINTABLE.test(d.message), `raw control character in message: ${JSON.stringify(d.message)}`);
  }
}

export const planTarget: Target = {
  name: "plan loader (loadPlan)",
  seeds: () => [
    ...filesIn("scenarios/plans", /\.yaml$/),
    ...filesIn("tests/fixtures/valid", /\.yaml$/),
    ...filesIn("tests/fixtures/broken", /\.yaml$/),
    ...filesIn("tests/fixtures/user", /^plan\.yaml$/),
  ],
  check(input) {
    const r = loadPlan(input, "fuzz.yaml");
    checkDiagnostics(input, "fuzz.yaml", [...r.errors, ...r.warnings]);
    if (!r.plan) {
      must(r.errors.length > 0, "no plan and no error");
      return "rejected";
    }
    must(r.errors.length === 0, "a plan returned with errors");
    must(r.plan.order.length === r.plan.nodes.length, "topological order misses nodes");
    for (const n of r.plan.nodes) {
      must(!UNPRINTABLE.test(n.scope) && !n.scope.includes("\u0000"), "scope with control");
    }
    return "accepted";
  },
};

export const faultTarget: Target = {
  name: "fault-script loader (loadFaults)",
  seeds: () => [
    ...filesIn("tests/fixtures/user", /faults\.yaml$/),
    ...filesIn("scenarios", /\.yaml$/),
    "- {kind: out_of_scope_write, node: N4, path: ../N3/x.txt, at_tick: 3}\n- {kind: frozen_scope, node: N5}\n",
    "faults:\n  - kind: reopen\n    node: N1\n    when: green\n  - kind: false_claim\n    node: N4\n    claims: [0.9, 0.95]\n",
  ],
  check(input) {
    const r = loadFaults(input, "fuzz.yaml");
    checkDiagnostics(input, "fuzz.yaml", r.errors);
    if (r.faults) {
      must(r.errors.length === 0, "faults returned with errors");
      return "accepted";
    }
    must(r.errors.length > 0, "no faults and no error");
    return "rejected";
  },
};

const MANIFEST_LIMITS = { maxBytes: 1024 * 1024, maxDepth: 32 };

export const jsonTarget: Target = {
  name: "manifest parser (parseBounded)",
  seeds: () => [
    JSON.stringify({
      node: "N4",
      metric: "dev_r2",
      score: 0.91,
      data_hash: "ab".repeat(32),
      split_hash: "cd".repeat(32),
      protocol_version: "p1",
      seed: 7,
      code_sha: "x",
      wall_s: 1.5,
    }),
    '{"step": 12, "dev_r2": 0.5, "loss": [1, 2, {"a": null}]}',
    "[]",
    '"text"',
  ],
  generate: (rand) => JSON.stringify(randomJson(rand)),
  check(input) {
    const r = parseBounded(input, MANIFEST_LIMITS);
    let plain: { ok: boolean; value?: unknown } = { ok: false };
    try {
      plain = { ok: true, value: JSON.parse(input) };
    } catch {
      // JSON.parse refusing is fine; parseBounded must then refuse too.
    }
    if (!r.ok) {
      must(r.error.startsWith("Cannot parse JSON: "), `message shape: ${r.error}`);
      must(!UNPRINTABLE.test(r.error), `raw control character in message: ${JSON.stringify(r.error)}`);
      return "rejected";
    }
    must(plain.ok, "accepted what JSON.parse refuses");
    must(allFinite(r.value), "a non-finite number got through");
    return "accepted";
  },
};

function allFinite(v: unknown): boolean {
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === "number" && !Number.isFinite(x)) return false;
    if (x && typeof x === "object") stack.push(...Object.values(x as Record<string, unknown>));
  }
  return true;
}

/** The metrics tail reads a real file: one temporary directory for the whole run. */
function metricsTarget(): Target {
  let dir: string | null = null;
  const path = () => `${dir ??= Deno.makeTempDirSync({ prefix: "arrow-fuzz-" })}/metrics.jsonl`;
  return {
    name: "metrics parser (JsonlTail + metricPoints)",
    seeds: () => [
      Array.from({ length: 8 }, (_, i) => JSON.stringify({ step: i, dev_r2: 0.1 * i, loss: 1 / (i + 1) }))
        .join("\n") +
      "\n",
      '{"step":1,"dev_r2":0.5}\n{"step":2,"dev_r2":"0.6"}\n{"step":3}\nnot json\n{"step":4,"dev_r2":0.7',
    ],
    generate: (rand) =>
      Array.from(
        { length: 1 + Math.floor(rand() * 6) },
        () => JSON.stringify({ step: randomJson(rand), dev_r2: randomJson(rand), x: randomJson(rand) }),
      ).join("\n") + "\n",
    check(input) {
      const p = path();
      Deno.writeTextFileSync(p, input);
      const tail = new JsonlTail(p);
      const first = tail.read();
      // A second append: the tail must continue from where it stopped.
      Deno.writeTextFileSync(p, input, { append: true });
      const rows = [...first, ...tail.read()];
      for (const r of rows) {
        must(r && typeof r === "object" && !Array.isArray(r), "a row that is not an object");
      }
      const { points, skipped } = metricPoints(rows, "dev_r2");
      must(points.length + skipped === rows.length, "points and skipped do not add up");
      for (const pt of points) {
        must(Number.isFinite(pt.step) && Number.isFinite(pt.value), "non-finite point");
      }
      must(tail.malformed >= 0, "negative malformed count");
      return points.length ? "accepted" : "rejected";
    },
    dispose() {
      if (dir) Deno.removeSync(dir, { recursive: true });
      dir = null;
    },
  };
}

export const csvTarget: Target = {
  name: "numeric CSV reader (parseNumericCsv)",
  seeds: () => [
    ...filesIn("tests/fixtures/csv", /\.csv$/),
    'a,b,"c ""q"""\n1,2,3\n4.5,-6e2,.7\n',
  ],
  generate: (rand) => {
    const cols = 1 + Math.floor(rand() * 5);
    const head = Array.from({ length: cols }, (_, j) => pick(rand, ["x", "y", '"q,1"', "target", ""]) + j)
      .join(",");
    const rows = Array.from(
      { length: Math.floor(rand() * 6) },
      () =>
        Array.from({ length: cols }, () => pick(rand, ["1", "-2.5", "1e3", "", "x", '"7"', "1e999"])).join(
          ",",
        ),
    );
    return [head, ...rows].join(pick(rand, ["\n", "\r\n"])) + "\n";
  },
  check(input) {
    try {
      const t = parseNumericCsv(input, "fuzz.csv");
      must(t.columns.length > 0 && new Set(t.columns).size === t.columns.length, "bad columns accepted");
      for (const row of t.rows) {
        must(row.length === t.columns.length, "ragged row accepted");
        for (const v of row) must(Number.isFinite(v), "non-finite cell accepted");
      }
      return "accepted";
    } catch (e) {
      if (!(e instanceof CsvError)) throw e;
      must(/^fuzz\.csv(:\d+)?: \S/.test(e.message), `message shape: ${e.message.slice(0, 120)}`);
      must(e.line >= 0 && e.line <= input.split("\n").length + 1, `line out of range: ${e.line}`);
      must(
        !UNPRINTABLE.test(e.message),
        `raw control character in message: ${JSON.stringify(e.message.slice(0, 120))}`,
      );
      return "rejected";
    }
  },
};

export function allTargets(): Target[] {
  return [planTarget, faultTarget, jsonTarget, metricsTarget(), csvTarget];
}

/** An input slower than this, plus 2 µs per character (the YAML parser's own pace), is a possible hang. */
export const SLOW_MS = 2000;
const slowFor = (input: string) => SLOW_MS + input.length / 500;

/** Runs `count` seeded inputs through `target`; without `heavy`, no mutation makes an input huge. */
export function runTarget(target: Target, count: number, seed: number, heavy = true): TargetReport {
  const rand = mulberry32(seed);
  const seeds = target.seeds();
  const report: TargetReport = {
    target: target.name,
    inputs: 0,
    accepted: 0,
    rejected: 0,
    ms: 0,
    slowestMs: 0,
    findings: [],
  };
  const t0 = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      const generated = target.generate && (seeds.length === 0 || rand() < 0.3);
      const { input, applied } = generated
        ? { input: target.generate!(rand), applied: ["generated"] }
        : mutate(pick(rand, seeds), rand, heavy);
      const t = performance.now();
      try {
        report[target.check(input)]++;
      } catch (e) {
        const err = e as Error;
        report.findings.push({
          target: target.name,
          input,
          applied,
          problem: `${err.name}: ${err.message}`,
          ...(e instanceof Violation ? {} : { stack: err.stack }),
        });
      }
      const ms = performance.now() - t;
      report.slowestMs = Math.max(report.slowestMs, ms);
      if (ms > slowFor(input)) {
        report.findings.push({ target: target.name, input, applied, problem: `slow: ${ms.toFixed(0)} ms` });
      }
      report.inputs++;
    }
  } finally {
    target.dispose?.();
  }
  report.ms = performance.now() - t0;
  return report;
}

/** One finding, with the input shown escaped and cut, for a person to reproduce. */
export function describeFinding(f: Finding): string {
  const shown = printable(JSON.stringify(f.input.length > 400 ? f.input.slice(0, 400) + "…" : f.input));
  return `${f.target}: ${printable(f.problem)}\n  mutations: ${
    f.applied.join(", ")
  }\n  input (${f.input.length} chars): ${shown}` +
    (f.stack ? `\n  ${f.stack.split("\n").slice(0, 6).join("\n  ")}` : "");
}
