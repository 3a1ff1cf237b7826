/**
 * The GBDT's parameters, their defaults and the check that fills and validates them. The options added after
 * the first model format (early stopping, column subsampling) are optional and kept out of the normalised
 * parameters while they hold their default, so a model fit without them has the same JSON bytes as before.
 *
 * @module
 */

export interface GbdtParams {
  /** Boosting stages (multiclass grows K trees per stage); with early stopping, the most it may grow. */
  stages: number;
  learningRate: number;
  maxDepth: number;
  minSamplesLeaf: number;
  /** Share of rows drawn (without replacement) for each stage, in (0, 1]. */
  subsample: number;
  /** L2 penalty λ on leaf values. */
  l2: number;
  /** Smallest hessian sum per child. */
  minChildWeight: number;
  /** Histogram bins per feature, 2–255. */
  maxBins: number;
  seed: number;
  /**
   * Share of the training rows held aside (seeded; stratified by class for classification) to measure the
   * loss after each stage, in [0, 0.5]; 0 (default) holds nothing aside.
   */
  validationFraction?: number;
  /**
   * Stop once the held-aside loss has not improved for this many stages and keep the best stage count;
   * 0 (default) never stops early. Needs `validationFraction` > 0.
   */
  earlyStoppingRounds?: number;
  /** Share of the features each tree may split on, drawn per tree (seeded), in (0, 1]; default 1. */
  colsample?: number;
}

export const DEFAULT_GBDT: Readonly<GbdtParams> = {
  stages: 100,
  learningRate: 0.1,
  maxDepth: 3,
  minSamplesLeaf: 1,
  subsample: 1,
  l2: 1,
  minChildWeight: 1e-3,
  maxBins: 255,
  seed: 0,
};

/** The toolkit's strong default: slower and steadier than DEFAULT_GBDT (300 stages at lr 0.05, depth 5, row
 * subsampling, a minimum leaf of 20) — what a practitioner would try first on a small table. */
export const STRONG_GBDT: Readonly<Partial<GbdtParams>> = {
  stages: 300,
  learningRate: 0.05,
  maxDepth: 5,
  subsample: 0.8,
  minSamplesLeaf: 20,
};

/** Defaults of the optional parameters; a parameter at its default is left out of the normalised form. */
export const OPTIONAL_GBDT_DEFAULTS = {
  validationFraction: 0,
  earlyStoppingRounds: 0,
  colsample: 1,
} as const;

const NAMES = [...Object.keys(DEFAULT_GBDT), ...Object.keys(OPTIONAL_GBDT_DEFAULTS)];

/** Checks parameters, filling defaults, with "Cannot …" messages naming the bad value. */
export function gbdtParams(p: Partial<GbdtParams> = {}): GbdtParams {
  for (const k of Object.keys(p)) {
    if (!(k in DEFAULT_GBDT) && !(k in OPTIONAL_GBDT_DEFAULTS)) {
      throw new RangeError(
        `Cannot use GBDT parameter ${JSON.stringify(k)}: it is not one of ${NAMES.join(", ")}`,
      );
    }
  }
  const q: GbdtParams = { ...DEFAULT_GBDT };
  for (const k of Object.keys(DEFAULT_GBDT) as (keyof typeof DEFAULT_GBDT)[]) {
    if (p[k] !== undefined) q[k] = p[k];
  }
  const check = (ok: boolean, name: string, want: string) => {
    if (!ok) {
      const v = (p as Record<string, unknown>)[name] ?? q[name as keyof GbdtParams];
      throw new RangeError(`Cannot use GBDT ${name} ${JSON.stringify(v)}: ${want}`);
    }
  };
  const isNum = (x: unknown): x is number => typeof x === "number" && !Number.isNaN(x);
  check(Number.isInteger(q.stages) && q.stages >= 1 && q.stages <= 100_000, "stages", "an integer 1–100000");
  check(q.learningRate > 0 && q.learningRate <= 10, "learningRate", "a number in (0, 10]");
  check(Number.isInteger(q.maxDepth) && q.maxDepth >= 1 && q.maxDepth <= 20, "maxDepth", "an integer 1–20");
  check(Number.isInteger(q.minSamplesLeaf) && q.minSamplesLeaf >= 1, "minSamplesLeaf", "an integer ≥ 1");
  check(q.subsample > 0 && q.subsample <= 1, "subsample", "a number in (0, 1]");
  check(q.l2 >= 0 && Number.isFinite(q.l2), "l2", "a finite number ≥ 0");
  check(q.minChildWeight >= 0 && Number.isFinite(q.minChildWeight), "minChildWeight", "a finite number ≥ 0");
  check(Number.isInteger(q.maxBins) && q.maxBins >= 2 && q.maxBins <= 255, "maxBins", "an integer 2–255");
  check(Number.isInteger(q.seed), "seed", "an integer");
  const vf = p.validationFraction ?? 0, es = p.earlyStoppingRounds ?? 0, cs = p.colsample ?? 1;
  check(isNum(vf) && vf >= 0 && vf <= 0.5, "validationFraction", "a number in [0, 0.5]");
  check(Number.isInteger(es) && es >= 0 && es <= 100_000, "earlyStoppingRounds", "an integer 0–100000");
  check(es === 0 || vf > 0, "earlyStoppingRounds", "early stopping needs validationFraction > 0");
  check(isNum(cs) && cs > 0 && cs <= 1, "colsample", "a number in (0, 1]");
  if (vf !== 0) q.validationFraction = vf;
  if (es !== 0) q.earlyStoppingRounds = es;
  if (cs !== 1) q.colsample = cs;
  return q;
}
