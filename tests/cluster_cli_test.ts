/**
 * `--runtime slurm` when the cluster cannot be used: `arrow run` and `arrow tree` connect through one
 * function (src/cli/cluster.ts), so both say the same thing — the command, what the cluster said, where the
 * cluster comes from — exit 1, and leave no run directory behind. With Slurm's tools installed the
 * controller named by a missing SLURM_CONF does not answer; without them the tools are missing: either way
 * the cluster is unusable, so this runs on every machine.
 *
 * @module
 */
import { equal, match } from "node:assert/strict";
import { arrow, ROOT } from "./helpers/cli.ts";

const HINT = /the cluster is the one \$SLURM_CONF names .*see WORKERS\.md, Running on a cluster/;

const cases: [string, string[]][] = [
  ["arrow run", ["run", "--scenario", "green", "--real", "--runtime", "slurm"]],
  ["arrow tree", [
    "tree",
    "--data",
    `${ROOT}tests/fixtures/tree/small.csv`,
    "--target",
    "label",
    "--runtime",
    "slurm",
  ]],
];

for (const [command, args] of cases) {
  Deno.test(`${command} --runtime slurm without a usable cluster: one message, exit 1, no run directory`, async () => {
    const runsDir = Deno.makeTempDirSync({ prefix: "arrow-cluster-" });
    try {
      const r = await arrow([...args, "--runs-dir", runsDir], {
        env: { SLURM_CONF: `${runsDir}/none.conf` },
      });
      equal(r.code, 1, r.stderr);
      match(r.stderr, new RegExp(`^${command} --runtime slurm: Cannot use Slurm`, "m"));
      match(r.stderr, HINT);
      equal([...Deno.readDirSync(runsDir)].length, 0, "nothing is left in the runs directory");
    } finally {
      Deno.removeSync(runsDir, { recursive: true });
    }
  });
}
