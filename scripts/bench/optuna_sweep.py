"""Optuna anchors for scripts/bench_sweep.ts: the same 27-configuration grid of the same staged GBDT (the
project's Python trainer, bit-for-bit the arithmetic of Arrow's built-in one), on the same data and split,
under Optuna's SuccessiveHalvingPruner and HyperbandPruner (Debian python3-optuna 3.1).

Each trial trains stage by stage and reports its best dev R2 so far at every stage; a pruned trial stops at
once. The value of a trial is its best dev R2 (what Arrow's trainer claims). Compute is counted in stages.

Usage: /usr/bin/python3 optuna_sweep.py CONFIG.json
CONFIG: {"data": csv, "split": split.json, "space": {name: [values]}, "stages": N, "min_resource": r,
         "eta": 3, "seed": 0}
Prints one JSON object: {"successive_halving": {...}, "hyperband": {...}}, each with best, best_params,
stages, complete, pruned, wall_s.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import optuna  # noqa: E402
from train_gbdt import fit_tree, load, predict, predict_tree, r2  # noqa: E402


def study(cfg, data, pruner):
    split, (xtr, ytr), (xdv, ydv) = data
    order = [sorted(range(len(xtr)), key=lambda i, f=f: (xtr[i][f], i)) for f in range(len(xtr[0]))]
    spent = {"stages": 0}

    def objective(trial):
        p = {k: trial.suggest_categorical(k, v) for k, v in sorted(cfg["space"].items())}
        total = sum(ytr) / len(ytr)
        f_tr, f_dv = predict(total, [], xtr), predict(total, [], xdv)
        rate, best = p["learning_rate"], float("-inf")
        for stage in range(1, cfg["stages"] + 1):
            if stage > 1:
                rate *= p.get("lr_decay", 1)
            res = [ytr[i] - f_tr[i] for i in range(len(ytr))]
            tree = fit_tree(xtr, res, order, p["depth"], rate)
            for i, x in enumerate(xtr):
                f_tr[i] += predict_tree(tree, x)
            for i, x in enumerate(xdv):
                f_dv[i] += predict_tree(tree, x)
            spent["stages"] += 1
            best = max(best, r2(ydv, f_dv))
            trial.report(best, stage)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return best

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    grid = {k: list(v) for k, v in cfg["space"].items()}
    # A fixed study name: Hyperband assigns trials to brackets by a hash of it, so a random one varies runs.
    s = optuna.create_study(
        study_name="bench-sweep",
        direction="maximize",
        sampler=optuna.samplers.GridSampler(grid, seed=cfg["seed"]),
        pruner=pruner,
    )
    t0 = time.monotonic()
    s.optimize(objective, n_trials=len(list_grid(grid)))
    states = [t.state for t in s.trials]
    return {
        "best": s.best_value,
        "best_params": s.best_params,
        "stages": spent["stages"],
        "complete": sum(1 for x in states if x == optuna.trial.TrialState.COMPLETE),
        "pruned": sum(1 for x in states if x == optuna.trial.TrialState.PRUNED),
        "wall_s": round(time.monotonic() - t0, 2),
    }


def list_grid(grid):
    out = [{}]
    for k, vs in sorted(grid.items()):
        out = [dict(c, **{k: v}) for c in out for v in vs]
    return out


def main():
    with open(sys.argv[1]) as f:
        cfg = json.load(f)
    data = load(cfg["data"], cfg["split"])
    r, eta = cfg["min_resource"], cfg["eta"]
    out = {
        "successive_halving": study(
            cfg, data, optuna.pruners.SuccessiveHalvingPruner(min_resource=r, reduction_factor=eta)
        ),
        "hyperband": study(
            cfg,
            data,
            optuna.pruners.HyperbandPruner(min_resource=r, max_resource=cfg["stages"], reduction_factor=eta),
        ),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
