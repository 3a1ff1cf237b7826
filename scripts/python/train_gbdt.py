#!/usr/bin/env python3
"""Staged gradient-boosted regression trees, standard library only: an example of a non-Deno trainer that
Arrow supervises through its file protocol alone.

It writes, in its scope (ARROW_SCOPE, else the working directory):
  metrics.jsonl   one line per stage: {"step": s, "<metric>": dev R2, "train_r2": ..., "lr": ...}
  ckpt/           step_NNNNNN.json every --ckpt-every stages (the whole model so far; renamed into place)
  model.json      the model at its best dev stage
  results.json    the manifest the gates read (node, metric, score, data_hash, split_hash,
                  protocol_version, seed, code_sha, wall_s, artifact)
With ARROW_RESUME_FROM set it reloads that checkpoint and continues counting from its step.

The arithmetic is the same, in the same order, as Arrow's built-in trainer (src/workers/real/gbdt.ts), so both
grow the same trees bit for bit and Arrow's @claim check can recompute this model's score.

Usage:
  train_gbdt.py --data data.csv --split split.json --inputs harness/results.json
                [--metric dev_r2] [--stages 60] [--depth 3] [--learning-rate 0.1] [--lr-decay 1]
                [--ckpt-every 6] [--stage-ms 0] [--hang-after N]
  train_gbdt.py --evaluate model.json --data-dir DIR
                prints the model's dev R2 on DIR/data.csv and DIR/split.json (an evaluator for @claim:
                protocol.evaluate: [python3, train_gbdt.py, --evaluate, "{artifact}", --data-dir, "{data}"])
"""
import argparse
import csv
import hashlib
import json
import os
import sys
import time

STARTED = time.monotonic()


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load(csv_path, split_path):
    with open(csv_path, newline="") as f:
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


def r2(y, pred):
    total = 0.0
    for v in y:
        total += v
    mean = total / len(y)
    ss_tot = 0.0
    ss_res = 0.0
    for i in range(len(y)):
        ss_tot += (y[i] - mean) * (y[i] - mean)
        ss_res += (y[i] - pred[i]) * (y[i] - pred[i])
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return 1 - ss_res / ss_tot


def predict_tree(tree, x):
    i = 0
    while tree["f"][i] >= 0:
        i = tree["l"][i] if x[tree["f"][i]] <= tree["t"][i] else tree["r"][i]
    return tree["v"][i]


def predict(init, trees, X):
    out = []
    for x in X:
        s = init
        for t in trees:
            s += predict_tree(t, x)
        out.append(s)
    return out


def fit_tree(X, res, order, depth, rate):
    """Exact greedy, level by level; first best split on ties (feature order, then value order)."""
    tree = {"f": [], "t": [], "l": [], "r": [], "v": []}

    def add():
        for k, v in (("f", -1), ("t", 0.0), ("l", -1), ("r", -1), ("v", 0.0)):
            tree[k].append(v)
        return len(tree["f"]) - 1

    def leaf(node):
        tree["v"][node["id"]] = rate * (node["sum"] / node["n"])

    at = [0] * len(X)
    total = 0.0
    for v in res:
        total += v
    open_ = [{"id": add(), "n": len(X), "sum": total, "best": None}]
    level = 0
    while level < depth and open_:
        slot = {o["id"]: k for k, o in enumerate(open_)}
        for f in range(len(order)):
            n_l = [0] * len(open_)
            s_l = [0.0] * len(open_)
            last = [0.0] * len(open_)
            for i in order[f]:
                k = slot.get(at[i])
                if k is None:
                    continue
                o = open_[k]
                x = X[i][f]
                if n_l[k] > 0 and x > last[k]:
                    n_r = o["n"] - n_l[k]
                    s_r = o["sum"] - s_l[k]
                    gain = s_l[k] * s_l[k] / n_l[k] + s_r * s_r / n_r - o["sum"] * o["sum"] / o["n"]
                    if gain > 0 and (o["best"] is None or gain > o["best"][0]):
                        o["best"] = (gain, f, (last[k] + x) / 2)
                n_l[k] += 1
                s_l[k] += res[i]
                last[k] = x
        nxt = []
        for o in open_:
            if o["best"] is None:
                leaf(o)
                continue
            _, f, t = o["best"]
            kids = [{"id": add(), "n": 0, "sum": 0.0, "best": None} for _ in range(2)]
            tree["f"][o["id"]], tree["t"][o["id"]] = f, t
            tree["l"][o["id"]], tree["r"][o["id"]] = kids[0]["id"], kids[1]["id"]
            for i in range(len(X)):
                if at[i] != o["id"]:
                    continue
                kid = kids[0] if X[i][f] <= t else kids[1]
                at[i] = kid["id"]
                kid["n"] += 1
                kid["sum"] += res[i]
            nxt.extend(kids)
        open_ = []
        for k in nxt:
            if k["n"] >= 2:
                open_.append(k)
            else:
                leaf(k)
        level += 1
    for o in open_:
        leaf(o)
    return tree


def write_json_atomic(scope, rel, value):
    tmp = os.path.join(scope, "." + rel.replace("/", "_") + ".tmp")
    with open(tmp, "w") as f:
        f.write(json.dumps(value, allow_nan=False, separators=(",", ":")) + "\n")
    os.replace(tmp, os.path.join(scope, rel))


def evaluate(model_path, data_dir):
    """Recomputes a model's dev R2 on the given data set; prints it as the last line."""
    with open(model_path) as f:
        model = json.load(f)
    split, _, (Xdv, ydv) = load(os.path.join(data_dir, "data.csv"), os.path.join(data_dir, "split.json"))
    if model.get("features") != split["features"]:
        print("the model's features differ from the data's", file=sys.stderr)
        return 1
    print(r2(ydv, predict(model["init"], model["trees"], Xdv)))
    return 0


def main():
    if "--evaluate" in sys.argv:
        ap = argparse.ArgumentParser(description="recompute a model's dev R2")
        ap.add_argument("--evaluate", required=True)
        ap.add_argument("--data-dir", required=True)
        a = ap.parse_args()
        return evaluate(a.evaluate, a.data_dir)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--split", required=True)
    ap.add_argument("--inputs", required=True, help="a results.json carrying protocol_version and seed")
    ap.add_argument("--metric", default="dev_r2")
    ap.add_argument("--stages", type=int, default=60)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--learning-rate", type=float, default=0.1)
    ap.add_argument("--lr-decay", type=float, default=1.0)
    ap.add_argument("--ckpt-every", type=int, default=6)
    ap.add_argument("--stage-ms", type=float, default=0.0)
    ap.add_argument("--hang-after", type=int, default=None, help="stop making progress after this stage")
    a = ap.parse_args()

    scope = os.environ.get("ARROW_SCOPE") or os.getcwd()
    os.makedirs(os.path.join(scope, "ckpt"), exist_ok=True)
    split, (Xtr, ytr), (Xdv, ydv) = load(a.data, a.split)
    data_link = {
        "csv": os.path.relpath(a.data, scope),
        "split": os.path.relpath(a.split, scope),
        "data_hash": sha256_file(a.data),
        "split_hash": sha256_file(a.split),
    }
    order = [sorted(range(len(Xtr)), key=lambda i, f=f: (Xtr[i][f], i)) for f in range(len(Xtr[0]))]
    resume = os.environ.get("ARROW_RESUME_FROM")
    if resume:
        with open(resume) as f:
            ck = json.load(f)
        init, trees, step = ck["init"], ck["trees"], ck["step"]
        best, best_step = ck.get("best", float("-inf")), ck.get("best_step", 0)
        print(f"resuming from {resume} at step {step}", flush=True)
    else:
        total = 0.0
        for v in ytr:
            total += v
        init, trees, step, best, best_step = total / len(ytr), [], 0, float("-inf"), 0
    f_tr, f_dv = predict(init, trees, Xtr), predict(init, trees, Xdv)

    def line(obj):
        with open(os.path.join(scope, "metrics.jsonl"), "a") as f:
            f.write(json.dumps(obj) + "\n")

    def snapshot(up_to):
        return {"kind": "gbdt", "step": up_to, "features": split["features"], "target": split["target"],
                "init": init, "trees": trees[:up_to], "data": data_link, "best": best, "best_step": best_step}

    if step == 0:
        line({"step": 0, a.metric: r2(ydv, f_dv), "train_r2": r2(ytr, f_tr)})
    rate = a.learning_rate
    for _ in range(2, step + 1):
        rate *= a.lr_decay
    for stage in range(step + 1, a.stages + 1):
        t0 = time.monotonic()
        if a.hang_after is not None and stage > a.hang_after:
            print(f"stage {stage}: waiting on a data loader that never answers", flush=True)
            while True:
                time.sleep(60)
        if stage > 1:
            rate *= a.lr_decay
        res = [ytr[i] - f_tr[i] for i in range(len(ytr))]
        tree = fit_tree(Xtr, res, order, a.depth, rate)
        trees.append(tree)
        for i, x in enumerate(Xtr):
            f_tr[i] += predict_tree(tree, x)
        for i, x in enumerate(Xdv):
            f_dv[i] += predict_tree(tree, x)
        dev = r2(ydv, f_dv)
        if dev > best:
            best, best_step = dev, stage
        step = stage
        line({"step": stage, a.metric: dev, "train_r2": r2(ytr, f_tr), "lr": rate})
        if stage % a.ckpt_every == 0 or stage == a.stages:
            write_json_atomic(scope, "ckpt/step_%06d.json" % stage, snapshot(stage))
        left = a.stage_ms / 1000 - (time.monotonic() - t0)
        if left > 0:
            time.sleep(left)

    model = snapshot(best_step)
    write_json_atomic(scope, "model.json", model)
    with open(a.inputs) as f:
        upstream = json.load(f)
    with open(os.path.abspath(__file__), "rb") as f:
        code_sha = hashlib.sha256(f.read()).hexdigest()[:12]
    write_json_atomic(scope, "results.json", {
        "node": os.environ.get("ARROW_NODE", "train"),
        "metric": a.metric,
        "score": r2(ydv, predict(init, model["trees"], Xdv)),
        "data_hash": data_link["data_hash"],
        "split_hash": data_link["split_hash"],
        "protocol_version": upstream.get("protocol_version"),
        "seed": upstream.get("seed"),
        "code_sha": code_sha,
        "wall_s": round(time.monotonic() - STARTED, 3),
        "artifact": "model.json",
        "best_step": best_step,
        "stages": step,
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
