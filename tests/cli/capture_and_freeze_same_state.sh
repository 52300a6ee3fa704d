#!/usr/bin/env bash
# `capture --venv` and `state` of the same venv's `pip freeze` are one environment: `diff --exit-code`
# exits 0 and finds no difference. The freeze's state knows its packages, not the machine (interpreter,
# caches, variables): it lists those as unknown, so they take the capture's values. The venv's own pip
# (and setuptools where the venv has it) are the installer's tooling: freeze leaves them out, and so
# does capture, unless something installed needs them.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_python_module ensurepip python3-venv
need_python_module pip python3-pip
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
W="$F/.build/wheels"

"$PY" -m venv "$T/venv"  # with pip, as users make them
"$PY" -m pip --isolated --python "$T/venv/bin/python" install -q --no-index --find-links "$W" \
  'fauxtorch==2.11.0+cu128' 'fauxtransformers==5.8.1'
"$T/venv/bin/python" -m pip freeze >"$T/freeze.txt"
not grep -qi '^pip==' "$T/freeze.txt"

# What a user's shell has: a captured variable, as the GPU machines set CUDA_HOME.
CUDA_HOME=/usr/local/cuda "$ENVBISECT" capture --venv "$T/venv" -o "$T/captured.json" >/dev/null
"$ENVBISECT" state "$T/freeze.txt" -o "$T/frozen.json" 2>/dev/null
"$PY" - "$T/captured.json" "$T/frozen.json" <<'PY'
import json, sys
captured, frozen = (json.load(open(p)) for p in sys.argv[1:])
assert "pip" not in captured["packages"], captured["packages"]
assert captured["packages"] == frozen["packages"], (captured["packages"], frozen["packages"])
assert captured["env"] == {"CUDA_HOME": "/usr/local/cuda"}, captured["env"]
assert "unknown" not in captured, captured
assert {"python/interpreter", "python/version", "caches", "env"} <= set(frozen["unknown"]), frozen
PY
"$ENVBISECT" diff --exit-code "$T/captured.json" "$T/frozen.json" >"$T/diff.txt" 2>"$T/diff.err"
grep -q "describe the same environment" "$T/diff.txt"
grep -q "frozen.json does not know caches, .*env, .*python/interpreter, python/version" "$T/diff.err"
# Both ways round: the capture is bad, the freeze good.
"$ENVBISECT" diff --exit-code "$T/frozen.json" "$T/captured.json" >/dev/null 2>&1

# A package that really differs still is one, and only it.
sed 's/^fauxtransformers==5.8.1$/fauxtransformers==5.9.0/' "$T/freeze.txt" >"$T/other.txt"
"$ENVBISECT" state "$T/other.txt" -o "$T/other.json" 2>/dev/null
rc=0
"$ENVBISECT" diff --exit-code "$T/captured.json" "$T/other.json" >"$T/diff2.txt" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]]
grep -q "1 difference between" "$T/diff2.txt"
grep -q "fauxtransformers" "$T/diff2.txt"
