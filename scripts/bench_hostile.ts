/**
 * The hostile floods at full size (tests/hostile_test.ts runs them small): 1 GB of metrics lines, a single
 * 10 MB metrics line, 10,000 checkpoints, 100,000 files in one scope, and a kill -9 in the middle of the
 * 1 GB flood followed by `arrow resume`. Each runs alone through the arrow CLI; the table gives arrow's
 * peak resident memory (VmHWM, against the issue's 300 MB ceiling), wall time, ticks, the size of
 * replay.jsonl and how the run ended.
 *
 * Usage: deno task bench:hostile [--mode bwrap|unsandboxed] [--only name,name]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { BWRAP, fileSize, how, MODES, RSS_LIMIT_KB } from "../tests/helpers/hostile.ts";
import { Lab, type Outcome, survivalProblems } from "../tests/hostile/lab.ts";
import { floodNodes } from "../tests/hostile/campaigns.ts";
import { type NodeSpec, planDoc } from "../tests/hostile/plans.ts";

const FULL = { floodMb: 1024, lineMb: 10, ckpts: 10_000, files: 100_000 };

interface Case {
  name: string;
  node: NodeSpec;
  /** kill -9 arrow when this holds, then resume. */
  killAt?: (dir: string) => boolean;
}

const [flood, line, ckpts, files] = floodNodes(FULL) as [NodeSpec, NodeSpec, NodeSpec, NodeSpec];
const CASES: Case[] = [
  { name: "metrics_1gb", node: flood },
  { name: "line_10mb", node: line },
  { name: "ckpts_10k", node: ckpts },
  { name: "files_100k", node: files },
  {
    name: "resume_mid_1gb",
    node: flood,
    killAt: (d) => fileSize(`${d}/nodes/flood/metrics.jsonl`) >= 300 << 20,
  },
];

const { values } = parseArgs({
  args: Deno.args,
  options: { mode: { type: "string" }, only: { type: "string" } },
});
const mode = MODES.find((m) => m.name === (values.mode ?? (BWRAP ? "bwrap" : "unsandboxed")));
if (!mode || (mode.name === "bwrap" && !BWRAP)) {
  console.error(
    `bench_hostile: cannot run in mode "${values.mode}" here (bubblewrap: ${BWRAP ?? "missing"})`,
  );
  Deno.exit(1);
}
const only = values.only?.split(",");

const row = (name: string, o: Outcome, extra = "") => {
  const mb = Math.round(o.w.peakKb / 1024);
  // A run the bench killed on purpose is judged by its resume.
  const problems = o.w.killed ? [] : survivalProblems(o);
  return [
    name.padEnd(22),
    `${String(mb).padStart(5)} MB${o.w.peakKb > RSS_LIMIT_KB ? " !" : "  "}`,
    `${(o.w.wallMs / 1000).toFixed(1).padStart(7)} s`,
    String(o.state?.tick ?? "-").padStart(6),
    `${(fileSize(`${o.dir}/replay.jsonl`) / (1 << 20)).toFixed(1).padStart(8)} MB`,
    `${o.state?.verdict ?? "-"}${extra}`,
    problems.length ? `  (${problems.join("; ")})` : "",
  ].join("  ");
};

console.log(`bench_hostile: ${mode.name}, one run per case, ceiling ${RSS_LIMIT_KB >> 10} MB\n`);
console.log(["case".padEnd(22), "peak RSS ", "   wall  ", " ticks", "  replay.jsonl", "verdict"].join("  "));
for (const c of CASES) {
  if (only && !only.includes(c.name)) continue;
  const lab = Lab.open(`bench-${c.name}`);
  try {
    const plan = lab.plan(c.name, planDoc(`bench ${c.name}`, [c.node]));
    const o = await lab.run(mode, plan, c.killAt ? { poll: (d) => !!d && c.killAt!(d) } : {});
    if (!c.killAt) {
      console.log(row(c.name, o));
      continue;
    }
    console.log(row(`${c.name} (killed)`, o, o.w.killed ? "" : ` — never killed: ${how(o.w)}`));
    const r = await lab.resume(mode, o.dir);
    console.log(row(`${c.name} (resume)`, r));
  } finally {
    lab[Symbol.dispose]();
  }
}
