/**
 * Benchmark of the real path's models against reference implementations, on the seeded default data set:
 *
 * - OLS dev R² against numpy's lstsq — anchor |Δ| ≤ 1e-9;
 * - GBDT (60 stages, depth 3, learning rate 0.1) dev R² against scikit-learn's GradientBoostingRegressor
 *   with the same settings on the same split — anchor |Δ| ≤ 0.02 — and its training speed as a ratio to
 *   scikit-learn's (and to the pure-Python example trainer's).
 *
 * The references run under Debian's python3; when scikit-learn is missing and this runs as root, it is
 * installed with `apt-get install -y python3-sklearn`.
 *
 * Usage: deno run -A scripts/bench_real.ts [--repeat 7]. Exits 1 when an anchor is missed.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  FEATURES,
  generateCsv,
  loadDataset,
  makeSplit,
  splitJson,
  TARGET,
} from "../src/workers/real/data.ts";
import { Booster } from "../src/workers/real/gbdt.ts";
import { fitOls, predictOls } from "../src/workers/real/ols.ts";
import { r2 } from "../src/workers/real/score.ts";

const { values: o } = parseArgs({ args: Deno.args, options: { repeat: { type: "string", default: "7" } } });
const REPEAT = Number(o.repeat);
const PY = "/usr/bin/python3";
const here = new URL(".", import.meta.url).pathname;

const REFERENCE = `
import json, sys, time
import numpy as np
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import r2_score
csv, split, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.load(open(split))
d = np.loadtxt(csv, delimiter=",", skiprows=1)
cols = open(csv).readline().strip().split(",")
X = d[:, [cols.index(f) for f in s["features"]]]
y = d[:, cols.index(s["target"])]
tr, dv = s["train"], s["dev"]
A = np.c_[np.ones(len(y)), X]
beta = np.linalg.lstsq(A[tr], y[tr], rcond=None)[0]
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    g = GradientBoostingRegressor(n_estimators=60, max_depth=3, learning_rate=0.1, random_state=0).fit(X[tr], y[tr])
    times.append(time.perf_counter() - t0)
print(json.dumps({"ols": r2_score(y[dv], A[dv] @ beta), "gbdt": r2_score(y[dv], g.predict(X[dv])),
                  "gbdt_s": sorted(times)[len(times) // 2], "sklearn": __import__("sklearn").__version__}))
`;

function run(cmd: string, args: string[], env: Record<string, string> = {}): { ok: boolean; out: string } {
  try {
    const r = new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped" }).outputSync();
    const dec = new TextDecoder();
    return { ok: r.success, out: dec.decode(r.stdout) + dec.decode(r.stderr) };
  } catch (e) {
    return { ok: false, out: (e as Error).message };
  }
}

function ensureSklearn(): void {
  if (run(PY, ["-c", "import sklearn, numpy"]).ok) return;
  if (Deno.uid() !== 0) {
    throw new Error(`${PY} lacks scikit-learn; install python3-sklearn (apt) and run again`);
  }
  console.log("installing the reference: apt-get install -y python3-sklearn …");
  const r = run("apt-get", ["install", "-y", "python3-sklearn"], { DEBIAN_FRONTEND: "noninteractive" });
  if (!r.ok) throw new Error(`apt-get install python3-sklearn failed:\n${r.out.slice(-2000)}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = Deno.makeTempDirSync({ prefix: "arrow-bench-real-" });
try {
  const csv = `${dir}/data.csv`;
  const split = `${dir}/split.json`;
  Deno.writeTextFileSync(csv, generateCsv(7));
  Deno.writeTextFileSync(split, splitJson(makeSplit(400, 7, TARGET, FEATURES)));
  const d = loadDataset(csv, split);

  const ols = r2(d.dev.y, predictOls(fitOls(d.train.X, d.train.y), d.dev.X));
  const times: number[] = [];
  let gbdt = 0;
  for (let k = 0; k < REPEAT + 2; k++) {
    const t0 = performance.now();
    const b = new Booster(d.train, d.dev, 3);
    for (let s = 0; s < 60; s++) b.stage(0.1);
    if (k >= 2) times.push((performance.now() - t0) / 1000);
    gbdt = r2(d.dev.y, b.fDev);
  }
  const ours = median(times);

  ensureSklearn();
  const ref = run(PY, ["-c", REFERENCE, csv, split, String(REPEAT)]);
  if (!ref.ok) throw new Error(`the reference failed:\n${ref.out}`);
  const want = JSON.parse(ref.out.trim().split("\n").pop()!) as {
    ols: number;
    gbdt: number;
    gbdt_s: number;
    sklearn: string;
  };

  Deno.mkdirSync(`${dir}/py`);
  Deno.writeTextFileSync(`${dir}/inputs.json`, '{"protocol_version":"bench","seed":7}');
  const t0 = performance.now();
  const py = run(PY, [
    ...[
      "-B",
      `${here}python/train_gbdt.py`,
      "--data",
      csv,
      "--split",
      split,
      "--inputs",
      `${dir}/inputs.json`,
    ],
  ], { ARROW_SCOPE: `${dir}/py`, PATH: Deno.env.get("PATH") ?? "/usr/bin" });
  const pySeconds = (performance.now() - t0) / 1000;
  if (!py.ok) throw new Error(`train_gbdt.py failed:\n${py.out}`);
  const pyScore = JSON.parse(Deno.readTextFileSync(`${dir}/py/results.json`)).score as number;

  const dOls = Math.abs(ols - want.ols);
  const dGbdt = Math.abs(gbdt - want.gbdt);
  console.log(
    `data: seeded default set (400 rows, 7 features), train ${d.train.y.length} / dev ${d.dev.y.length}`,
  );
  console.log(
    `OLS dev R²:  ours ${ols.toFixed(12)}  numpy lstsq ${want.ols.toFixed(12)}  |Δ| ${
      dOls.toExponential(2)
    } (anchor ≤ 1e-9)`,
  );
  console.log(
    `GBDT dev R²: ours ${gbdt.toFixed(6)}  scikit-learn ${want.sklearn} ${want.gbdt.toFixed(6)}  |Δ| ${
      dGbdt.toFixed(6)
    } (anchor ≤ 0.02)`,
  );
  console.log(
    `             Python example trainer ${pyScore.toFixed(6)} (${
      pyScore === gbdt ? "bit-identical to ours" : "DIFFERS from ours"
    })`,
  );
  console.log(
    `GBDT fit time (60 stages, median of ${REPEAT}): ours ${(ours * 1000).toFixed(1)} ms, scikit-learn ${
      (want.gbdt_s * 1000).toFixed(1)
    } ms → ours runs at ${(want.gbdt_s / ours).toFixed(2)}× scikit-learn's speed`,
  );
  console.log(
    `             Python example trainer (one process, incl. start-up and checkpoints) ${
      (pySeconds * 1000).toFixed(0)
    } ms`,
  );
  const ok = dOls <= 1e-9 && dGbdt <= 0.02;
  console.log(ok ? "anchors met" : "ANCHOR MISSED");
  Deno.exitCode = ok ? 0 : 1;
} finally {
  Deno.removeSync(dir, { recursive: true });
}
