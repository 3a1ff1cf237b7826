import { deepEqual, equal, match } from "node:assert/strict";
import { arrow } from "./helpers/cli.ts";

const USER = "tests/fixtures/user";

Deno.test("a user's own plan runs on the mock path and reaches a verdict", async () => {
  const dir = await Deno.makeTempDir();
  const r = await arrow(["run", `${USER}/plan.yaml`, "--json", "--runs-dir", dir]);
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  equal(out.scenario, "plan");
  equal(out.verdict, "RESEARCH ANSWERED");
  deepEqual(out.incidents, []);
  equal(Object.values(out.nodes).every((s) => s === "verified"), true);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the same plan chaos-tested with a fault script: the out-of-lane write is caught and blamed", async () => {
  const dir = await Deno.makeTempDir();
  const r = await arrow([
    "run",
    `${USER}/plan.yaml`,
    "--faults",
    `${USER}/faults.yaml`,
    "--json",
    "--runs-dir",
    dir,
  ]);
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  equal(out.verdict, "RESULT WITHHELD");
  deepEqual(out.incidents.map((i: { type: string; node: string }) => [i.type, i.node]), [[
    "SCOPE_VIOLATION",
    "tuned",
  ]]);
  equal(out.nodes.simple, "verified");
  const incident = JSON.parse(Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`).split("\n")[0]!);
  deepEqual(incident.evidence.paths, ["nodes/simple/results.json"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a broken fault script is refused with file:line:col for every problem", async () => {
  const r = await arrow(["run", `${USER}/plan.yaml`, "--faults", `${USER}/bad_faults.yaml`]);
  equal(r.code, 1);
  deepEqual(r.stderr.trim().split("\n"), [
    `arrow: ${USER}/bad_faults.yaml is not a valid fault script:`,
    `${USER}/bad_faults.yaml:2:11: faults[0].kind must be one of trainer_profile, manifest_override, out_of_scope_write, stall, bait, crash, reopen, taint, false_claim, frozen_scope, flip_flop, superseding_answer, got "set_on_fire"`,
    `${USER}/bad_faults.yaml:6:5: unknown key "colour" in faults[1] (allowed: node, attempts)`,
  ]);
  const unknown = await arrow(["run", `${USER}/plan.yaml`, "--faults", `${USER}/unknown_node_faults.yaml`]);
  equal(unknown.code, 1);
  match(unknown.stderr, /unknown_node_faults\.yaml:2:9: fault frozen_scope aimed at unknown node "nobody"/);
});

Deno.test("a broken plan is refused before any run directory is made", async () => {
  const dir = await Deno.makeTempDir();
  const r = await arrow(["run", "tests/fixtures/broken/12_three_cycle.yaml", "--runs-dir", dir]);
  equal(r.code, 1);
  match(
    r.stderr,
    /12_three_cycle\.yaml is not a valid plan \(1 problem\):\n.*12_three_cycle\.yaml:11:5: artifact edges form a cycle/,
  );
  deepEqual([...Deno.readDirSync(dir)], []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("--max-ticks fuses what still runs with BUDGET_TRIP and ends without a verdict", async () => {
  const dir = await Deno.makeTempDir();
  const r = await arrow(["run", "--scenario", "green", "--max-ticks", "6", "--json", "--runs-dir", dir]);
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  equal(out.verdict, "NO VERDICT");
  equal(out.ticks, 7);
  deepEqual(out.incidents.map((i: { type: string; ladder: string }) => [i.type, i.ladder]), [[
    "BUDGET_TRIP",
    "fuse",
  ], ["BUDGET_TRIP", "fuse"]]);
  await Deno.remove(dir, { recursive: true });
});
