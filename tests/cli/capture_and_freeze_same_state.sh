#!/usr/bin/env bash
# `capture --venv` and `state` of the same venv's `pip freeze` are one environment: `diff` finds no
# package difference. The venv's own pip (and setuptools where the venv has it) are the installer's
# tooling: freeze leaves them out, and so does capture, unless something installed needs them.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$PY" -c "import ensurepip" 2>/dev/null || skip "python3 has no ensurepip"
"$PY" -c "import pip" 2>/dev/null || skip "python3 -m pip not available"
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
W="$F/.build/wheels"

"$PY" -m venv "$T/venv"  # with pip, as users make them
"$PY" -m pip --isolated --python "$T/venv/bin/python" install -q --no-index --find-links "$W" \
  'fauxtorch==2.11.0+cu128' 'fauxtransformers==5.8.1'
"$T/venv/bin/python" -m pip freeze >"$T/freeze.txt"
not grep -qi '^pip==' "$T/freeze.txt"

"$ENVBISECT" capture --venv "$T/venv" -o "$T/captured.json" >/dev/null
PYV="$("$T/venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
"$ENVBISECT" state "$T/freeze.txt" --python "$PYV" -o "$T/frozen.json" 2>/dev/null
"$PY" - "$T/captured.json" "$T/frozen.json" <<'PY'
import json, sys
captured, frozen = (json.load(open(p)) for p in sys.argv[1:])
assert "pip" not in captured["packages"], captured["packages"]
assert captured["packages"] == frozen["packages"], (captured["packages"], frozen["packages"])
PY
"$ENVBISECT" diff "$T/captured.json" "$T/frozen.json" >"$T/diff.txt" 2>&1 || true
not grep -q "packages/" "$T/diff.txt"
not grep -Eq "^  (pip|setuptools|fauxtorch|fauxtransformers) " "$T/diff.txt"
