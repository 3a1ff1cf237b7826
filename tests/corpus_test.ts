/**
 * The supervision corpus: plans on graphs other than the seed's, each with a fault script and expectations
 * derived from the seed's rules (tests/corpus/README.md). Every case runs on the mock path, in process, a few
 * at a time; every mismatch of every case is reported at once. Cases listed in tests/corpus/KNOWN_FAILURES.md
 * still fail the run (the list says why the engine is wrong, it does not excuse it).
 *
 * Determinism: a rotating eighth of the cases (by UTC day) runs twice and must give byte-identical
 * incidents.jsonl, replay.jsonl and state.json; `ARROW_CORPUS_REPEAT=all` (or a comma-separated list of case
 * names) repeats others. `ARROW_CORPUS_ONLY=a,b` runs only the named cases; `ARROW_CORPUS_KEEP=1` keeps the
 * run directories.
 */
import { equal, ok } from "node:assert/strict";
import { arrow, pool } from "./helpers/cli.ts";
import { type Case, caseNames, CORPUS, loadCase } from "./corpus_case.ts";
import { type CaseRun, mismatches, runCase } from "./corpus_check.ts";

const MIN_CASES = 45;
const MIN_CLEAN = 12;
/** Cases run at once: runs mostly wait on lock-step children, and the machine has two cores. */
const PARALLEL = 3;
const ROTATION = 8;

const env = (k: string) => Deno.env.get(k) ?? "";
const only = env("ARROW_CORPUS_ONLY").split(",").filter(Boolean);
const names = caseNames().filter((n) => !only.length || only.includes(n));

function knownFailures(): Set<string> {
  const text = Deno.readTextFileSync(`${CORPUS}KNOWN_FAILURES.md`);
  return new Set([...text.matchAll(/^## ([A-Za-z0-9_-]+)\s*$/gm)].map((m) => m[1]!));
}

function repeated(all: readonly string[]): Set<string> {
  const want = env("ARROW_CORPUS_REPEAT");
  if (want === "all") return new Set(all);
  if (want === "none") return new Set();
  if (want) return new Set(want.split(",").filter((n) => all.includes(n)));
  const day = Math.floor(Date.now() / 86_400_000);
  return new Set(all.filter((_, i) => i % ROTATION === day % ROTATION));
}

Deno.test("corpus: enough cases, enough clean ones, every case loads and every fault can take effect", () => {
  const all = caseNames();
  const cases = all.map(loadCase);
  ok(cases.length >= MIN_CASES, `${cases.length} cases, at least ${MIN_CASES} wanted`);
  const silent = cases.filter((c) => c.expect.incidents.length === 0);
  ok(silent.length >= MIN_CLEAN, `${silent.length} cases that raise nothing, at least ${MIN_CLEAN} wanted`);
  for (const c of cases) {
    const spawned = c.resolved.plan.nodes.filter((n) => !n.spawn_only).map((n) => n.id);
    for (const id of spawned) ok(id in c.expect.statuses, `${c.name}: expect.yaml gives no status for ${id}`);
  }
  for (const k of knownFailures()) ok(all.includes(k), `KNOWN_FAILURES.md names unknown case ${k}`);
});

Deno.test("corpus: arrow validate accepts every corpus plan", async () => {
  const plans = caseNames().map((n) => `${CORPUS}${n}/plan.yaml`);
  const r = await arrow(["validate", "--quiet", ...plans]);
  equal(r.stdout + r.stderr, "", "no problem and no warning in any plan");
  equal(r.code, 0);
});

Deno.test("corpus: every case meets the expectations derived from the rules; repeats are byte-identical", async () => {
  const known = knownFailures();
  const cases = names.map(loadCase);
  const twice = repeated(names);
  const jobs = [
    ...cases.map((c) => ({ c, again: false })),
    ...cases.filter((c) => twice.has(c.name)).map((c) => ({ c, again: true })),
  ];
  const first = new Map<string, CaseRun>();
  const problems = new Map<string, string[]>();
  const note = (c: Case, p: string[]) => problems.set(c.name, [...(problems.get(c.name) ?? []), ...p]);
  const t0 = performance.now();
  const runs = await pool(jobs, PARALLEL, async ({ c, again }) => {
    try {
      const r = await runCase(c);
      if (!again) {
        first.set(c.name, r);
        note(c, mismatches(c, r));
      }
      return { c, again, run: r };
    } catch (e) {
      note(c, [`the run failed: ${(e as Error).stack ?? e}`]);
      return { c, again, run: null };
    }
  });
  for (const { c, run } of runs.filter((x) => x.again)) {
    const a = first.get(c.name);
    for (const k of ["incidents", "replay", "state"] as const) {
      if (a && run && a.box[k] !== run.box[k]) note(c, [`repeat: ${k} differs between two runs`]);
    }
  }
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `corpus: ${cases.length} cases (${twice.size} run twice: ${[...twice].join(", ") || "none"}) in ${secs}s`,
  );
  for (const { c, run } of runs) {
    if (!run) continue;
    if (env("ARROW_CORPUS_KEEP") === "1") console.log(`  ${c.name}: ${run.dir}`);
    else await Deno.remove(run.dir, { recursive: true });
  }
  const failing = [...problems].filter(([, p]) => p.length);
  const lines = failing.map(([name, p]) =>
    `${name}${known.has(name) ? " (known, see KNOWN_FAILURES.md)" : " (NEW)"}:\n    ${p.join("\n    ")}`
  );
  const fixed = [...known].filter((k) => names.includes(k) && !problems.get(k)?.length);
  for (const k of fixed) lines.push(`${k}: passes now; remove it from KNOWN_FAILURES.md`);
  if (lines.length) throw new Error(`${failing.length} of ${cases.length} cases fail:\n${lines.join("\n")}`);
});
