"""Reference models for scripts/bench_tree.ts: fits scikit-learn HistGradientBoosting (defaults), XGBoost
(300 trees, depth 4, learning rate 0.1, subsample 0.8, hist) and a linear model (logistic or ridge regression,
one-hot categoricals, imputed and scaled) on exactly the rows Arrow fits its final model on (dev + held-out),
and scores them on exactly Arrow's test rows with the definitions of src/tabular/metrics.ts.

Usage: /usr/bin/python3 refs.py SPEC.json  — SPEC holds
  csv, target, task ("binary" | "multiclass" | "regression"), metric, k (classes, 1 for regression),
  kinds ({column: "numeric" | "boolean" | "categorical" | "text"}, as Arrow inferred them),
  missing (Arrow's missing-cell markers), fit / test (0-based data-row numbers of the CSV),
  y_fit / y_test (Arrow's target values: class indices, or numbers), seed.
Prints one JSON object: {"hgb": {"score", "fit_s"}, "xgboost": {…}, "linear": {…}, "versions": {…}}.
Text columns are left out (none of the references reads free text); booleans and categoricals are levels.

`refs.py --score` reads {"metric", "y", "p"} (p: a list, or a list of rows for multiclass) on standard input and
prints the score alone: how the tests check these metric definitions against src/tabular/metrics.ts.
"""
import csv
import json
import sys
import time

import numpy as np


def read_columns(path, names, missing):
    """The CSV's cells per wanted column (None = missing), by data-row number."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        index = {}
        for n in names:
            if n not in header:
                sys.exit(f"{path}:1: no column {n!r}")
            index[n] = header.index(n)
        cols = {n: [] for n in names}
        for line, row in enumerate(reader, start=2):
            if len(row) != len(header):
                sys.exit(f"{path}:{line}: {len(row)} cells, the header has {len(header)}")
            for n, j in index.items():
                cell = row[j]
                cols[n].append(None if cell.strip() in missing else cell.strip())
    return cols


def features(spec):
    """Numeric matrix (NaN = missing) and, per column, its level count (0 = numeric)."""
    names = [n for n, k in spec["kinds"].items() if n != spec["target"] and k != "text"]
    cols = read_columns(spec["csv"], names, set(spec["missing"]))
    mats, levels = [], []
    for n in names:
        cells = cols[n]
        if spec["kinds"][n] == "numeric":
            mats.append(np.array([np.nan if c is None else float(c) for c in cells]))
            levels.append(0)
        else:
            key = (lambda c: c.lower()) if spec["kinds"][n] == "boolean" else (lambda c: c)
            values = sorted({key(c) for c in cells if c is not None})
            code = {v: i for i, v in enumerate(values)}
            mats.append(np.array([np.nan if c is None else float(code[key(c)]) for c in cells]))
            levels.append(len(values))
    return np.column_stack(mats), levels, names


def one_hot(X, levels):
    """Categorical codes to indicator columns (a missing level: all zero); numeric columns kept."""
    parts = []
    for j, n in enumerate(levels):
        if n == 0:
            parts.append(X[:, j:j + 1])
        else:
            eye = np.zeros((X.shape[0], n))
            ok = ~np.isnan(X[:, j])
            eye[np.nonzero(ok)[0], X[ok, j].astype(int)] = 1.0
            parts.append(eye)
    return np.hstack(parts)


# --- the metrics, as src/tabular/metrics.ts defines them ---------------------------------------------------

def auc_binary(y, s, positive=1):
    order = np.argsort(s, kind="mergesort")
    ss = s[order]
    ranks = np.empty(len(s))
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and ss[j + 1] == ss[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    pos = y == positive
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def score(metric, y, p):
    """p: (n,) for regression and binary (probability of class 1), (n, k) for multiclass."""
    if metric == "accuracy":
        hat = (p >= 0.5).astype(int) if p.ndim == 1 else np.argmax(p, axis=1)
        return float(np.mean(hat == y))
    if metric == "auc":
        if p.ndim == 1:
            return auc_binary(y, p)
        aucs = [auc_binary(y, p[:, c], c) for c in range(p.shape[1])]
        aucs = [a for a in aucs if not np.isnan(a)]
        return float(np.mean(aucs)) if aucs else float("nan")
    if metric == "logloss":
        q = np.where(y == 1, p, 1 - p) if p.ndim == 1 else p[np.arange(len(y)), y.astype(int)]
        return float(np.mean(-np.log(np.clip(q, 1e-15, 1 - 1e-15))))
    if metric == "r2":
        res, tot = np.sum((y - p) ** 2), np.sum((y - y.mean()) ** 2)
        return float(1.0 if res == 0 else 0.0) if tot == 0 else float(1 - res / tot)
    if metric == "rmse":
        return float(np.sqrt(np.mean((y - p) ** 2)))
    if metric == "mae":
        return float(np.mean(np.abs(y - p)))
    sys.exit(f"unknown metric {metric!r}")


def predict(model, X, task, k):
    if task == "regression":
        return model.predict(X)
    proba = model.predict_proba(X)
    full = np.zeros((X.shape[0], k))
    full[:, model.classes_.astype(int)] = proba  # a class absent from the fit rows gets probability 0
    return full[:, 1] if task == "binary" else full


def timed(make, Xf, yf, Xt, yt, spec):
    model = make()
    t = time.perf_counter()
    model.fit(Xf, yf)
    fit_s = time.perf_counter() - t
    return {"score": score(spec["metric"], yt, predict(model, Xt, spec["task"], spec["k"])), "fit_s": fit_s}


def main():
    if sys.argv[1:] == ["--score"]:
        j = json.load(sys.stdin)
        print(json.dumps(score(j["metric"], np.array(j["y"], dtype=float), np.array(j["p"], dtype=float))))
        return
    if len(sys.argv) != 2:
        sys.exit("usage: refs.py SPEC.json | refs.py --score")
    spec = json.load(open(sys.argv[1]))
    X, levels, _ = features(spec)
    fit, test = np.array(spec["fit"], dtype=int), np.array(spec["test"], dtype=int)
    task, seed = spec["task"], spec["seed"]
    cls = task != "regression"
    yf = np.array(spec["y_fit"], dtype=int if cls else float)
    yt = np.array(spec["y_test"], dtype=int if cls else float)
    out = {}

    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    # Native categorical splits where the level count fits the bins (sklearn 1.2: fewer than 255 levels);
    # a wider code column is read as ordered codes.
    mask = np.array([0 < n < 255 for n in levels])
    hgb = HistGradientBoostingClassifier if cls else HistGradientBoostingRegressor
    out["hgb"] = timed(lambda: hgb(categorical_features=mask if mask.any() else None, random_state=seed),
                       X[fit], yf, X[test], yt, spec)

    import xgboost as xgb

    H = one_hot(X, levels)
    params = dict(n_estimators=300, max_depth=4, learning_rate=0.1, subsample=0.8, tree_method="hist",
                  n_jobs=1, random_state=seed)
    if cls:
        # XGBoost wants the labels 0..m-1 of the classes it sees; map back through `classes_` below.
        present = np.unique(yf)
        remap = {c: i for i, c in enumerate(present)}

        class Wrapped:
            def __init__(self):
                self.m = xgb.XGBClassifier(**params)
                self.classes_ = present

            def fit(self, A, b):
                self.m.fit(A, np.array([remap[v] for v in b]))

            def predict_proba(self, A):
                return self.m.predict_proba(A)

        out["xgboost"] = timed(Wrapped, H[fit], yf, H[test], yt, spec)
    else:
        out["xgboost"] = timed(lambda: xgb.XGBRegressor(**params), H[fit], yf, H[test], yt, spec)

    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    num = [j for j, n in enumerate(levels) if n == 0]
    cat = [j for j, n in enumerate(levels) if n > 0]
    # Categorical codes get a level of their own for "missing" (-1) before one-hot encoding.
    Xl = X.copy()
    for j in cat:
        Xl[np.isnan(Xl[:, j]), j] = -1
    prep = ColumnTransformer([
        ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), num),
        ("cat", OneHotEncoder(handle_unknown="ignore"), cat),
    ])
    head = (lambda: LogisticRegression(max_iter=5000)) if cls else (lambda: Ridge(alpha=1.0))
    out["linear"] = timed(lambda: make_pipeline(prep, head()), Xl[fit], yf, Xl[test], yt, spec)
    out["versions"] = {"sklearn": __import__("sklearn").__version__, "xgboost": xgb.__version__,
                       "numpy": np.__version__}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
