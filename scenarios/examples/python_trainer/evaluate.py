#!/usr/bin/env python3
"""The plan's declared evaluator (protocol.evaluate): recomputes a model's dev R² from the model file and the
frozen data set, and prints it as the last line of stdout. Arrow compares it with the score the trainer
claimed; it never trusts the claim itself.

Usage: evaluate.py <model.json> <data scope>   (the data scope holds results.json naming the data and split)
"""
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model as poly  # noqa: E402 - after the path is set


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: evaluate.py <model.json> <data scope>\n")
        return 2
    artifact, scope = argv
    with open(os.path.join(scope, "results.json")) as f:
        manifest = json.load(f)
    data = os.path.join(scope, manifest["artifact"])
    split = os.path.join(scope, manifest["split"])
    with open(artifact) as f:
        m = json.load(f)
    if m.get("kind") != "poly_ridge":
        sys.stderr.write("%s is not a poly_ridge model (kind %r)\n" % (artifact, m.get("kind")))
        return 1
    _, _, (X_dev, y_dev) = poly.load(data, split)
    print("dev rows: %d, model from epoch %s" % (len(y_dev), m.get("epoch")))
    print(repr(poly.r2(y_dev, poly.predict(m, X_dev))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
