#!/usr/bin/env bash
# A bench says which build it measures and refuses one without optimisation: bench_build_type
# (bench/lib.sh) prints `build_type: TYPE` from the build's CMakeCache.txt and exits 2 before measuring
# on a Debug or type-less build (an -O0 build gave 19.9x pip where docs/PERFORMANCE.md says 51.8x),
# unless BENCH_ALLOW_DEBUG=1 asks for it or the smoke mode only proves the bench runs. Every bench
# script calls it, or runs a bench that does.
source "$(dirname "$0")/common.sh"
mkdir -p "$T/bench/probe"
cat >"$T/bench/probe/run.sh" <<SH
source "$SRC/bench/lib.sh"
bench_build_type "\$1"
echo measured
SH
for type in Debug RelWithDebInfo Release ""; do
  mkdir -p "$T/build-${type:-none}"
  echo "CMAKE_BUILD_TYPE:STRING=$type" >"$T/build-${type:-none}/CMakeCache.txt"
done
bench() {  # bench NAME BUILD [VAR=VALUE...]: run the probe bench; output in $T/NAME.out, exit status in $T/NAME.rc
  local name="$1" build="$2" rc=0
  shift 2
  env -u BENCH_ALLOW_DEBUG -u BENCH_SMOKE "$@" bash "$T/bench/probe/run.sh" "$T/$build" >"$T/$name.out" 2>&1 || rc=$?
  echo "$rc" >"$T/$name.rc"
}

for type in Debug none; do
  bench "refused-$type" "build-$type"
  [[ $(<"$T/refused-$type.rc") -eq 2 ]] || { echo "a $type build was measured"; cat "$T/refused-$type.out"; exit 1; }
  expect_contains "$T/refused-$type.out" "build_type: $type"
  expect_contains "$T/refused-$type.out" "its figures are not the product's; build RelWithDebInfo or set BENCH_ALLOW_DEBUG=1"
  not grep -q measured "$T/refused-$type.out"
done
for type in RelWithDebInfo Release; do
  bench "$type" "build-$type"
  [[ $(<"$T/$type.rc") -eq 0 ]] || { cat "$T/$type.out"; exit 1; }
  expect_contains "$T/$type.out" "build_type: $type"
  expect_contains "$T/$type.out" measured
  not grep -q "not comparable" "$T/$type.out"
done
for var in BENCH_ALLOW_DEBUG=1 BENCH_SMOKE=1; do
  bench "asked-${var%=*}" build-Debug "$var"
  [[ $(<"$T/asked-${var%=*}.rc") -eq 0 ]] || { cat "$T/asked-${var%=*}.out"; exit 1; }
  expect_contains "$T/asked-${var%=*}.out" "build_type Debug: figures not comparable with a release build"
done

# Every bench script: bench_build_type, or a run.sh of a bench that calls it.
for script in "$SRC"/bench/*/*.sh; do
  grep -qE 'bench_build_type |/run\.sh' "$script" || { echo "$script does not say which build it measures"; exit 1; }
done
