#!/bin/sh
# A hostile command worker in plain sh: attacks on Arrow made from inside the node's scope with the tools
# any shell has (mkfifo, ln, a background loop). Usage: attack.sh <attack> [args...]; it holds HOLD seconds
# (default 1.5) so Arrow looks while the worker runs, then writes a plain results.json naming the node.
set -e
attack="$1"
shift
manifest() { printf '{"node": "%s"}' "$ARROW_NODE" > .results.tmp && mv .results.tmp results.json; }
hold() { sleep "${HOLD:-1.5}"; }

case "$attack" in
fifo)
  # FIFOs where Arrow reads: a stray one, metrics.jsonl and a checkpoint. Nobody ever writes to them.
  rm -rf fifo metrics.jsonl ckpt # a restart finds the last attempt's
  mkfifo fifo metrics.jsonl
  mkdir ckpt
  mkfifo ckpt/step_000001.json
  echo "made FIFOs: fifo, metrics.jsonl, ckpt/step_000001.json"
  ;;
fifo_results)
  rm -f results.json
  mkfifo results.json
  echo "results.json is a FIFO"
  hold
  exit 0
  ;;
devzero)
  # Symlinks to an endless device wherever Arrow reads or hashes.
  rm -rf zero metrics.jsonl ckpt random
  ln -s /dev/zero zero
  ln -s /dev/zero metrics.jsonl
  mkdir ckpt
  ln -s /dev/zero ckpt/step_000002.json
  ln -s /dev/urandom random
  echo "linked /dev/zero as zero, metrics.jsonl, ckpt/step_000002.json"
  ;;
venv)
  # A real virtual environment in the scope: symlinks to directories (lib64 -> lib) and to the interpreter.
  "$1" -m venv --clear --without-pip venv
  echo "venv made"
  venv/bin/python -c 'import json, os; json.dump({"node": os.environ["ARROW_NODE"]}, open("results.json", "w"))'
  echo "results written by the venv's interpreter"
  exit 0
  ;;
*)
  echo "unknown attack $attack" >&2
  exit 2
  ;;
esac
hold
manifest
