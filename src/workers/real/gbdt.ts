/**
 * Gradient-boosted regression trees for squared error, one stage at a time: each stage fits a depth-limited
 * tree to the residuals by exact greedy search (every midpoint between distinct values, largest reduction of
 * squared error, first best on ties in feature then value order) and adds it, shrunk by the stage's rate.
 * The Python trainer (scripts/python/train_gbdt.py) implements the same arithmetic in the same order, so both
 * produce the same trees bit for bit.
 *
 * Model format (model.json and checkpoints): `init` plus `trees`, each a flat node list — `f` feature index
 * (−1 for a leaf), `t` threshold (go left when x ≤ t), `l`/`r` child indices, `v` leaf value with the rate
 * already applied. A prediction is `init` plus each tree's leaf value, added in tree order.
 *
 * @module
 */

export interface Tree {
  f: number[];
  t: number[];
  l: number[];
  r: number[];
  v: number[];
}

export function predictTree(tree: Tree, x: readonly number[]): number {
  let i = 0;
  while (tree.f[i]! >= 0) i = x[tree.f[i]!]! <= tree.t[i]! ? tree.l[i]! : tree.r[i]!;
  return tree.v[i]!;
}

export function predict(init: number, trees: readonly Tree[], X: readonly number[][]): number[] {
  return X.map((x) => {
    let s = init;
    for (const t of trees) s += predictTree(t, x);
    return s;
  });
}

/** Row indices sorted by each feature's value (ties by row index): computed once per data set. */
export function presort(X: readonly number[][]): number[][] {
  const p = X[0]?.length ?? 0;
  return Array.from(
    { length: p },
    (_, f) => X.map((_, i) => i).sort((a, b) => X[a]![f]! - X[b]![f]! || a - b),
  );
}

interface Open {
  id: number;
  n: number;
  sum: number;
  best: { gain: number; f: number; t: number } | null;
}

/** Fits one tree to `res` over all rows of X, growing level by level (one pass per feature per level). */
export function fitTree(
  X: readonly number[][],
  res: readonly number[],
  sorted: readonly number[][],
  depth: number,
  rate: number,
): Tree {
  const tree: Tree = { f: [], t: [], l: [], r: [], v: [] };
  const add = () => {
    tree.f.push(-1);
    tree.t.push(0);
    tree.l.push(-1);
    tree.r.push(-1);
    tree.v.push(0);
    return tree.f.length - 1;
  };
  const at = new Int32Array(X.length);
  const setLeaf = (o: Open) => (tree.v[o.id] = rate * (o.sum / o.n));
  let sum = 0;
  for (const v of res) sum += v;
  let open: Open[] = [{ id: add(), n: X.length, sum, best: null }];
  for (let level = 0; level < depth && open.length; level++) {
    const slot = new Map(open.map((o, k) => [o.id, k]));
    for (let f = 0; f < sorted.length; f++) {
      const nL = new Array<number>(open.length).fill(0);
      const sL = new Array<number>(open.length).fill(0);
      const last = new Array<number>(open.length).fill(0);
      for (const i of sorted[f]!) {
        const k = slot.get(at[i]!);
        if (k === undefined) continue;
        const o = open[k]!;
        const x = X[i]![f]!;
        if (nL[k]! > 0 && x > last[k]!) {
          const nR = o.n - nL[k]!;
          const sR = o.sum - sL[k]!;
          const gain = sL[k]! * sL[k]! / nL[k]! + sR * sR / nR - o.sum * o.sum / o.n;
          if (gain > 0 && (o.best === null || gain > o.best.gain)) {
            o.best = { gain, f, t: (last[k]! + x) / 2 };
          }
        }
        nL[k]! += 1;
        sL[k]! += res[i]!;
        last[k] = x;
      }
    }
    const next: Open[] = [];
    for (const o of open) {
      if (!o.best) {
        setLeaf(o);
        continue;
      }
      const { f, t } = o.best;
      const kids: Open[] = [{ id: add(), n: 0, sum: 0, best: null }, { id: add(), n: 0, sum: 0, best: null }];
      tree.f[o.id] = f;
      tree.t[o.id] = t;
      tree.l[o.id] = kids[0]!.id;
      tree.r[o.id] = kids[1]!.id;
      for (let i = 0; i < X.length; i++) {
        if (at[i] !== o.id) continue;
        const kid = X[i]![f]! <= t ? kids[0]! : kids[1]!;
        at[i] = kid.id;
        kid.n += 1;
        kid.sum += res[i]!;
      }
      next.push(...kids);
    }
    open = [];
    // A split always leaves both sides non-empty; a single row cannot be split again.
    for (const k of next) {
      if (k.n >= 2) open.push(k);
      else setLeaf(k);
    }
  }
  for (const o of open) setLeaf(o);
  return tree;
}

/** Staged boosting state: the trees so far and the running predictions on the training and dev rows. */
export class Booster {
  readonly trees: Tree[];
  readonly init: number;
  readonly fTrain: number[];
  readonly fDev: number[];
  readonly #sorted: number[][];

  constructor(
    readonly train: { X: number[][]; y: number[] },
    readonly dev: { X: number[][]; y: number[] },
    readonly depth: number,
    from?: { init: number; trees: Tree[] },
  ) {
    let sum = 0;
    for (const v of train.y) sum += v;
    this.init = from?.init ?? sum / train.y.length;
    this.trees = [...(from?.trees ?? [])];
    this.fTrain = predict(this.init, this.trees, train.X);
    this.fDev = predict(this.init, this.trees, dev.X);
    this.#sorted = presort(train.X);
  }

  /** Fits and adds one stage with shrinkage `rate`. */
  stage(rate: number): Tree {
    const res = this.train.y.map((y, i) => y - this.fTrain[i]!);
    const tree = fitTree(this.train.X, res, this.#sorted, this.depth, rate);
    this.trees.push(tree);
    this.train.X.forEach((x, i) => (this.fTrain[i]! += predictTree(tree, x)));
    this.dev.X.forEach((x, i) => (this.fDev[i]! += predictTree(tree, x)));
    return tree;
  }
}
