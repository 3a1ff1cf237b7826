#!/usr/bin/env python3
"""Example trainer for Arrow: ridge regression on degree-2 polynomial features, trained by mini-batch gradient
descent, written against the worker SDK (src/sdk/arrow_sdk.py). Standard library only.

Every epoch it logs its dev R² to metrics.jsonl; every --ckpt-every epochs it checkpoints its whole state;
restarted with ARROW_RESUME_FROM it continues from that checkpoint; at the end it writes model.json (the
model at its best dev epoch) and results.json (the claim). --misbehave makes it misbehave for real (not
through the SDK's fault injection), to show what Arrow catches:

  hang          stops making progress after --misbehave-at epochs, forever
  crash         raises an exception at epoch --misbehave-at
  false-score   claims a dev R² of 0.99
  out-of-lane   writes into the scope of --sibling (default: baseline)
  escape        writes to /tmp and to $HOME, outside the run directory

Usage: train.py [--epochs 30] [--lr 0.01] [--batch 16] [--l2 0.001] [--ckpt-every 5] [--epoch-seconds 0]
                [--misbehave MODE] [--misbehave-at 3] [--sibling baseline]
"""
import argparse
import json
import os
import random
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
# In your own project, copy arrow_sdk.py beside your trainer instead.
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src", "sdk"))
sys.path.insert(0, HERE)
import arrow_sdk as arrow  # noqa: E402 - after the path is set
import model as poly  # noqa: E402


def misbehave(mode, epoch, args):
    if mode is None or epoch != args.misbehave_at:
        return
    env = arrow.env()
    if mode == "hang":
        print("epoch %d: waiting on a data loader that never answers" % epoch, flush=True)
        while True:
            time.sleep(3600)
    if mode == "crash":
        raise RuntimeError("epoch %d: CUDA error: an illegal memory access was encountered (simulated)" % epoch)
    if mode == "out-of-lane":
        run = env.run_dir or os.path.dirname(os.path.dirname(env.scope))
        target = os.path.join(run, "nodes", args.sibling, "leaked_by_%s.txt" % env.node)
    elif mode == "escape":
        target = "/tmp/arrow_escape_%s.txt" % env.node
    else:
        return
    for path in [target] + ([os.path.join(os.path.expanduser("~"), ".arrow_escape_%s.txt" % env.node)]
                            if mode == "escape" else []):
        try:
            with open(path, "w") as f:
                f.write("written by %s\n" % env.node)
            print("wrote %s" % path, flush=True)
        except OSError as e:
            print("could not write %s: %s" % (path, e.strerror), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--l2", type=float, default=0.001)
    ap.add_argument("--ckpt-every", type=int, default=5)
    ap.add_argument("--epoch-seconds", type=float, default=0.0, help="least wall time per epoch")
    ap.add_argument("--misbehave", choices=["hang", "crash", "false-score", "out-of-lane", "escape"])
    ap.add_argument("--misbehave-at", type=int, default=3)
    ap.add_argument("--sibling", default="baseline", help="the node whose scope out-of-lane writes into")
    args = ap.parse_args()

    data, split_path = arrow.frozen_data()
    split, (X_tr, y_tr), (X_dv, y_dv) = poly.load(data, split_path)
    mean, std = poly.standardizer([poly.expand(x) for x in X_tr])
    base = {"kind": "poly_ridge", "features": split["features"], "target": split["target"], "mean": mean,
            "std": std, "data_hash": arrow.file_hash(data), "split_hash": arrow.file_hash(split_path)}
    Z_tr, Z_dv = poly.features(base, X_tr), poly.features(base, X_dv)
    seed = (arrow.env().frozen or {}).get("seed", 7)

    resume = arrow.resume_checkpoint()
    if resume:
        with open(resume) as f:
            state = json.load(f)
        print("resuming from %s (epoch %d)" % (resume, state["epoch"]), flush=True)
    else:
        state = {"epoch": 0, "w": [0.0] * len(mean), "b": sum(y_tr) / len(y_tr), "best": None}
        arrow.log_metric(0, poly.r2(y_dv, poly.predict_rows(state["w"], state["b"], Z_dv)))
    w, b = state["w"], state["b"]

    for epoch in range(state["epoch"] + 1, args.epochs + 1):
        started = time.monotonic()
        misbehave(args.misbehave, epoch, args)
        order = list(range(len(Z_tr)))
        random.Random(seed * 1000003 + epoch).shuffle(order)  # per-epoch seed: a resumed run shuffles alike
        loss = 0.0
        for at in range(0, len(order), args.batch):
            batch = order[at:at + args.batch]
            grad, grad_b = [0.0] * len(w), 0.0
            for i in batch:
                err = b + sum(wj * zj for wj, zj in zip(w, Z_tr[i])) - y_tr[i]
                loss += err * err
                grad_b += err
                for j, z in enumerate(Z_tr[i]):
                    grad[j] += err * z
            for j in range(len(w)):
                w[j] -= args.lr * (grad[j] / len(batch) + args.l2 * w[j])
            b -= args.lr * grad_b / len(batch)
        dev = poly.r2(y_dv, poly.predict_rows(w, b, Z_dv))
        if state["best"] is None or dev > state["best"]["dev_r2"]:
            state["best"] = {"dev_r2": dev, "epoch": epoch, "w": list(w), "b": b}
        arrow.log_metric(epoch, dev, train_mse=loss / len(order))
        state.update(epoch=epoch, w=w, b=b)
        if epoch % args.ckpt_every == 0 or epoch == args.epochs:
            arrow.save_checkpoint(epoch, state)
        left = args.epoch_seconds - (time.monotonic() - started)
        if left > 0:
            time.sleep(left)

    best = state["best"]
    model = dict(base, w=best["w"], b=best["b"], epoch=best["epoch"])
    with open(os.path.join(arrow.env().scope, ".model.json.tmp"), "w") as f:
        json.dump(model, f)
    os.replace(os.path.join(arrow.env().scope, ".model.json.tmp"), os.path.join(arrow.env().scope, "model.json"))
    score = poly.r2(y_dv, poly.predict(model, X_dv))
    if args.misbehave == "false-score":
        score = 0.99
    arrow.write_manifest(score, "model.json", data=data, split=split_path, best_epoch=best["epoch"],
                         epochs=args.epochs)
    print("best dev R2 %.4f at epoch %d" % (score, best["epoch"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
