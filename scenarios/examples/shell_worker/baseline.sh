#!/bin/sh
# Example shell worker for Arrow: the best single-feature linear baseline. For each feature in turn it fits
# y = a + b*x on the training rows (awk), keeps the feature with the best dev R^2, logs that best-so-far
# score as one metric line per feature tried, checkpoints its state, and at the end writes model.json and
# results.json through the SDK's command line (src/sdk/arrow_sdk.py). POSIX sh + awk + sed + python3.
#
# Usage: baseline.sh [--pace SECONDS] [--misbehave hang|crash|false-score|out-of-lane|escape] [--misbehave-at K]
#   --pace          least wall time per feature (so a person, and Arrow, can watch it work)
#   --misbehave     misbehave for real at feature K (default 3), to show what Arrow catches
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# In your own project, point this at wherever you keep arrow_sdk.py. Each call starts Python: set PYTHON to
# a direct interpreter path when python3 is a slow shim (pyenv adds ~1 s a call).
sdk() { "${PYTHON:-python3}" "$HERE/../../../src/sdk/arrow_sdk.py" "$@"; }

PACE=0
MISBEHAVE=""
AT=3
while [ $# -gt 0 ]; do
  case $1 in
    --pace) PACE=$2; shift 2 ;;
    --misbehave) MISBEHAVE=$2; shift 2 ;;
    --misbehave-at) AT=$2; shift 2 ;;
    *) echo "baseline.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
START=$(date +%s)

DATA=$(sdk data-file)
SPLIT=$(sdk split-file)
# split.json is Arrow's own one-line file: {"seed":…,"target":"y","features":[…],"rows":…,"train":[…],…}
list() { sed -n "s/.*\"$1\":\[\([^]]*\)\].*/\1/p" "$SPLIT"; }
TARGET=$(sed -n 's/.*"target":"\([^"]*\)".*/\1/p' "$SPLIT")
FEATURES=$(list features | tr -d '"' | tr ',' ' ')
TRAIN=$(list train)
DEV=$(list dev)

# fit FEATURE → "a b dev_r2": least squares of the target on one feature over the training rows.
fit() {
  awk -F, -v feat="$1" -v target="$TARGET" -v train="$TRAIN" -v dev="$DEV" '
    BEGIN {
      n = split(train, t, ","); for (i = 1; i <= n; i++) tr[t[i]] = 1
      n = split(dev, d, ","); for (i = 1; i <= n; i++) dv[d[i]] = 1
    }
    NR == 1 { for (j = 1; j <= NF; j++) { if ($j == feat) fx = j; if ($j == target) fy = j }; next }
    {
      r = NR - 2; x = $fx + 0; y = $fy + 0
      if (r in tr) { n1++; sx += x; sy += y; sxx += x * x; sxy += x * y }
      if (r in dv) { m++; X[m] = x; Y[m] = y }
    }
    END {
      b = (n1 * sxy - sx * sy) / (n1 * sxx - sx * sx); a = (sy - b * sx) / n1
      for (i = 1; i <= m; i++) ym += Y[i]; ym /= m
      for (i = 1; i <= m; i++) { e = Y[i] - (a + b * X[i]); ssr += e * e; u = Y[i] - ym; sst += u * u }
      printf "%.17g %.17g %.17g\n", a, b, 1 - ssr / sst
    }' "$DATA"
}

# state FILE: the best model so far and how many features were tried, as JSON.
state() {
  printf '{"kind":"single_feature_ols","feature":"%s","target":"%s","a":%s,"b":%s,"dev_r2":%s,"tried":%s}\n' \
    "$BEST_FEAT" "$TARGET" "$BEST_A" "$BEST_B" "$BEST_R2" "$1"
}
get() { sed -n "s/.*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$1"; }

misbehave() {
  [ "$MISBEHAVE" ] && [ "$1" -eq "$AT" ] || return 0
  case $MISBEHAVE in
    hang) echo "feature $1: waiting on a lock that is never released"; while :; do sleep 3600; done ;;
    crash) echo "baseline.sh: feature $1: awk: division by zero (simulated)" >&2; exit 3 ;;
    out-of-lane) echo "leaked by $ARROW_NODE" > "$ARROW_RUN_DIR/nodes/gbdt/leaked_by_$ARROW_NODE.txt" || true ;;
    escape)
      echo "written by $ARROW_NODE" > "/tmp/arrow_escape_$ARROW_NODE.txt" || true
      echo "written by $ARROW_NODE" > "$HOME/.arrow_escape_$ARROW_NODE.txt" || true ;;
  esac
}

DONE=0
BEST_FEAT="" BEST_A=0 BEST_B=0 BEST_R2=""
RESUME=$(sdk resume)
if [ -n "$RESUME" ]; then
  DONE=$(get "$RESUME" tried) BEST_FEAT=$(get "$RESUME" feature) BEST_A=$(get "$RESUME" a)
  BEST_B=$(get "$RESUME" b) BEST_R2=$(get "$RESUME" dev_r2)
  echo "resuming from $RESUME after $DONE features (best so far: $BEST_FEAT)"
fi

K=0
for F in $FEATURES; do
  K=$((K + 1))
  [ "$K" -le "$DONE" ] && continue
  misbehave "$K"
  set -- $(fit "$F")
  if [ -z "$BEST_R2" ] || awk "BEGIN { exit !($3 > $BEST_R2) }"; then
    BEST_FEAT=$F BEST_A=$1 BEST_B=$2 BEST_R2=$3
  fi
  sdk metric "$K" "$BEST_R2" "feature=$F" "feature_r2=$3"
  state "$K" > .state.json
  sdk checkpoint "$K" .state.json > /dev/null
  sleep "$PACE"
done

state "$K" > .model.json.tmp && mv .model.json.tmp model.json
rm -f .state.json
SCORE=$BEST_R2
[ "$MISBEHAVE" = false-score ] && SCORE=0.99
sdk manifest --score "$SCORE" --artifact model.json --data "$DATA" --split "$SPLIT" --code "$0" \
  --wall-s "$(($(date +%s) - START))" --set "feature=$BEST_FEAT" > /dev/null
echo "best single feature: $BEST_FEAT (dev R^2 $BEST_R2)"
