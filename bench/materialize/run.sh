#!/usr/bin/env bash
# Side by side: a 50-package candidate materialized from the store (warm and cold) vs
# `python -m venv` + `pip install --no-index` of the same wheels, vs the `cp -al` floor of the same
# tree; and a warm cache snapshot copied by copy_tree (the copy fallback of env/warm_cache.cpp) vs
# `cp -a` of the cache tree. Ends by printing speedup_vs_pip, ratio_to_cp_al, cold_vs_pip, one per line.
# Usage: bench/materialize/run.sh [pip repetitions, default 3]   (BENCH_SMOKE=1: 10 small wheels, as CI runs it)
# Env: BUILD (build dir, default build), PY (interpreter, default the real one behind python3).
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD:-$SRC/build}"
source "$SRC/bench/lib.sh"
bench_build_type "$BUILD"
bench_build "$BUILD" --target bench_materialize -j1 > /dev/null
PY="${PY:-$(python3 -c 'import sys; print(sys.executable)')}"
unset PIP_FIND_LINKS
exec "$PY" "$SRC/bench/materialize/bench.py" "$SRC" "$BUILD/bench/bench_materialize" "$PY" "${1:-3}"
