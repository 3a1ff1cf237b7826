/**
 * Every built-in scenario end to end on the mock path: final statuses, incident types/nodes/rungs, the
 * verdict, and byte-identical black boxes (equal to the golden files, whatever the pace).
 * `deno task test:update` rewrites the golden files deliberately.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { resolveBuiltin } from "../src/cli/catalog.ts";
import { parseReplay } from "../src/record/replay.ts";
import { ROOT } from "./helpers/cli.ts";
import { ev, runScenario, type ScenarioRun, statuses } from "./helpers/run.ts";

const V = "verified";
const base = { N0: V, N1: V, N2: V, N3: V };
const EXPECT: Record<
  string,
  { verdict: string; nodes: Record<string, string>; incidents: [string, string, string][] }
> = {
  green: { verdict: "RESEARCH ANSWERED", nodes: { ...base, N4: V, N4e: V, N5: V, N6: V }, incidents: [] },
  plateau: {
    verdict: "NEGATIVE RESULT",
    nodes: { ...base, N4: "plateaued", N4e: V, N5: V, N7: V, N6: V },
    incidents: [["PLATEAU_TRIP", "N4", "fuse"], ["PLATEAU_TRIP", "N7", "graph_surgery"]],
  },
  trap_b: {
    verdict: "RESULT WITHHELD",
    nodes: { ...base, N4: "blocked", N4e: "blocked", N5: "blocked", N6: "blocked" },
    incidents: [["COMPARABILITY_BLOCK", "N4", "blame_routing"]],
  },
  trap_scope: {
    verdict: "RESULT WITHHELD",
    nodes: { ...base, N4: "blocked", N4e: "blocked", N5: "blocked", N6: "blocked" },
    incidents: [["SCOPE_VIOLATION", "N4", "blame_routing"]],
  },
  trap_stale: {
    verdict: "RESEARCH ANSWERED",
    nodes: { ...base, N4: V, N4e: V, N5: V, N6: V },
    incidents: [["STALE_CASCADE", "N1", "downstream_invalidation"]],
  },
  trap_taint: {
    verdict: "RESEARCH ANSWERED",
    nodes: { ...base, N4: V, N4e: V, N5: V, N6: V },
    incidents: [["TAINT_INVALIDATION", "N2", "downstream_invalidation"]],
  },
  hung: {
    verdict: "NEGATIVE RESULT",
    nodes: { ...base, N4: "killed", N4e: V, N5: V, N6: V },
    incidents: [["HUNG_RESTART", "N4", "bounce"], ["HUNG_RESTART", "N4", "fuse"]],
  },
  oscillation: {
    verdict: "RESEARCH ANSWERED",
    nodes: { ...base, N4: V, N4e: V, N5: V, N6: V },
    incidents: [["OSCILLATION_TRIP", "N5", "bounce"]],
  },
  stuck: {
    verdict: "RESEARCH ANSWERED",
    nodes: { ...base, N4: V, N4e: V, N5: V, N6: V },
    incidents: [["BUDGET_TRIP", "N5", "bounce"]],
  },
  false_completion: {
    verdict: "RESULT WITHHELD",
    nodes: { ...base, N4: "killed", N4e: V, N5: V, N6: V },
    incidents: [["FALSE_COMPLETION", "N4", "bounce"], ["FALSE_COMPLETION", "N4", "bounce"], [
      "FALSE_COMPLETION",
      "N4",
      "fuse",
    ]],
  },
  superseded: {
    verdict: "RESEARCH ANSWERED",
    nodes: { ...base, N4: V, N4b: "superseded", N4e: V, N5: V, N6: V },
    incidents: [["SUPERSEDED_KILL", "N4b", "fuse"]],
  },
};

const UPDATE = Deno.env.get("ARROW_UPDATE_GOLDEN") === "1";
const GOLDEN = `${ROOT}tests/golden`;
const runs = new Map<string, ScenarioRun>();

function golden(name: string, run: ScenarioRun): void {
  const dir = `${GOLDEN}/${name}`;
  if (UPDATE) {
    Deno.mkdirSync(dir, { recursive: true });
    Deno.writeTextFileSync(`${dir}/incidents.jsonl`, run.incidentsText);
    Deno.writeTextFileSync(`${dir}/replay.jsonl`, run.replayText);
    return;
  }
  equal(
    run.incidentsText,
    Deno.readTextFileSync(`${dir}/incidents.jsonl`),
    `${name}: incidents.jsonl differs from golden`,
  );
  equal(
    run.replayText,
    Deno.readTextFileSync(`${dir}/replay.jsonl`),
    `${name}: replay.jsonl differs from golden`,
  );
}

for (const [name, want] of Object.entries(EXPECT)) {
  Deno.test(`scenario ${name}: ${want.verdict}, incidents and statuses as specified, black box equals golden`, async () => {
    const run = await runScenario(name);
    runs.set(name, run);
    equal(run.state.verdict, want.verdict);
    equal(resolveBuiltin(name).expect?.verdict, want.verdict, "scenario file's expect agrees");
    deepEqual(statuses(run.state), want.nodes);
    deepEqual(run.incidents.map((i) => [i.type, i.node, i.ladder]), want.incidents);
    for (const line of run.incidentsText.trim().split("\n").filter(Boolean)) {
      const keys = Object.keys(JSON.parse(line));
      deepEqual(keys, [...keys].sort(), "incident keys are sorted");
      ok(
        JSON.parse(line).evidence && Object.keys(JSON.parse(line).evidence).length > 0,
        "every incident has evidence",
      );
    }
    golden(name, run);
  });
}

Deno.test("scenario black boxes do not depend on the pace (--tick-ms 50 gives the same bytes)", async () => {
  for (const name of ["hung", "trap_scope"]) {
    const slow = await runScenario(name, { tickMs: 50 });
    golden(name, slow);
    await Deno.remove(slow.dir, { recursive: true });
  }
});

Deno.test("the same scenario twice gives byte-identical incidents, replay and state", async () => {
  const a = await runScenario("plateau");
  const b = await runScenario("plateau");
  equal(a.incidentsText, b.incidentsText);
  equal(a.replayText, b.replayText);
  equal(a.stateText, b.stateText);
  await Deno.remove(a.dir, { recursive: true });
  await Deno.remove(b.dir, { recursive: true });
});

// ---- what each scenario must show, beyond statuses ------------------------------------------------

function run(name: string): ScenarioRun {
  const r = runs.get(name);
  if (!r) throw new Error(`scenario ${name} did not run (its own test failed earlier)`);
  return r;
}

function eventsAt(r: ScenarioRun, tick: number) {
  return parseReplay(r.replayText).lines.find((l) => l.tick === tick)?.events ?? [];
}

Deno.test("plateau: tripped at a checkpoint boundary, best checkpoint kept, gpu freed, N7 grown and verified", () => {
  const r = run("plateau");
  const trip = r.incidents[0]!;
  const e = ev(trip);
  const ckpts = eventsAt(r, trip.tick).filter((e) => e.e === "ckpt");
  ok(ckpts.some((c) => c.e === "ckpt" && c.file === e.ckpt), "the trip tick saw the checkpoint it names");
  ok(Deno.statSync(`${r.dir}/nodes/N4/${e.kept}`).isFile, "best checkpoint kept on disk");
  ok(
    eventsAt(r, trip.tick).some((x) =>
      x.e === "slot" && x.node === "N4" && x.slot === "gpu" && x.op === "free"
    ),
  );
  equal(ev(r.incidents[1]!).cause_node, "N4");
  ok(
    parseReplay(r.replayText).lines.some((l) =>
      l.events.some((e) => e.e === "slot" && e.node === "N7" && e.op === "hold")
    ),
  );
  equal(r.state.nodes.N4!.best, e.best_dev);
});

Deno.test("trap_b: the deviating data_hash is named, N3 stays verified, the baseline stands", () => {
  const r = run("trap_b");
  const e = ev(r.incidents[0]!);
  equal(e.field, "data_hash");
  equal(e.baseline_stands, "N3");
  equal(r.state.nodes.N3!.status, "verified");
  deepEqual(e.blocked, ["N4", "N4e", "N5", "N6"]);
});

Deno.test("trap_scope: the write was stopped by the sandbox, the path is named, N3 untouched", () => {
  const r = run("trap_scope");
  const e0 = ev(r.incidents[0]!) as unknown as { paths: string[]; attempts: { stopped_by: string | null }[] };
  deepEqual(e0.paths, ["nodes/N3/leaked_by_N4.txt"]);
  equal(e0.attempts[0]!.stopped_by, "deno-audit");
  let leaked = true;
  try {
    Deno.statSync(`${r.dir}/nodes/N3/leaked_by_N4.txt`);
  } catch {
    leaked = false;
  }
  equal(leaked, false);
});

Deno.test("trap_stale: the reopened node's closure turned stale and re-ran back to green", () => {
  const r = run("trap_stale");
  const e0 = ev(r.incidents[0]!) as unknown as { demoted: string[] };
  deepEqual(e0.demoted, ["N1", "N2", "N3", "N4", "N4e", "N5", "N6"]);
  for (const id of e0.demoted) equal(r.state.nodes[id]!.attempt, 2, `${id} ran twice`);
  equal(r.state.nodes.N0!.attempt, 1);
});

Deno.test("trap_taint: readings re-evaluated, training spared (N4's checkpoints and steps unchanged)", () => {
  const r = run("trap_taint");
  const e0 = ev(r.incidents[0]!) as unknown as { invalidated: string[]; spared: string[] };
  deepEqual(e0.spared, ["N4"]);
  ok(e0.invalidated.includes("N3") && e0.invalidated.includes("N4e"));
  equal(r.state.nodes.N4!.attempt, 1, "N4 was not retrained");
  equal(r.state.nodes.N3!.attempt, 2);
  equal(r.state.nodes.N4e!.attempt, 2);
  const lines = Deno.readTextFileSync(`${r.dir}/nodes/N4/metrics.jsonl`).trim().split("\n");
  equal(lines.length, 60, "60 stages, written once");
  equal([...Deno.readDirSync(`${r.dir}/nodes/N4/ckpt`)].length, 10);
  const evals = Deno.readTextFileSync(`${r.dir}/nodes/N4e/evals.jsonl`).trim().split("\n");
  equal(evals.length, 10, "the re-run evaluator re-read all ten checkpoints");
});

Deno.test("hung: restarted once from the best checkpoint, then killed", () => {
  const r = run("hung");
  equal(ev(r.incidents[0]!).resume_from, "ckpt/step_000012.json");
  equal(ev(r.incidents[1]!).recurrence, true);
  equal(r.state.nodes.N4!.restarts, 1);
});

Deno.test("false_completion: each retry improved by ACCEPT_EPS, exhausted on the last lap", () => {
  const r = run("false_completion");
  deepEqual(r.incidents.map((i) => ev(i).lap), [1, 2, 3]);
  equal(ev(r.incidents[2]!).reason, "lap budget exhausted");
  equal(ev(r.incidents[0]!).via, "N5→N4");
  ok(String(ev(r.incidents[0]!).stdout).includes("does not reproduce"));
});

Deno.test("superseded: killed at a checkpoint boundary once N4 answered, gpu freed", () => {
  const r = run("superseded");
  const i = r.incidents[0]!;
  equal(ev(i).answered_by, "N4");
  ok(String(ev(i).ckpt).startsWith("ckpt/step_"));
  ok(eventsAt(r, i.tick).some((e) => e.e === "slot" && e.node === "N4b" && e.op === "free"));
});

Deno.test("oscillation and stuck: the bounce re-ran the node on its second lap", () => {
  equal(run("oscillation").state.nodes.N5!.attempt, 2);
  ok(Array.isArray(ev(run("oscillation").incidents[0]!).trail));
  equal(ev(run("stuck").incidents[0]!).frozen_ticks, 3);
  equal(run("stuck").state.nodes.N5!.attempt, 2);
});

Deno.test("scenario run directories are cleaned up", async () => {
  for (const r of runs.values()) await Deno.remove(r.dir, { recursive: true });
  for (const r of runs.values()) equal(await Deno.stat(r.dir).then(() => true, () => false), false);
});
