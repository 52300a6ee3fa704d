#!/usr/bin/env bash
# SHA-256 throughput, side by side in one process: the portable C++ digest envbisect carried before vs
# OpenSSL's libcrypto (what util/hash uses), on one file of random bytes (default 1024 MB; 16 MB with
# BENCH_SMOKE=1, as CI runs it). Prints, last: sha256_mb_s_portable, sha256_mb_s_openssl, sha256_mb_s
# (what envbisect gets), sha256_openssl_vs_portable.
# Usage: bench/hash/run.sh [megabytes] [rounds]   (BUILD=build dir, default build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
source "$root/bench/lib.sh"
bench_build_type "$build"
megabytes="${1:-1024}"
rounds="${2:-3}"
if [[ -n "${BENCH_SMOKE:-}" ]]; then megabytes=16 rounds=2; fi
bench_build "$build" --target bench_sha256 -j1 >/dev/null
work="$(mktemp -d "${TMPDIR:-/tmp}/envbisect-bench-hash.XXXXXX")"
trap 'rm -rf "$work"' EXIT
head -c "$((megabytes * 1000000))" /dev/urandom >"$work/blob"
"$build/bench/bench_sha256" "$work/blob" "$rounds"
