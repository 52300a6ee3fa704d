#!/usr/bin/env bash
# Start-up cost per benchmark run for each isolation backend (bwrap, podman, lxc) vs a bare venv: a
# fresh venv (no pip) runs `python -c pass`, round-robin across backends, N rounds (default 20).
# Usage: bench/isolation/run.sh [rounds] [build dir]
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${2:-$SRC/build}"
source "$SRC/bench/lib.sh"
bench_build_type "$BUILD"
bench_build "$BUILD" --target bench_isolation_startup -j1 >/dev/null
W="$(mktemp -d "${TMPDIR:-/tmp}/envbisect-bench-isolation.XXXXXX")"
trap 'rm -rf "$W"' EXIT
PY="$(python3 -c "import sys; print(sys.executable)")"  # the real interpreter, not the pyenv shim
"$PY" -m venv --without-pip "$W/venv"
# The podman layer committed for this throw-away venv is removed afterwards.
images() { command -v podman >/dev/null && podman images --format '{{.Repository}}:{{.Tag}}' | sort || true; }
images >"$W/images-before"
rounds="${1:-20}"
[[ -z "${BENCH_SMOKE:-}" ]] || rounds=2  # CI: only proves the bench still runs
"$BUILD/bench/bench_isolation_startup" "$W/venv" "$W/work" "$rounds"
images | comm -13 "$W/images-before" - | grep '^localhost/envbisect-layer:' | xargs -r podman rmi -f >/dev/null || true
