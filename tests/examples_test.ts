/**
 * The worker examples (scenarios/examples/) run under supervision through the CLI, as a user runs them:
 * `arrow run <plan> --real --json [--faults …]`. Honest runs reach the verdict their plan implies; every
 * misbehaving variant — hang, out-of-lane write, false score, crash, write outside the run directory — is
 * caught with the right incident, blame, evidence and verdict. Variants run a copy of the example's plan with
 * its programs named by absolute path (and a faster pace); the honest runs use the plan files as shipped.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { parse, stringify } from "yaml";
import { loadPlan } from "../src/graph/load.ts";
import { checkFaults, loadFaults } from "../src/graph/scenario.ts";
import { arrow, pool, ROOT } from "./helpers/cli.ts";
import { BWRAP, needs, NO_BWRAP, onPath } from "./helpers/needs.ts";

const EXAMPLES = `${ROOT}scenarios/examples`;

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

const NO_ESCAPE = needs(
  "examples_test",
  "the escape cases (writes outside the run directory)",
  NO_BWRAP && `${NO_BWRAP}: writes outside the run directory cannot be seen`,
);
/**
 * Unsandboxed, no layer sees an out-of-lane write into another scope; the guard reverts it, and — command
 * workers running alone — blames the one program that ran unconfined, saying so (`basis`).
 */
const soleBasis = (writer: string) =>
  new RegExp(`^${writer} was the only program running without a sandbox layer \\(--unsandboxed\\)`);
/** Without bubblewrap the contract asks for an explicit opt-out to run command workers. */
const SANDBOX = BWRAP ? [] : ["--unsandboxed"];
/**
 * Debian's python3 first on PATH (a pyenv shim costs ~1 s per start, and the shell example starts many),
 * through a directory holding only that link — so hiding bubblewrap from PATH stays hidden.
 */
const PATH = (() => {
  const path = Deno.env.get("PATH") ?? "";
  if (!exists("/usr/bin/python3") || onPath("python3") === "/usr/bin/python3") return path;
  const dir = Deno.makeTempDirSync({ prefix: "arrow-ex-python-" });
  Deno.symlinkSync("/usr/bin/python3", `${dir}/python3`);
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  return `${dir}:${path}`;
})();

interface Incident {
  tick: number;
  type: string;
  node: string;
  ladder: string;
  evidence: Record<string, unknown>;
}

interface Outcome {
  code: number;
  stderr: string;
  verdict: string;
  nodes: Record<string, string>;
  incidents: Incident[];
  dir: string;
}

type PlanDoc = {
  protocol: { evaluate?: string[] };
  nodes: {
    id: string;
    observe_every?: string;
    acceptance?: string[];
    worker?: { type: string; argv?: string[]; args?: Record<string, unknown> };
  }[];
};

/**
 * A copy of an example's plan in `dir`: program files named by absolute path (so the copy runs from
 * anywhere), then `edit` applied.
 */
function variant(
  example: string,
  dir: string,
  name: string,
  edit: (doc: PlanDoc) => void = () => {},
): string {
  const doc = parse(Deno.readTextFileSync(`${EXAMPLES}/${example}/plan.yaml`)) as PlanDoc;
  const abs = (argv: string[]) =>
    argv.map((a) => {
      try {
        return Deno.statSync(`${EXAMPLES}/${example}/${a}`).isFile ? `${EXAMPLES}/${example}/${a}` : a;
      } catch {
        return a;
      }
    });
  if (doc.protocol.evaluate) doc.protocol.evaluate = abs(doc.protocol.evaluate);
  for (const n of doc.nodes) if (n.worker?.argv) n.worker.argv = abs(n.worker.argv);
  edit(doc);
  // Each variant in a directory of its own: the variants run side by side, and a plan file written beside
  // a running unconfined plan is a change of that plan's directory.
  Deno.mkdirSync(`${dir}/${name}`, { recursive: true });
  const path = `${dir}/${name}/${name}.yaml`;
  Deno.writeTextFileSync(path, stringify(doc));
  return path;
}

/** Edits the argv of a node: replaces the values of options given, appends the rest. */
function argv(doc: PlanDoc, node: string, opts: Record<string, string>): void {
  const w = doc.nodes.find((n) => n.id === node)!.worker!;
  const out = [...w.argv!];
  for (const [k, v] of Object.entries(opts)) {
    const i = out.indexOf(k);
    if (i >= 0) out[i + 1] = v;
    else out.push(k, v);
  }
  w.argv = out;
}

const observe = (doc: PlanDoc, node: string, every: string) => {
  doc.nodes.find((n) => n.id === node)!.observe_every = every;
};

async function runPlan(plan: string, runs: string, faults?: string): Promise<Outcome> {
  const args = ["run", plan, "--real", "--json", "--runs-dir", runs, ...SANDBOX];
  if (faults) args.push("--faults", faults);
  const r = await arrow(args, { env: { PATH } });
  let summary: { verdict?: string; run_dir?: string; nodes?: Record<string, string> } = {};
  try {
    summary = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");
  } catch {
    // reported through the empty verdict below
  }
  const dir = summary.run_dir ?? "";
  let incidents: Incident[] = [];
  try {
    incidents = Deno.readTextFileSync(`${dir}/incidents.jsonl`).split("\n").filter(Boolean).map((l) =>
      JSON.parse(l)
    );
  } catch {
    // no run directory: the assertions say so
  }
  return {
    code: r.code,
    stderr: r.stderr,
    verdict: summary.verdict ?? "",
    nodes: summary.nodes ?? {},
    incidents,
    dir,
  };
}

const triples = (o: Outcome) => o.incidents.map((i) => [i.type, i.node, i.ladder]);
const why = (o: Outcome) =>
  `exit ${o.code}; ${o.stderr.slice(-1500)}; incidents ${JSON.stringify(triples(o))}`;
const json = (path: string) => JSON.parse(Deno.readTextFileSync(path));
const listDir = (dir: string): string[] => {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name);
  } catch {
    return [];
  }
};
const readOr = (path: string) => {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
};
const steps = (o: Outcome, node: string) =>
  Deno.readTextFileSync(`${o.dir}/nodes/${node}/metrics.jsonl`).split("\n").filter(Boolean).map((l) =>
    JSON.parse(l).step as number
  );
/** Every path an incident's evidence names (paths and escape attempts), to find a written path in. */
const paths = (i: Incident) =>
  JSON.stringify([
    i.evidence.paths,
    (i.evidence.attempts as { path: string }[] | undefined)?.map((a) => a.path),
  ]);

/** Removes a test's runs, unless ARROW_KEEP_RUNS=1 asks to keep them for a look. */
async function cleanUp(dir: string): Promise<void> {
  if (Deno.env.get("ARROW_KEEP_RUNS") === "1") console.log(`examples_test: runs kept in ${dir}`);
  else await Deno.remove(dir, { recursive: true });
}

/** Runs named jobs three at a time, then hands their outcomes to the steps. */
async function runAll(jobs: Record<string, () => Promise<Outcome>>): Promise<Record<string, Outcome>> {
  const names = Object.keys(jobs);
  const done = await pool(names, 3, (n) => jobs[n]!());
  return Object.fromEntries(names.map((n, i) => [n, done[i]!]));
}

/** The host paths the escape variants try to write; the sandbox must keep them from landing. */
const HOME = Deno.env.get("HOME") ?? "/root";
const ESCAPES = ["/tmp/arrow_escape_poly_ridge.txt", `${HOME}/.arrow_escape_poly_ridge.txt`];
for (const p of [...ESCAPES, "/tmp/arrow_escape_baseline.txt"]) await Deno.remove(p).catch(() => {});

Deno.test("every example plan validates and each fault script aims at a node of its plan", () => {
  for (const example of ["python_trainer", "shell_worker"]) {
    const dir = `${EXAMPLES}/${example}`;
    const loaded = loadPlan(Deno.readTextFileSync(`${dir}/plan.yaml`), `${dir}/plan.yaml`);
    deepEqual(loaded.errors, []);
    const scripts = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.startsWith("faults_"))
      .sort();
    deepEqual(scripts.map((n) => n.slice(7, -5)), ["crash", "escape", "false_score", "hang", "out_of_lane"]);
    for (const name of scripts) {
      const r = loadFaults(Deno.readTextFileSync(`${dir}/${name}`), name);
      deepEqual(r.errors, [], name);
      deepEqual(checkFaults(loaded.plan!, r.faults!, r.faultPos, name), [], name);
    }
  }
});

/** Evidence of a claim refused by the declared evaluator: both numbers and the evaluator's argv. */
function recomputed(i: Incident, evaluator: string): number {
  const e = i.evidence;
  equal(e.claimed_score, 0.99);
  ok((e.acceptance as string[]).some((a) => a.endsWith(evaluator)), JSON.stringify(e.acceptance));
  const m = /recomputed (-?[0-9.]+(?:e-?[0-9]+)?)/.exec(String(e.stdout));
  ok(m, String(e.stdout));
  return Number(m[1]);
}

Deno.test("python_trainer: a Python trainer of one's own under overwatch", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "arrow-ex-py-" });
  const runs = `${tmp}/runs`;
  const ex = `${EXAMPLES}/python_trainer`;
  // Variants train fast (0.05 s an epoch); where a hang is the point they are observed every second, so a
  // hang is caught in 3–4 s while the trainer's start-up (well under a second) never looks like one.
  const fast = (name: string, edit: (d: PlanDoc) => void = () => {}) =>
    variant("python_trainer", tmp, name, (d) => {
      argv(d, "poly_ridge", { "--epoch-seconds": "0.05" });
      edit(d);
    });
  const watched = (name: string, extra: Record<string, string> = {}) =>
    fast(name, (d) => {
      observe(d, "poly_ridge", "1s");
      argv(d, "poly_ridge", { "--epoch-seconds": "0.1", ...extra });
    });
  const jobs: Record<string, () => Promise<Outcome>> = {
    honest: () => runPlan(`${ex}/plan.yaml`, runs),
    hang: () => runPlan(watched("hang"), runs, `${ex}/faults_hang.yaml`),
    real_hang: () => runPlan(watched("real_hang", { "--misbehave": "hang", "--misbehave-at": "6" }), runs),
    out_of_lane: () => runPlan(fast("out_of_lane"), runs, `${ex}/faults_out_of_lane.yaml`),
    false_score: () => runPlan(fast("false_score"), runs, `${ex}/faults_false_score.yaml`),
    false_score_manifest: () =>
      runPlan(
        fast("false_score_manifest", (d) => {
          d.nodes.find((n) => n.id === "poly_ridge")!.acceptance = ["@manifest"];
        }),
        runs,
        `${ex}/faults_false_score.yaml`,
      ),
    crash: () => runPlan(fast("crash"), runs, `${ex}/faults_crash.yaml`),
    raising_program: () =>
      runPlan(fast("raising", (d) => argv(d, "poly_ridge", { "--misbehave": "crash" })), runs),
    ...(BWRAP
      ? {
        escape_tmp: () => runPlan(fast("escape_tmp"), runs, `${ex}/faults_escape.yaml`),
        escape_home: () =>
          runPlan(fast("escape_home", (d) => argv(d, "poly_ridge", { "--misbehave": "escape" })), runs),
      }
      : {}),
  };
  const o = await runAll(jobs);
  try {
    await t.step("honest, as shipped (0.5 s an epoch, default pace): RESEARCH ANSWERED", () => {
      const r = o.honest!;
      equal(r.verdict, "RESEARCH ANSWERED", why(r));
      deepEqual(triples(r), []);
      const m = json(`${r.dir}/nodes/poly_ridge/results.json`);
      const d = json(`${r.dir}/nodes/data/results.json`);
      deepEqual([m.data_hash, m.split_hash, m.seed], [d.data_hash, d.split_hash, d.seed]);
      ok(m.score > json(`${r.dir}/nodes/baseline/results.json`).score);
      deepEqual(steps(r, "poly_ridge"), Array.from({ length: 17 }, (_, i) => i));
    });

    await t.step("SDK stall: HUNG, restarted from its last checkpoint, then verified", () => {
      const r = o.hang!;
      deepEqual(triples(r), [["HUNG_RESTART", "poly_ridge", "bounce"]], why(r));
      const e = r.incidents[0]!.evidence;
      deepEqual([e.resume_from, e.step, e.observe_every], ["ckpt/step_000004.json", 5, "1s"]);
      deepEqual(steps(r, "poly_ridge"), [0, 1, 2, 3, 4, 5, ...Array.from({ length: 12 }, (_, i) => i + 5)]);
      equal(r.verdict, "RESEARCH ANSWERED");
    });

    await t.step("a real hang (every attempt, observe_every 1s) is caught twice and killed", () => {
      const r = o.real_hang!;
      deepEqual(triples(r), [["HUNG_RESTART", "poly_ridge", "bounce"], [
        "HUNG_RESTART",
        "poly_ridge",
        "fuse",
      ]], why(r));
      equal(r.incidents[0]!.evidence.resume_from, "ckpt/step_000004.json");
      equal(r.nodes.poly_ridge, "killed");
      equal(r.verdict, "NEGATIVE RESULT");
    });

    await t.step(
      BWRAP
        ? "write into the baseline's scope: SCOPE_VIOLATION blamed on the trainer, withheld"
        : "write into the baseline's scope, unsandboxed: reverted, blamed on the trainer that ran alone, withheld",
      () => {
        const r = o.out_of_lane!;
        const i = r.incidents.find((x) => x.type === "SCOPE_VIOLATION");
        ok(i, why(r));
        match(paths(i), /baseline\/leaked_by_poly_ridge\.txt/);
        ok(!exists(`${r.dir}/nodes/baseline/leaked_by_poly_ridge.txt`), "the baseline's scope stays clean");
        deepEqual([i.node, i.evidence.writer], ["poly_ridge", "poly_ridge"]);
        equal(r.verdict, "RESULT WITHHELD", why(r));
        // WORKERS.md: no layer saw who wrote; the trainer was the one program running unconfined.
        if (!BWRAP) match(String(i.evidence.basis), soleBasis("poly_ridge"));
      },
    );

    await t.step(
      "a claimed 0.99 under @claim: the evaluator recomputes ~0.69, FALSE_COMPLETION, fused",
      () => {
        const r = o.false_score!;
        const mine = r.incidents.filter((x) => x.node === "poly_ridge");
        // The retry claims 0.99 again: it does not improve by ACCEPT_EPS, so it is fused on lap 2.
        deepEqual(mine.map((x) => [x.type, x.ladder]), [["FALSE_COMPLETION", "bounce"], [
          "FALSE_COMPLETION",
          "fuse",
        ]], why(r));
        equal(mine[1]!.evidence.reason, "retry did not improve by ACCEPT_EPS");
        const got = recomputed(mine[0]!, "python_trainer/evaluate.py");
        ok(got > 0.6 && got < 0.7, String(got));
        equal(r.verdict, "RESULT WITHHELD");
      },
    );

    await t.step("a claimed 0.99 under @manifest: above the observed trajectory, FALSE_COMPLETION", () => {
      const r = o.false_score_manifest!;
      const mine = r.incidents.filter((x) => x.node === "poly_ridge");
      deepEqual(mine.map((x) => [x.type, x.ladder]), [["FALSE_COMPLETION", "bounce"], [
        "FALSE_COMPLETION",
        "fuse",
      ]], why(r));
      const e = mine[0]!.evidence;
      equal(e.claimed_score, 0.99);
      match(String(e.problem), /better than the best dev_r2 Arrow observed/);
      ok(
        typeof e.observed_best === "number" && e.observed_best > 0.6 && e.observed_best < 0.7,
        JSON.stringify(e),
      );
      equal(r.verdict, "RESULT WITHHELD");
    });

    await t.step("SDK crash: a crash with exit code and stderr in the evidence, retried, verified", () => {
      const r = o.crash!;
      deepEqual(triples(r), [["FALSE_COMPLETION", "poly_ridge", "bounce"]], why(r));
      const c = r.incidents[0]!.evidence.crash as { exit_code: number; stderr_tail: string[] };
      equal(c.exit_code, 3);
      match(c.stderr_tail.join("\n"), /injected crash at step 5/);
      equal(r.verdict, "RESEARCH ANSWERED");
    });

    await t.step("a program that raises every attempt: crashes with its traceback, fused, withheld", () => {
      const r = o.raising_program!;
      const mine = r.incidents.filter((x) => x.node === "poly_ridge");
      ok(mine.length >= 1 && mine.every((x) => x.type === "FALSE_COMPLETION"), why(r));
      const c = mine[0]!.evidence.crash as { exit_code: number; stderr_tail: string[] };
      equal(c.exit_code, 1);
      match(c.stderr_tail.join("\n"), /RuntimeError: epoch 3: CUDA error/);
      equal(mine.at(-1)!.ladder, "fuse");
      equal(r.verdict, "RESULT WITHHELD");
    });

    await t.step({
      name: "writes to /tmp and $HOME: SCOPE_VIOLATION naming the paths, nothing lands on the host",
      ignore: NO_ESCAPE,
      fn: () => {
        for (const [name, want] of [["escape_tmp", [ESCAPES[0]!]], ["escape_home", ESCAPES]] as const) {
          const r = o[name]!;
          const log = readOr(`${r.dir}/logs/poly_ridge.err`) + readOr(`${r.dir}/logs/poly_ridge.out`);
          // What the SDK's injected write found (one line per attempt that fired it).
          const faults = [...listDir(`${r.dir}/.arrow/faults`)].filter((f) => f.startsWith("poly_ridge."))
            .map((f) => readOr(`${r.dir}/.arrow/faults/${f}`)).join("");
          // /tmp held more than MAX_SHADOWED_ENTRIES entries when the worker started (the other suites'
          // temporary files): the sandbox then leaves it read-only, as WORKERS.md says — the /tmp write is
          // refused, not shadowed, and only the other paths are reported. The trainer says so in its log, the
          // SDK's injected write in its fault log. Nothing may land on the host either way.
          const injectedRefused = faults.split("\n").filter((l) => l.trim()).some((l) => {
            const f = JSON.parse(l) as { path?: string; outcome?: string };
            return /^\/tmp\/arrow_escape/.test(f.path ?? "") &&
              f.outcome === "refused: Read-only file system";
          });
          const tmpRefused = injectedRefused ||
            /could not write \/tmp\/arrow_escape\S*: Read-only file system/.test(log);
          const named = tmpRefused ? want.filter((p) => !p.startsWith("/tmp/")) : [...want];
          if (tmpRefused) {
            console.log(`  ${name}: /tmp was too busy to shadow; its write was refused, not reported`);
          }
          if (!named.length) continue;
          const found = r.incidents.filter((x) => x.type === "SCOPE_VIOLATION");
          ok(found.length, `${name}: ${why(r)}`);
          for (const i of found) equal(i.node, "poly_ridge");
          // Each attempt meets /tmp as it is at its start: busy for one (its write refused, and the log of
          // that attempt replaced by the next one's), shadowed for another. A write is named by the incident
          // of the attempt that made it, so every path must be named by one of them.
          const all = found.map(paths).join(" ");
          for (const p of named) {
            ok(all.includes(p), `${name} names ${p}: ${all}; log: ${log.slice(-600)}; faults: ${faults}`);
          }
          equal(r.verdict, "RESULT WITHHELD");
        }
        for (const p of ESCAPES) ok(!exists(p), `${p} must not exist on the host`);
      },
    });
  } finally {
    await cleanUp(tmp);
  }
});

Deno.test("shell_worker: a plain sh worker under overwatch", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "arrow-ex-sh-" });
  const runs = `${tmp}/runs`;
  const ex = `${EXAMPLES}/shell_worker`;
  // Variants run unpaced, with a shorter GBDT. Where a hang is the point they are observed every 2 s: the
  // script starts Python four times before its first metric line, which takes seconds on a loaded machine.
  const v = (name: string, edit: (d: PlanDoc) => void = () => {}) =>
    variant("shell_worker", tmp, name, (d) => {
      argv(d, "baseline", { "--pace": "0" });
      const gbdt = d.nodes.find((n) => n.id === "gbdt")!.worker as { args: Record<string, number> };
      Object.assign(gbdt.args, { stages: 12, stage_ms: 0 });
      edit(d);
    });
  const watched = (name: string, extra: Record<string, string> = {}) =>
    v(name, (d) => {
      observe(d, "baseline", "2s");
      argv(d, "baseline", { "--pace": "0.1", ...extra });
    });
  const jobs: Record<string, () => Promise<Outcome>> = {
    honest: () => runPlan(`${ex}/plan.yaml`, runs),
    hang: () => runPlan(watched("hang"), runs, `${ex}/faults_hang.yaml`),
    real_hang: () => runPlan(watched("real_hang", { "--misbehave": "hang" }), runs),
    out_of_lane: () => runPlan(v("out_of_lane"), runs, `${ex}/faults_out_of_lane.yaml`),
    false_score: () => runPlan(v("false_score"), runs, `${ex}/faults_false_score.yaml`),
    crash: () => runPlan(v("crash"), runs, `${ex}/faults_crash.yaml`),
    ...(BWRAP ? { escape: () => runPlan(v("escape"), runs, `${ex}/faults_escape.yaml`) } : {}),
  };
  const o = await runAll(jobs);
  try {
    await t.step("honest, as shipped: the GBDT beats the sh baseline, RESEARCH ANSWERED", () => {
      const r = o.honest!;
      equal(r.verdict, "RESEARCH ANSWERED", why(r));
      deepEqual(triples(r), []);
      const m = json(`${r.dir}/nodes/baseline/results.json`);
      const d = json(`${r.dir}/nodes/data/results.json`);
      deepEqual([m.data_hash, m.split_hash, m.seed, m.feature], [d.data_hash, d.split_hash, d.seed, "x3"]);
      deepEqual(steps(r, "baseline"), [1, 2, 3, 4, 5, 6, 7]);
    });

    await t.step(
      "SDK stall inside `arrow_sdk.py metric`: HUNG, resumed from its checkpoint, verified",
      () => {
        const r = o.hang!;
        deepEqual(triples(r), [["HUNG_RESTART", "baseline", "bounce"]], why(r));
        equal(r.incidents[0]!.evidence.resume_from, "ckpt/step_000003.json");
        deepEqual(steps(r, "baseline"), [1, 2, 3, 4, 5, 6, 7]);
        equal(r.verdict, "RESEARCH ANSWERED");
      },
    );

    await t.step("a real hang: restarted, hangs again, killed; no verified baseline, NO VERDICT", () => {
      const r = o.real_hang!;
      deepEqual(
        triples(r),
        [["HUNG_RESTART", "baseline", "bounce"], ["HUNG_RESTART", "baseline", "fuse"]],
        why(r),
      );
      // Feature 2 did not improve the best so far: the best checkpoint is feature 1's (the earliest best).
      equal(r.incidents[0]!.evidence.resume_from, "ckpt/step_000001.json");
      equal(r.nodes.baseline, "killed");
      equal(r.verdict, "NO VERDICT");
    });

    await t.step(
      BWRAP
        ? "write into the GBDT's scope: SCOPE_VIOLATION blamed on the baseline"
        : "write into the GBDT's scope, unsandboxed: reverted, blamed on the baseline that ran alone",
      () => {
        const r = o.out_of_lane!;
        const i = r.incidents.find((x) => x.type === "SCOPE_VIOLATION");
        ok(i, why(r));
        match(paths(i), /gbdt\/leaked_by_baseline\.txt/);
        ok(!exists(`${r.dir}/nodes/gbdt/leaked_by_baseline.txt`));
        deepEqual([i.node, i.evidence.writer], ["baseline", "baseline"]);
        equal(r.verdict, "NO VERDICT", why(r));
        if (!BWRAP) match(String(i.evidence.basis), soleBasis("baseline"));
      },
    );

    await t.step("a claimed 0.99: evaluate.sh recomputes ~0.33, FALSE_COMPLETION, fused; NO VERDICT", () => {
      const r = o.false_score!;
      const mine = r.incidents.filter((x) => x.node === "baseline");
      deepEqual(mine.map((x) => [x.type, x.ladder]), [["FALSE_COMPLETION", "bounce"], [
        "FALSE_COMPLETION",
        "fuse",
      ]], why(r));
      const got = recomputed(mine[0]!, "shell_worker/evaluate.sh");
      ok(Math.abs(got - 0.3313298459302858) < 1e-12, String(got));
      equal(mine.at(-1)!.ladder, "fuse");
      equal(r.verdict, "NO VERDICT");
    });

    await t.step("SDK crash: `set -e` passes exit 3 on; a crash in the evidence, retried, verified", () => {
      const r = o.crash!;
      deepEqual(triples(r), [["FALSE_COMPLETION", "baseline", "bounce"]], why(r));
      const c = r.incidents[0]!.evidence.crash as { exit_code: number; stderr_tail: string[] };
      equal(c.exit_code, 3);
      match(c.stderr_tail.join("\n"), /injected crash at step 5/);
      equal(r.verdict, "RESEARCH ANSWERED");
    });

    await t.step({
      name: "a write to /tmp: SCOPE_VIOLATION naming the path, nothing lands on the host",
      ignore: NO_ESCAPE,
      fn: () => {
        const r = o.escape!;
        ok(!exists("/tmp/arrow_escape_baseline.txt"), "nothing lands on the host");
        // As for the Python trainer above: with /tmp too busy to shadow, the sandbox leaves it read-only and
        // the write is refused, not reported (WORKERS.md). The SDK records the fault's outcome in its fault log.
        const faults = [...Deno.readDirSync(`${r.dir}/.arrow/faults`)].filter((e) =>
          e.name.startsWith("baseline.")
        )
          .map((e) => readOr(`${r.dir}/.arrow/faults/${e.name}`)).join("");
        if (/refused: Read-only file system/.test(faults)) {
          console.log("  shell escape: /tmp was too busy to shadow; its write was refused, not reported");
          return;
        }
        const i = r.incidents.find((x) => x.type === "SCOPE_VIOLATION");
        ok(i, why(r));
        equal(i.node, "baseline");
        ok(paths(i).includes("/tmp/arrow_escape_baseline.txt"), paths(i));
        equal(r.verdict, "NO VERDICT");
      },
    });
  } finally {
    await cleanUp(tmp);
  }
});
