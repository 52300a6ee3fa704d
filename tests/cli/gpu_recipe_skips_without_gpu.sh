#!/usr/bin/env bash
# The GPU recipe (recipes/dflash) on a machine without torch or without a GPU: the bench exits 125
# (skip) with a reason and its JSON line, and envbisect loads the recipe and states and refuses
# (exit 3: no anchor ever ran) instead of calling anything good or bad.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

R="$SRC/recipes/dflash"

# An interpreter with no torch at all: a bare venv.
"$PY" -m venv --without-pip "$T/empty"
RC=0; "$T/empty/bin/python" "$R/bench.py" --target-gpus 0 --drafter-gpus 1 --threads 3 \
  > "$T/bench.out" 2> "$T/bench.err" || RC=$?
[[ $RC -eq 125 ]]
[[ "$(json_field "$T/bench.out" error)" == ImportError ]]
expect_contains "$T/bench.out" '"skip_reason": "torch is not importable'
expect_contains "$T/bench.err" "bench: cannot test: torch is not importable"

# Bad arguments are a usage error (2), not a skip.
RC=0; "$T/empty/bin/python" "$R/bench.py" --threads 0 > /dev/null 2> "$T/usage.err" || RC=$?
[[ $RC -eq 2 ]]

# With torch but no GPU (if this machine's python has torch): also 125, naming the GPU.
if "$PY" -c 'import torch, sys; sys.exit(0 if not torch.cuda.is_available() else 1)' 2>/dev/null; then
  RC=0; "$PY" "$R/bench.py" --threads 1 > "$T/nogpu.out" 2>/dev/null || RC=$?
  [[ $RC -eq 125 && "$(json_field "$T/nogpu.out" error)" == NoGPU ]]
fi

# The states and recipe load: exactly threads and cache differ.
"$ENVBISECT" diff "$R/good.json" "$R/bad.json" > "$T/diff.out"
expect_contains "$T/diff.out" "2 differences"
expect_contains "$T/diff.out" "drafter_threads  1     ->  3"

# envbisect with the GPU states pointed at the torch-less interpreter: every run skips; exit 3.
for s in good bad; do
  sed -e "s#/opt/torch/.venv/bin/python3#$T/empty/bin/python#" \
      -e "s#\"version\": \"3.12\"#\"version\": \"$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')\"#" \
      "$R/$s.json" > "$T/$s.json"
done
cp "$R/recipe.json" "$R/bench.py" "$T/"
RC=0; "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" \
  > "$T/run.out" 2> "$T/run.err" || RC=$?
[[ $RC -eq 3 ]]
grep -qE "never ran successfully|exited 125 \(skip\)" "$T/run.err" || { cat "$T/run.err" >&2; exit 1; }
grep -q '"error_class":"ImportError","exit_code":125' "$T/run/journal.jsonl"

echo "gpu_recipe_skips_without_gpu: ok"
