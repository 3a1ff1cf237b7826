"""Reference GBDTs for scripts/bench_tabular.ts: fits scikit-learn's GradientBoosting and XGBoost (hist) on the
matrices the benchmark wrote, times each fit, and writes test-set predictions for the benchmark to score.

Usage: python3 gbm_ref.py DIR  (DIR holds config.json, train_X.csv, train_y.csv, test_X.csv)
Prints one JSON object: {"sklearn": {"fit_s": …, "pred": "…"}, "xgboost": {…}} (min fit time over repeats).
sklearn 1.2 (Debian 12) cannot take NaN, so it gets missing values replaced by a value below every observed
one (a fixed "missing goes left" rule); XGBoost gets NaN and learns a default direction, as ours does.
"""
import json
import sys
import time

import numpy as np


def load(path):
    return np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float64, ndmin=2)


def main():
    d = sys.argv[1]
    cfg = json.load(open(f"{d}/config.json"))
    Xtr, Xte = load(f"{d}/train_X.csv"), load(f"{d}/test_X.csv")
    ytr = np.genfromtxt(f"{d}/train_y.csv", skip_header=1, dtype=np.float64)
    task, reps = cfg["task"], cfg["repeats"]
    common = dict(n_estimators=cfg["stages"], learning_rate=cfg["learning_rate"], max_depth=cfg["max_depth"])
    out = {}

    from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    low = np.nanmin(np.vstack([Xtr, Xte]), axis=0)
    fill = np.where(np.isnan(low), 0.0, low) - 1.0
    Xtr_s = np.where(np.isnan(Xtr), fill, Xtr)
    Xte_s = np.where(np.isnan(Xte), fill, Xte)
    if task == "regression":
        sk = lambda: GradientBoostingRegressor(random_state=0, **common)
    else:
        sk = lambda: GradientBoostingClassifier(random_state=0, **common)
    out["sklearn"] = fit_predict(sk, Xtr_s, ytr, Xte_s, task, reps, f"{d}/pred_sklearn.csv")

    import xgboost as xgb

    params = dict(tree_method="hist", n_jobs=cfg["threads"], random_state=0, **common)
    if task == "regression":
        xg = lambda: xgb.XGBRegressor(**params)
    else:
        xg = lambda: xgb.XGBClassifier(**params)
    out["xgboost"] = fit_predict(xg, Xtr, ytr.astype(int) if task != "regression" else ytr, Xte, task, reps,
                                 f"{d}/pred_xgboost.csv")
    if cfg.get("alpha") is not None:
        out["linear"] = linear(Xtr, ytr, Xte, task, cfg["alpha"], reps, f"{d}/pred_linear.csv")
    out["versions"] = {"sklearn": __import__("sklearn").__version__, "xgboost": xgb.__version__}
    print(json.dumps(out))


def linear(Xtr, ytr, Xte, task, alpha, reps, path):
    """Ridge / LogisticRegression(C = 1/alpha) on the inputs Arrow's linear model builds: standardised with
    the training mean and population deviation, missing → 0, plus a 0/1 indicator per column with missing
    training values."""
    from sklearn.linear_model import LogisticRegression, Ridge

    mean = np.nan_to_num(np.nanmean(Xtr, axis=0))
    sd = np.nan_to_num(np.nanstd(Xtr, axis=0))
    sd = np.where(sd > 1e-12, sd, 1.0)
    has = np.isnan(Xtr).any(axis=0)

    def inputs(X):
        z = np.where(np.isnan(X), 0.0, (X - mean) / sd)
        return np.hstack([z, np.isnan(X[:, has]).astype(np.float64)])

    if task == "regression":
        make = lambda: Ridge(alpha=alpha)
    else:
        make = lambda: LogisticRegression(C=1.0 / alpha, max_iter=10000, tol=1e-10)
    y = ytr if task == "regression" else ytr.astype(int)
    return fit_predict(make, inputs(Xtr), y, inputs(Xte), task, reps, path)


def fit_predict(make, Xtr, ytr, Xte, task, reps, path):
    best = float("inf")
    model = None
    for _ in range(reps):
        model = make()
        t = time.perf_counter()
        model.fit(Xtr, ytr)
        best = min(best, time.perf_counter() - t)
    if task == "regression":
        pred = model.predict(Xte).reshape(-1, 1)
    else:
        pred = model.predict_proba(Xte)
        if task == "binary":
            pred = pred[:, 1:2]
    np.savetxt(path, pred, delimiter=",", fmt="%.17g")
    return {"fit_s": best, "pred": path}


if __name__ == "__main__":
    main()
