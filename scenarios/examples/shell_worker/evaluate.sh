#!/bin/sh
# The shell example's declared evaluator (protocol.evaluate): recomputes the dev R^2 of a single-feature
# model from the model file and the frozen data set, and prints it as the last line of stdout.
#
# Usage: evaluate.sh <model.json> <data scope>   (the data scope holds results.json naming data and split)
set -eu
[ $# -eq 2 ] || { echo "usage: evaluate.sh <model.json> <data scope>" >&2; exit 2; }
MODEL=$1
SCOPE=$2
name() { sed -n "s/.*\"$1\": *\"\([^\"]*\)\".*/\1/p" "$SCOPE/results.json" | head -n 1; }
DATA=$SCOPE/$(name artifact)
SPLIT=$SCOPE/$(name split)
get() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$MODEL"; }
[ "$(get kind)" = single_feature_ols ] || { echo "$MODEL is not a single_feature_ols model" >&2; exit 1; }
DEV=$(sed -n 's/.*"dev":\[\([^]]*\)\].*/\1/p' "$SPLIT")
echo "feature $(get feature), target $(get target)"
awk -F, -v feat="$(get feature)" -v target="$(get target)" -v a="$(get a)" -v b="$(get b)" -v dev="$DEV" '
  BEGIN { n = split(dev, d, ","); for (i = 1; i <= n; i++) dv[d[i]] = 1 }
  NR == 1 { for (j = 1; j <= NF; j++) { if ($j == feat) fx = j; if ($j == target) fy = j }; next }
  (NR - 2) in dv { m++; X[m] = $fx + 0; Y[m] = $fy + 0 }
  END {
    for (i = 1; i <= m; i++) ym += Y[i]; ym /= m
    for (i = 1; i <= m; i++) { e = Y[i] - (a + b * X[i]); ssr += e * e; u = Y[i] - ym; sst += u * u }
    printf "%.17g\n", 1 - ssr / sst
  }' "$DATA"
