import { equal, match, ok } from "node:assert/strict";
import { stringify } from "yaml";
import { prepare } from "../../engine/prepare.ts";
import { loadPlan } from "../../graph/load.ts";
import { acceptanceCommand } from "./accept_command.ts";

function setup() {
  const r = loadPlan(
    stringify({
      question: "Is the claim recomputed from the node's own artifact?",
      protocol: {
        version: "p1",
        metric: "dev",
        direction: "maximize",
        evaluate: ["python3", "ev.py", "{artifact}"],
      },
      nodes: [
        {
          id: "x",
          kind: "fast",
          role: "other",
          acceptance: ["@claim"],
          worker: { type: "command", argv: ["true"] },
        },
        { id: "y", kind: "fast", role: "other", worker: { type: "command", argv: ["true"] } },
      ],
      edges: [],
    }),
    "plan.yaml",
  );
  if (!r.plan) throw new Error(JSON.stringify(r.errors));
  const state = prepare(r.plan, [], "t", "real");
  const runDir = Deno.makeTempDirSync();
  for (const n of ["x", "y"]) Deno.mkdirSync(`${runDir}/nodes/${n}`, { recursive: true });
  const cmd = () => acceptanceCommand(state, r.plan!.nodes[0]!, runDir, { bwrap: null });
  return { runDir, x: `${runDir}/nodes/x`, cmd };
}

const manifest = (artifact: string) => JSON.stringify({ node: "x", score: 0.9, artifact });

Deno.test("acceptanceCommand() hands the evaluator the node's own artifact", () => {
  const s = setup();
  Deno.mkdirSync(`${s.x}/model`);
  Deno.writeTextFileSync(`${s.x}/model/w.json`, "{}");
  Deno.writeTextFileSync(`${s.x}/results.json`, manifest("model/w.json"));
  const c = s.cmd();
  equal(c.refuse, undefined);
  equal(c.args.at(-1), `${s.x}/model/w.json`);
});

Deno.test("acceptanceCommand() refuses an artifact reached through a link (a sibling's model, a linked directory)", () => {
  const s = setup();
  Deno.writeTextFileSync(`${s.runDir}/nodes/y/best.json`, "{}");
  Deno.symlinkSync(`${s.runDir}/nodes/y/best.json`, `${s.x}/mine.json`);
  Deno.symlinkSync(`${s.runDir}/nodes/y`, `${s.x}/dir`);
  Deno.writeTextFileSync(`${s.x}/results.json`, manifest("mine.json"));
  match(s.cmd().refuse ?? "", /the artifact "mine\.json" is a symbolic link/);
  Deno.writeTextFileSync(`${s.x}/results.json`, manifest("dir/best.json"));
  match(s.cmd().refuse ?? "", /the artifact "dir\/best\.json" is a symbolic link/);
  Deno.writeTextFileSync(`${s.x}/results.json`, manifest("../y/best.json"));
  match(s.cmd().refuse ?? "", /names no artifact inside the scope/);
});

Deno.test("acceptanceCommand() reads results.json bounded: a FIFO or a link to /dev/zero is refused at once", () => {
  const s = setup();
  const fifo = new Deno.Command("mkfifo", { args: [`${s.x}/results.json`] }).outputSync();
  ok(fifo.success);
  match(s.cmd().refuse ?? "", /results\.json .*no artifact to recompute/);
  Deno.removeSync(`${s.x}/results.json`);
  Deno.symlinkSync("/dev/zero", `${s.x}/results.json`);
  match(s.cmd().refuse ?? "", /results\.json .*no artifact to recompute/);
  Deno.removeSync(`${s.x}/results.json`);
  Deno.writeTextFileSync(`${s.x}/results.json`, `{"node":"x","pad":"${"a".repeat(2 << 20)}"}`);
  match(s.cmd().refuse ?? "", /results\.json .*no artifact to recompute/);
});
