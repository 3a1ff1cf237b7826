/**
 * The real path's numerics: OLS against an independent solver, GBDT resume equal to an uninterrupted run,
 * the Python trainer equal to the built-in one bit for bit, and the @claim check refusing a claim, a model or
 * a data set that does not reproduce.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { main as checkClaim } from "../src/workers/check_claim.ts";
import { sha256 } from "../src/workers/lib/files.ts";
import { linkFrom, type OlsFile } from "../src/workers/real/artifact.ts";
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
import { ROOT } from "./helpers/cli.ts";
import { PYTHON } from "./helpers/real.ts";

/** A run directory holding the seeded data set in nodes/N1. */
async function dataDir(): Promise<{ dir: string; csv: string; split: string }> {
  const dir = await Deno.makeTempDir({ prefix: "arrow-model-" });
  Deno.mkdirSync(`${dir}/nodes/N1`, { recursive: true });
  const csv = `${dir}/nodes/N1/data.csv`;
  const split = `${dir}/nodes/N1/split.json`;
  Deno.writeTextFileSync(csv, generateCsv(7));
  Deno.writeTextFileSync(split, splitJson(makeSplit(400, 7, TARGET, FEATURES)));
  return { dir, csv, split };
}

/** Least squares by the normal equations and Gauss–Jordan elimination: a second, independent method. */
function normalEquations(X: number[][], y: number[]): number[] {
  const A = X.map((r) => [1, ...r]);
  const k = A[0]!.length;
  const M = Array.from({ length: k }, (_, i) => [
    ...Array.from({ length: k }, (_, j) => A.reduce((s, r) => s + r[i]! * r[j]!, 0)),
    A.reduce((s, r, n) => s + r[i]! * y[n]!, 0),
  ]);
  for (let c = 0; c < k; c++) {
    const p = M.slice(c).reduce((b, r, i) => (Math.abs(r[c]!) > Math.abs(M[b]![c]!) ? c + i : b), c);
    [M[c], M[p]] = [M[p]!, M[c]!];
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / M[c]![c]!;
      for (let j = c; j <= k; j++) M[r]![j]! -= f * M[c]![j]!;
    }
  }
  return M.map((r, i) => r[k]! / r[i]!);
}

Deno.test("fitOls() matches an independent normal-equations solve to 1e-9 in dev R²", async () => {
  const { dir, csv, split } = await dataDir();
  try {
    const d = loadDataset(csv, split);
    const ours = r2(d.dev.y, predictOls(fitOls(d.train.X, d.train.y), d.dev.X));
    const [b0, ...b] = normalEquations(d.train.X, d.train.y);
    const ref = r2(d.dev.y, predictOls({ kind: "ols", intercept: b0!, coef: b }, d.dev.X));
    ok(Math.abs(ours - ref) < 1e-9, `${ours} vs ${ref}`);
    // A duplicated column changes nothing the model predicts.
    const dup = (X: number[][]) => X.map((r) => [...r, r[0]!]);
    const twice = r2(d.dev.y, predictOls(fitOls(dup(d.train.X), d.train.y), dup(d.dev.X)));
    ok(Math.abs(twice - ours) < 1e-9, `${twice} vs ${ours}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Booster resumed from stage 12 grows the same trees as an uninterrupted run", async () => {
  const { dir, csv, split } = await dataDir();
  try {
    const d = loadDataset(csv, split);
    const straight = new Booster(d.train, d.dev, 3);
    for (let s = 0; s < 60; s++) straight.stage(0.1);
    const first = new Booster(d.train, d.dev, 3);
    for (let s = 0; s < 12; s++) first.stage(0.1);
    const saved = JSON.parse(JSON.stringify({ init: first.init, trees: first.trees }));
    const resumed = new Booster(d.train, d.dev, 3, saved);
    for (let s = 12; s < 60; s++) resumed.stage(0.1);
    deepEqual(resumed.trees, straight.trees);
    equal(r2(d.dev.y, resumed.fDev), r2(d.dev.y, straight.fDev));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the Python trainer grows the built-in trainer's trees bit for bit, also after a resume", async () => {
  const { dir, csv, split } = await dataDir();
  try {
    Deno.mkdirSync(`${dir}/nodes/N2`);
    Deno.writeTextFileSync(`${dir}/nodes/N2/results.json`, '{"protocol_version":"p1","seed":7}');
    const py = async (scope: string, env: Record<string, string>) => {
      Deno.mkdirSync(scope, { recursive: true });
      const out = await new Deno.Command(PYTHON, {
        args: [
          ...["-B", `${ROOT}scripts/python/train_gbdt.py`, "--data", csv, "--split", split],
          ...["--inputs", `${dir}/nodes/N2/results.json`, "--stages", "30"],
        ],
        env: { ARROW_SCOPE: scope, ARROW_NODE: "N4", ...env },
        stdout: "null",
        stderr: "piped",
      }).output();
      equal(out.code, 0, new TextDecoder().decode(out.stderr));
    };
    await py(`${dir}/nodes/N4`, {});
    await py(`${dir}/nodes/N4r`, { ARROW_RESUME_FROM: `${dir}/nodes/N4/ckpt/step_000012.json` });
    const d = loadDataset(csv, split);
    const b = new Booster(d.train, d.dev, 3);
    for (let s = 0; s < 30; s++) b.stage(0.1);
    for (const scope of ["N4", "N4r"]) {
      const ck = JSON.parse(Deno.readTextFileSync(`${dir}/nodes/${scope}/ckpt/step_000030.json`));
      equal(ck.init, b.init);
      deepEqual(ck.trees, b.trees, scope);
    }
    const m = JSON.parse(Deno.readTextFileSync(`${dir}/nodes/N4/results.json`));
    equal(m.score, r2(d.dev.y, b.fDev));
    equal(m.data_hash, await sha256(Deno.readFileSync(csv)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("@claim recomputes an OLS claim from model.json and the data it links to", async () => {
  const { dir, csv, split } = await dataDir();
  const scope = `${dir}/nodes/N3`;
  const quiet = console.log;
  try {
    Deno.mkdirSync(scope);
    const d = loadDataset(csv, split);
    const fit = fitOls(d.train.X, d.train.y);
    const ref = {
      csv,
      split,
      data_hash: await sha256(Deno.readFileSync(csv)),
      split_hash: await sha256(Deno.readFileSync(split)),
    };
    const model: OlsFile = { ...fit, features: d.features, target: d.target, data: linkFrom(scope, ref) };
    equal(model.data.csv, "../N1/data.csv");
    Deno.writeTextFileSync(`${scope}/model.json`, JSON.stringify(model));
    const claim = (score: number) =>
      Deno.writeTextFileSync(
        `${scope}/results.json`,
        JSON.stringify({ node: "N3", score, artifact: "model.json" }),
      );
    const check = () => checkClaim(["claim", scope, "N3", "maximize", "1e-6"]);
    console.log = () => {};
    claim(r2(d.dev.y, predictOls(fit, d.dev.X)));
    equal(await check(), 0);
    claim(r2(d.dev.y, predictOls(fit, d.dev.X)) + 2e-6);
    equal(await check(), 1, "a claim off by more than the tolerance");
    claim(r2(d.dev.y, predictOls(fit, d.dev.X)));
    Deno.writeTextFileSync(csv, Deno.readTextFileSync(csv).replace("\n0.", "\n1."));
    equal(await check(), 1, "the data changed under the model");
  } finally {
    console.log = quiet;
    await Deno.remove(dir, { recursive: true });
  }
});
