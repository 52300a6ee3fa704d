#!/usr/bin/env bash
# `run --dry-run` over 2,000 packages, 200 of them changed (40 with a build between their ends, 20
# pinned pairs), plans in well under the bound and unpacks nothing: it once listed every wheel folder
# for each package and unpacked every wheel of both states into the store to read its METADATA
# (48 s here, growing as N^2); the pinned pairs it finds from METADATA read in the wheels themselves.
source "$(dirname "$0")/common.sh"

"$PY" "$SRC/bench/scale/make_plan_inputs.py" "$SRC" "$T/plan" 2000
start=$(date +%s.%N)
"$ENVBISECT" run "$T/plan/good.json" "$T/plan/bad.json" --recipe "$T/plan/recipe.json" --wheels "$T/plan/wheels" \
  --uv-cache "$T/no-uv-cache" --store "$T/store" --dry-run > "$T/plan.txt"
seconds=$("$PY" -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
echo "dry run over 2,000 packages: $seconds s"
expect_contains "$T/plan.txt" "isolate the minimal cause among 200 differences"
expect_contains "$T/plan.txt" "moved together (pinned): {packages/pkg00000, packages/pkg00001}"
expect_contains "$T/plan.txt" "packages/pkg00190 1.0 -> 1.2  [ordered axis, 1 inner versions: 1.0 < 1.1 < 1.2]"
[[ "$(grep -c "moved together (pinned)" "$T/plan.txt")" == 20 ]]
# Nothing unpacked: a dry run writes no store entry.
if [[ -d "$T/store/v1/dists" ]]; then
  [[ -z "$(ls -A "$T/store/v1/dists")" ]]
fi
# 0.25 s on the 2-core development machine; the bound leaves room for a loaded one.
"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) < 5 else 1)" "$seconds"
