#!/usr/bin/env bash
# What --slots buys, measured on the product: real `envbisect run --slots k` runs (k = 1, 2, 4) of
# real benchmark processes. One package moves across N versions (16; 4 in smoke mode) of locally built
# wheels, the benchmark turns slow from version 11 of 16 on and sleeps RUN_MS per run (default 300
# ms; sleeping, so that the 2 cores' contention cannot move the result), and the run refines the
# version range k points a round. Each k runs twice on one warm store (the first fills it; the
# second is timed), and must find the same first bad version. Prints a table of wall seconds,
# candidates, benchmark runs and speed-up over k = 1; before it, the rounds of the
# k-ary bisection counted on a scripted oracle for every culprit position (linear axes and commit DAGs
# with merges, bench/search's generator and seed). Last lines, one each:
#   rounds_k4_n256: X     (worst rounds, k = 4, N = 256, every culprit position; target 4)
#   slots_speedup_k4: X   (wall of --slots 1 over --slots 4, the timed runs)
# Usage: bench/parallel/run.sh [RUN_MS]   (BUILD=build dir, default build; BENCH_SMOKE=1: N = 4, k = 1, 2)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
source "$root/bench/lib.sh"
bench_build_type "$build"
bench_build "$build" --target bench_parallel envbisect -j1 >/dev/null
run_ms="${1:-300}" versions=16 culprit=11 slots=(1 2 4)
if [[ -n "${BENCH_SMOKE:-}" ]]; then run_ms=50 versions=4 culprit=3 slots=(1 2); fi
counts="$("$build/bench/bench_parallel")"

work="$(mktemp -d "${TMPDIR:-/tmp}/envbisect-bench-parallel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
unset PIP_FIND_LINKS
PY="$(python3 -c 'import sys; print(sys.executable)')"
for v in $(seq 1 "$versions"); do
  mkdir -p "$work/src/kern-1.$v/kern"
  echo "SLOW = $((v >= culprit ? 1 : 0))" >"$work/src/kern-1.$v/kern/__init__.py"
  "$PY" "$root/scripts/make_wheel.py" --name kern --version "1.$v" --src "$work/src/kern-1.$v" --out "$work/wheels" >/dev/null
done
cat >"$work/bench.py" <<PY
import json, os, time, kern
time.sleep($run_ms / 1000)
print(json.dumps({"m": (200.0 if kern.SLOW else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$work/recipe.json"
echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"kern\": \"1.1\"}}" >"$work/good.json"
echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"kern\": \"1.$versions\"}}" >"$work/bad.json"

echo "$counts" | grep -v '^rounds_k4_n256:'
echo
echo "real runs: envbisect run --slots k, kern 1.1 -> 1.$versions (first bad 1.$culprit), benchmark sleeps $run_ms ms, 3 repeats"
printf '%-3s %-8s %-11s %-9s %s\n' k wall_s candidates runs speedup_vs_k1
wall_k1=""
speedup_k4=""
for k in "${slots[@]}"; do
  for pass in fill timed; do
    out="$work/run-$k-$pass"
    start=$(date +%s.%N)
    "$build/envbisect" run "$work/good.json" "$work/bad.json" --recipe "$work/recipe.json" --wheels "$work/wheels" \
      --store "$work/store" --out "$out" --slots "$k" --no-probe >"$out.txt" 2>&1 ||
      { echo "--slots $k failed:"; cat "$out.txt"; exit 1; }
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  done
  grep -q "first bad 1.$culprit, last good 1.$((culprit - 1))" "$out.txt" || { echo "--slots $k did not find 1.$culprit:"; cat "$out.txt"; exit 1; }
  read -r candidates runs < <("$PY" - "$out/journal.jsonl" <<'PY'
import json, sys
attempts = [r for r in map(json.loads, filter(str.strip, open(sys.argv[1]))) if r.get("type") == "attempt"]
print(len({r.get("candidate") for r in attempts}), len(attempts))
PY
)
  [[ -n "$wall_k1" ]] || wall_k1=$wall
  speedup=$(awk -v a="$wall_k1" -v b="$wall" 'BEGIN { printf "%.2f", a / b }')
  [[ $k -ne 4 ]] || speedup_k4=$speedup
  printf '%-3s %-8s %-11s %-9s %sx\n' "$k" "$wall" "$candidates" "$runs" "$speedup"
done
echo "$counts" | grep '^rounds_k4_n256:'
echo "slots_speedup_k4: ${speedup_k4:-n/a (smoke mode runs k = 1, 2)}"
