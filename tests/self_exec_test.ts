/**
 * Workers self-executed from the arrow program (`arrow __worker …`), as a compiled binary must run them:
 * no Deno permission layer, so bubblewrap stands in and the black box stays the same; without bubblewrap
 * the fingerprint guard alone still reverts the write. ARROW_WORKER_MODE=self forces this path from source.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { arrow, ROOT } from "./helpers/cli.ts";
import { needs, NO_BWRAP } from "./helpers/needs.ts";

const noBwrap = needs("self_exec_test", "the bubblewrap case", NO_BWRAP);

async function selfRun(scenario: string, env: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir();
  const r = await arrow(["run", "--scenario", scenario, "--json", "--runs-dir", dir], {
    env: { ARROW_WORKER_MODE: "self", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
  });
  equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  return {
    dir,
    out,
    incidents: Deno.readTextFileSync(`${out.run_dir}/incidents.jsonl`),
    replay: Deno.readTextFileSync(`${out.run_dir}/replay.jsonl`),
  };
}

Deno.test("self-executed workers give the same black box as Deno-sandboxed ones", async () => {
  const r = await selfRun("hung");
  equal(r.replay, Deno.readTextFileSync(`${ROOT}tests/golden/hung/replay.jsonl`));
  equal(r.incidents, Deno.readTextFileSync(`${ROOT}tests/golden/hung/incidents.jsonl`));
  await Deno.remove(r.dir, { recursive: true });
});

Deno.test({
  name: "self-executed workers under bubblewrap: the out-of-lane write is caught in the shadow and blamed",
  ignore: noBwrap,
}, async () => {
  const r = await selfRun("trap_scope");
  equal(r.out.verdict, "RESULT WITHHELD");
  const inc = JSON.parse(r.incidents.trim());
  equal(inc.node, "N4");
  deepEqual(inc.evidence.attempts, [{
    op: "write",
    path: "nodes/N3/leaked_by_N4.txt",
    reverted: false,
    stopped_by: "bwrap-shadow",
  }]);
  await Deno.remove(r.dir, { recursive: true });
});

Deno.test("self-executed workers without bubblewrap: the guard alone reverts the write and reports it", async () => {
  const r = await selfRun("trap_scope", { PATH: "/nonexistent" });
  const inc = JSON.parse(r.incidents.trim());
  equal(inc.type, "SCOPE_VIOLATION");
  equal(inc.node, "N3", "with no sandbox layer to say who wrote, the incident stands on the victim's scope");
  equal(inc.evidence.writer, "unattributed");
  equal(inc.evidence.attempts[0].reverted, true);
  ok(
    !(await Deno.stat(`${r.out.run_dir}/nodes/N3/leaked_by_N4.txt`).then(() => true, () => false)),
    "reverted",
  );
  await Deno.remove(r.dir, { recursive: true });
});
