import { deepEqual } from "node:assert/strict";
import { loadPlan } from "./load.ts";

const plan = (slurm: string) =>
  `question: q
protocol: { version: v1, metric: r2, direction: maximize }
resources: { runtime: slurm }
nodes:
  - id: T
    kind: long
    role: train
    slurm:
${slurm}
`;

Deno.test("validateSlurm() places each bad option at its value's line and column", () => {
  const r = loadPlan(
    plan(`      time: 1h\n      mem: 4G\n      gres: "gpu:0"\n      account: "a b"`),
    "p.yaml",
  );
  deepEqual(r.errors.map((e) => [e.line, e.col, e.message.split(":")[0]]), [
    [9, 13, 'node "T"'],
    [11, 13, 'node "T"'],
    [12, 16, 'node "T"'],
  ]);
  deepEqual(r.errors.map((e) => /Cannot use (\w+)/.exec(e.message)?.[1]), ["time", "gres", "account"]);
});

Deno.test("validateSlurm() accepts every form sbatch does and leaves type errors to the schema", () => {
  const ok = loadPlan(
    plan(`      time: "2-00:00:00"\n      mem: 512M\n      gres: gpu:a100:2\n      cpus: 4`),
    "p.yaml",
  );
  deepEqual(ok.errors, []);
  const typed = loadPlan(plan(`      cpus: many`), "p.yaml");
  deepEqual(typed.errors.length, 1);
});
