#!/usr/bin/env bash
# At scale, side by side with the floors: `run --dry-run` planning time over 250 / 2,000 / 20,000
# packages (10 % changed) and its growth exponent; and on generated torch-scale wheels (a big package
# of many small modules and a few .so-sized blobs, CUDA-like blob wheels, many small pure-Python
# packages) a cold store vs serial `unzip`, a cold store with bytecode vs pip with its .pyc step, a
# warm candidate vs `cp -al`, and the first `import` of the big package in a fresh candidate vs a
# pip-installed env with .pyc and vs no .pyc. Everything is generated here and deleted after.
# Prints `key: value` lines: plan_s_2000, plan_exponent, cold_vs_unzip, cold_pyc_vs_pip_pyc,
# warm_vs_cp_al, first_import_vs_pip_pyc, first_import_no_pyc_vs_pip_pyc; first, a warm compile cache
# prepared for one attempt (reflink, overlay or copy) vs `cp -al`: warm_cache_vs_cp_al.
# Usage: bench/scale/run.sh   (BENCH_SMOKE=1: tiny inputs, a few seconds, as CI runs it)
# Env: BUILD (build dir, default build), PY (interpreter, default the real one behind python3).
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD:-$SRC/build}"
source "$SRC/bench/lib.sh"
bench_build_type "$BUILD"
bench_build "$BUILD" --target envbisect bench_materialize bench_warm_cache -j1 > /dev/null
# A warm compile cache for one attempt against `cp -al` (2 GB in 4,000 files; smoke: 64 MB in 500).
if [[ -n "${BENCH_SMOKE:-}" ]]; then
  "$BUILD/bench/bench_warm_cache" --mb 64 --files 500 --repeats 1
else
  "$BUILD/bench/bench_warm_cache" --mb 2048 --files 4000 --repeats 3
fi
bench_need unzip unzip
PY="${PY:-$(python3 -c 'import sys; print(sys.executable)')}"
unset PIP_FIND_LINKS
exec "$PY" "$SRC/bench/scale/bench.py" "$SRC" "$BUILD" "$PY"
