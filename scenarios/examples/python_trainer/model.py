"""The model of the example trainer, shared by train.py and evaluate.py: ridge regression on degree-2
polynomial features (every feature, every square, every pairwise product), standardized on the training rows.

A model file is JSON: {"kind": "poly_ridge", "features", "target", "mean", "std", "w", "b", "epoch",
"data_hash", "split_hash"}. Reading the data uses the standard library only.
"""
import csv
import json


def load(data_path, split_path):
    """(split, (X_train, y_train), (X_dev, y_dev)) from a data CSV and its split file (JSON row indices)."""
    with open(data_path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header, body = [c.strip() for c in rows[0]], rows[1:]
    with open(split_path) as f:
        split = json.load(f)
    fj = [header.index(c) for c in split["features"]]
    tj = header.index(split["target"])
    table = [[float(c) for c in r] for r in body]

    def part(name):
        idx = split[name]
        return [[table[i][j] for j in fj] for i in idx], [table[i][tj] for i in idx]

    return split, part("train"), part("dev")


def expand(x):
    """Degree-2 polynomial features of one row: x, then x_i * x_j for i <= j."""
    out = list(x)
    for i in range(len(x)):
        for j in range(i, len(x)):
            out.append(x[i] * x[j])
    return out


def standardizer(rows):
    """Per-column mean and standard deviation (1 for a constant column)."""
    n, k = len(rows), len(rows[0])
    mean = [sum(r[j] for r in rows) / n for j in range(k)]
    std = [(sum((r[j] - mean[j]) ** 2 for r in rows) / n) ** 0.5 or 1.0 for j in range(k)]
    return mean, std


def features(model, X):
    return [[(v - m) / s for v, m, s in zip(expand(x), model["mean"], model["std"])] for x in X]


def predict_rows(w, b, Z):
    return [b + sum(wj * zj for wj, zj in zip(w, z)) for z in Z]


def predict(model, X):
    return predict_rows(model["w"], model["b"], features(model, X))


def r2(y, pred):
    mean = sum(y) / len(y)
    ss_tot = sum((v - mean) ** 2 for v in y)
    ss_res = sum((a - b) ** 2 for a, b in zip(y, pred))
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return 1 - ss_res / ss_tot
