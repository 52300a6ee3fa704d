#!/usr/bin/env bash
# Fixture self-test (no envbisect): the dflash-cu130 fixture is slow/crashing only for
# fauxtorch +cu130 AND a cold cache AND >= 2 threads; every other delta is harmless.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

F="$SRC/fixtures/incidents/dflash-cu130"
need git git
need_python_module pip python3-pip

"$F/make-fixture" > "$T/make-fixture.out"
W="$F/.build/wheels"
REPO="$F/.build/repos/dflash"
GOOD_COMMIT="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["repos"]["dflash"]["commit"])' "$F/good.json")"
BAD_COMMIT="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["repos"]["dflash"]["commit"])' "$F/bad.json")"
expect_contains "$T/make-fixture.out" "commit 0: $GOOD_COMMIT"
expect_contains "$T/make-fixture.out" "commit 12: $BAD_COMMIT"
[[ -f "$W/fauxtorch-2.11.0+cu128-py3-none-any.whl" && -f "$W/fauxtorch-2.11.0+cu130-py3-none-any.whl" ]]

# Checkouts of the good and bad commits, as envbisect would make them.
for c in good:$GOOD_COMMIT bad:$BAD_COMMIT; do
  git -c advice.detachedHead=false clone -q "$REPO" "$T/dflash-${c%%:*}"
  git -C "$T/dflash-${c%%:*}" -c advice.detachedHead=false checkout -q "${c#*:}"
done

# The two states' package sets (good: cu128 + transformers 5.8.1; bad: cu130 + 5.6.0 + sglang).
make_venv "$T/good" "$W" 'fauxtorch==2.11.0+cu128' 'fauxtransformers==5.8.1'
make_venv "$T/bad" "$W" 'fauxtorch==2.11.0+cu130' 'fauxtransformers==5.6.0' 'fauxsglang==0.5.0'
"$PY" -m venv --without-pip "$T/empty"
"$T/bad/bin/python" -c 'import fauxtorch, fauxsglang; assert fauxtorch.__version__ == "2.11.0+cu130", fauxtorch.__version__'
"$T/good/bin/python" -c 'import fauxtorch; assert fauxtorch.__version__ == "2.11.0+cu128"; assert fauxtorch.version.cuda == "12.8"'

n=0
# bench ENV CACHE(warm|cold) THREADS REPO [extra args...]: runs once; result in $T/r<n>.out, rc in $RC.
bench() {
  local env="$1" cache="$2" threads="$3" repo="$4"
  shift 4
  n=$((n + 1))
  local dir="$T/cache-$n"
  mkdir -p "$dir"
  if [[ "$cache" == warm ]]; then
    FAUXTORCH_CACHE_DIR="$dir" "$T/$env/bin/python" "$F/bench.py" --threads 1 --seed 1234 --steps 2 > /dev/null 2>&1
  fi
  OUT="$T/r$n.out"
  RC=0
  local start=$SECONDS
  FAUXTORCH_CACHE_DIR="$dir" "$T/$env/bin/python" "$F/bench.py" --threads "$threads" --seed 1234 \
    --samples 902087 --repo "$repo" "$@" > "$OUT" 2> "$T/r$n.err" || RC=$?
  echo "run $n: $env cache=$cache threads=$threads $* -> rc=$RC tok_per_s=$(json_field "$OUT" tok_per_s) error=$(json_field "$OUT" error) checksum=$(json_field "$OUT" loss_checksum)"
}

# Reference: the good configuration, twice.
bench good warm 3 "$T/dflash-good"; [[ $RC -eq 0 ]]; g1="$(json_field "$OUT" tok_per_s)"; ref_sum="$(json_field "$OUT" loss_checksum)"
expect_contains "$OUT" '"cache_hits": [true, true, true]'
bench good warm 3 "$T/dflash-good"; [[ $RC -eq 0 ]]; g2="$(json_field "$OUT" tok_per_s)"
[[ "$(json_field "$OUT" loss_checksum)" == "$ref_sum" ]]
ref="$("$PY" -c "print(max($g1, $g2))")"

is_good() {  # last run finished, same checksum, at least 40% of the reference speed
  [[ $RC -eq 0 && "$(json_field "$OUT" error)" == null ]] || return 1
  [[ "$(json_field "$OUT" loss_checksum)" == "$ref_sum" ]] || return 1
  "$PY" -c "import sys; sys.exit(0 if $(json_field "$OUT" tok_per_s) >= 0.4 * $ref else 1)"
}
is_bad() {  # crashed, or under 40% of the reference speed
  [[ $RC -ne 0 || "$(json_field "$OUT" error)" != null ]] && return 0
  "$PY" -c "import sys; sys.exit(0 if $(json_field "$OUT" tok_per_s) < 0.4 * $ref else 1)"
}

# The bad configuration: cu130, cold cache, 3 threads (twice: the race must show almost always).
bench bad cold 3 "$T/dflash-bad"; is_bad; expect_contains "$T/r$n.err" "Detected that you are using FX to symbolically trace a dynamo-optimized function"
bench bad cold 3 "$T/dflash-bad"; is_bad
# Each ingredient alone is harmless.
bench bad warm 3 "$T/dflash-bad"; is_good          # cu130 with a warm cache
bench good cold 3 "$T/dflash-good"; is_good        # cu128 with a cold cache
bench bad cold 1 "$T/dflash-bad"; [[ $RC -eq 0 && "$(json_field "$OUT" error)" == null && "$(json_field "$OUT" graph_breaks)" == 0 ]]
# Repo commit, dataset size and log level do not matter (good packages, bad everything else).
DFLASH_LOG_LEVEL=debug bench good warm 3 "$T/dflash-bad" --samples 1100000; is_good
"$PY" -c "import sys; sys.exit(0 if $(json_field "$OUT" eta_days) > 0 else 1)"

# fullgraph=True: the race raises the FX-tracing RuntimeError; the bench exits 1 with its JSON line.
bench bad cold 3 "$T/dflash-bad" --fullgraph
[[ $RC -eq 1 && "$(json_field "$OUT" error)" == RuntimeError ]]
expect_contains "$OUT" "Detected that you are using FX to symbolically trace a dynamo-optimized function"

# Cannot test: 125 without fauxtorch, and without FAUXTORCH_CACHE_DIR.
RC=0; "$T/empty/bin/python" "$F/bench.py" --threads 1 > "$T/empty.out" 2>&1 || RC=$?
[[ $RC -eq 125 ]]; expect_contains "$T/empty.out" '"error": "ImportError"'
RC=0; env -u FAUXTORCH_CACHE_DIR "$T/good/bin/python" "$F/bench.py" --threads 1 > "$T/nocache.out" 2>&1 || RC=$?
[[ $RC -eq 125 ]]; expect_contains "$T/nocache.out" "FAUXTORCH_CACHE_DIR"

echo "fixture_incident_behaves: ok (reference ${ref} tok/s)"
