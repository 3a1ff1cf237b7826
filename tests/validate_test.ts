import { deepEqual, equal, match } from "node:assert/strict";
import { arrow, pool, ROOT } from "./helpers/cli.ts";

const BROKEN = `${ROOT}tests/fixtures/broken`;
const broken = [...Deno.readDirSync(BROKEN)].map((d) => d.name).filter((n) => n.endsWith(".yaml")).sort();

Deno.test("arrow validate: at least 15 broken plans are covered", () => {
  equal(broken.length >= 15, true, `only ${broken.length} broken fixtures`);
});

Deno.test("arrow validate prints every expected file:line:col problem and exits 1", async (t) => {
  const results = await pool(broken, 2, (name) => arrow(["validate", `tests/fixtures/broken/${name}`]));
  for (const [i, name] of broken.entries()) {
    await t.step(name, () => {
      const r = results[i]!;
      const expected = Deno.readTextFileSync(`${BROKEN}/${name.replace(/\.yaml$/, ".expected")}`);
      equal(r.code, 1, r.stderr);
      deepEqual(r.stdout.split("\n"), expected.split("\n"));
      for (const line of r.stdout.trim().split("\n")) {
        match(line, /^tests\/fixtures\/broken\/[\w.]+:\d+:\d+: \S/);
      }
    });
  }
});

Deno.test("arrow validate passes every shipped scenario plan", async () => {
  const plans = [...Deno.readDirSync(`${ROOT}scenarios/plans`)].map((d) => `scenarios/plans/${d.name}`)
    .sort();
  const r = await arrow(["validate", ...plans]);
  equal(r.code, 0, r.stdout + r.stderr);
  const lines = r.stdout.trim().split("\n");
  deepEqual(lines.map((l) => l.split(":")[0]), plans);
  for (const l of lines) match(l, /: ok \(\d+ nodes, \d+ edges\)$/);
});

Deno.test("arrow validate warns about a demoted 2-cycle but passes", async () => {
  const r = await arrow(["validate", "tests/fixtures/valid/two_cycle.yaml"]);
  equal(r.code, 0);
  match(r.stdout, /two_cycle\.yaml:8:5: .*X → T demoted to a metered back_edge \(laps 3\) \(warning\)/);
});

Deno.test("arrow validate with a missing file exits 1 with one line", async () => {
  const r = await arrow(["validate", "no/such/plan.yaml"]);
  equal(r.code, 1);
  equal(r.stderr.trim(), "arrow validate: cannot read no/such/plan.yaml: no such file");
});
