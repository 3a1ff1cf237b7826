/**
 * bench:tree's command line: its options, `--help`, and the one-line error an unknown option or bad value
 * gets (scripts/bench_tree.ts runs the benchmark).
 *
 * @module
 */
import { parseArgs } from "node:util";

export const DEFAULT_DATASETS = "penguins,auto_mpg,credit_g,chile,slid,titanic";

export function usage(msg: string): never {
  console.error(`bench_tree: ${msg} (--help lists the options)`);
  Deno.exit(1);
}

export const HELP = `Usage: deno task bench:tree [options]   (or: deno run -A scripts/bench_tree.ts [options])

Tree mode against random search, greedy and the tree without insights, at an equal budget, on public
datasets (dist/datasets, made by scripts/datasets/prepare.ts), from the default and the weak start; the
references (HistGradientBoosting, XGBoost, logistic/ridge) fit on the same dev + held-out rows and scored on
the same test rows. Prints final-test scores with paired intervals, tree − random, insights − no-insights,
and Arrow's overhead per cycle.

Options:
  --datasets a,b      Datasets (default ${DEFAULT_DATASETS})
  --methods a,b       tree, random, greedy, tree-no-insights (default: all four)
  --starts a,b        default, weak (default: both)
  --seeds N           Seeds per dataset (default 5; 2 with --quick)
  --seed-from N       First seed (more seeds in a second run, pooled with --merge)
  --cycles N          Cycles per run (default 8, the issue's protocol; 2 with --quick)
  --executors N       Hypotheses measured in full per cycle (default 2)
  --screen N          Successive halving's factor for the tree methods (default 3; 1: none)
  --gate-at end|cycle When the merge gate is asked (default end)
  --ref-fit dev+heldout|dev
                      Rows the references are fit on (default dev+heldout)
  --no-refs           Skip the references (no Python needed)
  --no-bwrap          Run without bubblewrap even where it is installed
  --no-slots          A fresh child per job instead of warm slots
  --no-probe          Skip the child-cost probe
  --quick             2 seeds, 2 cycles
  --out FILE          Where the JSON results go (default dist/bench_tree.json)
  --merge a.json,b.json
                      Reprint the score report pooled over earlier runs' outputs
  --ceiling           After each run, score every candidate against the start on held-out and test (the
                      benchmark's reading, never the run's): what an oracle end choice could have kept
  --keep DIR          Copy each ended run's state.json into DIR (named dataset-method-start-seed.json)
  --aa [--seeds N]    Measure the gate's A/A false-admit rate instead
  --help              This text
`;

/** The parsed options (`--help` printed and exited here; an unknown option is a usage error). */
export function benchArgs(args: string[], out: string) {
  const parse = () =>
    parseArgs({
      args,
      options: {
        datasets: { type: "string", default: DEFAULT_DATASETS },
        methods: { type: "string", default: "tree,random,greedy,tree-no-insights" },
        starts: { type: "string", default: "default,weak" },
        seeds: { type: "string" },
        /** The first seed (seeds run from here): more seeds in a second run, pooled with --merge. */
        "seed-from": { type: "string", default: "0" },
        /** Reprint the score report over several runs' JSON outputs (comma-separated), pooled. */
        merge: { type: "string" },
        cycles: { type: "string" },
        executors: { type: "string", default: "2" },
        /** Cut down: 2 seeds, 2 cycles (every dataset, method and start kept). */
        quick: { type: "boolean", default: false },
        /** Rows the references are fit on: dev + held-out (the protocol) or dev alone (what arrow fits). */
        "ref-fit": { type: "string", default: "dev+heldout" },
        "no-refs": { type: "boolean", default: false },
        /** When the merge gate is asked: once at the end (arrow tree's default), or after each cycle (TreeConfig.gateAt). */
        "gate-at": { type: "string", default: "end" },
        /** Successive halving's factor for the tree methods (1: no screening). */
        screen: { type: "string", default: "3" },
        out: { type: "string", default: out },
        "no-bwrap": { type: "boolean", default: false },
        /** A fresh child per job instead of long-lived slots (the comparison for the slots' gain). */
        "no-slots": { type: "boolean", default: false },
        /** Skip the child-cost probe (--quick does). */
        "no-probe": { type: "boolean", default: false },
        /** The gate's A/A false-admit rate instead of the search benchmark. */
        aa: { type: "boolean", default: false },
        /** After each run, every candidate scored against the start on held-out and test (scripts/bench/ceiling.ts). */
        ceiling: { type: "boolean", default: false },
        /** Keep each ended run's state.json in this directory (for reading its choices after the benchmark). */
        keep: { type: "string" },
        help: { type: "boolean", default: false },
      },
    });
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse().values;
  } catch (e) {
    usage((e as Error).message);
  }
  if (values.help) {
    console.log(HELP);
    Deno.exit(0);
  }
  return values;
}
