#!/usr/bin/env bash
# timeline on a re-enacted incident: installs, cache entries and checkpoints at known times (touch -d),
# the torch build installed 11 minutes after the newest checkpoint flagged, the old build found in a
# uv cache laid out by the test and in a wheelhouse; --as-of step_690 proposes the good state.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

need_python_module pip python3-pip
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
W="$F/.build/wheels"
export TZ=UTC

make_venv "$T/venv" "$W" 'fauxtorch==2.11.0+cu130' 'fauxtransformers==5.8.1' 'fauxsglang==0.5.0'
SITE="$(echo "$T"/venv/lib/python*/site-packages)"
touch -d '2026-11-10 09:00:00' "$SITE"/fauxtransformers-5.8.1.dist-info
touch -d '2026-11-12 20:52:00' "$SITE"/fauxtorch-2.11.0+cu130.dist-info
touch -d '2026-11-12 20:52:30' "$SITE"/fauxsglang-0.5.0.dist-info
mkdir -p "$T/ckpt/step_600" "$T/ckpt/step_690" "$T/inductor/fx"
touch -d '2026-11-12 19:11:00' "$T/ckpt/step_600"
touch -d '2026-11-12 20:41:00' "$T/ckpt/step_690"
echo k > "$T/inductor/fx/k.py"
echo k > "$T/inductor/fx/l.py"
touch -d '2026-11-12 21:05:00' "$T/inductor/fx/k.py"   # the cold cache the failing run rebuilt
touch -d '2026-11-12 21:30:00' "$T/inductor/fx/l.py"
# uv's cache: archive-v0/<key>/<name>-<version>.dist-info, the good build unpacked days before.
mkdir -p "$T/uv/archive-v0/Kx1/fauxtorch-2.11.0+cu128.dist-info" "$T/uv/archive-v0/Kx2/fauxtorch-2.11.0+cu130.dist-info"
touch -d '2026-11-08 12:00:00' "$T/uv/archive-v0/Kx1/fauxtorch-2.11.0+cu128.dist-info"
touch -d '2026-11-12 20:51:00' "$T/uv/archive-v0/Kx2/fauxtorch-2.11.0+cu130.dist-info"
export TORCHINDUCTOR_CACHE_DIR="$T/inductor" TRITON_CACHE_DIR="$T/none"

"$ENVBISECT" timeline --venv "$T/venv" --checkpoints "$T/ckpt" --uv-cache "$T/uv" --wheels "$W" > "$T/timeline.txt"
cat "$T/timeline.txt"
# In time order: transformers, the two checkpoints, torch and sglang (flagged), the cache.
"$PY" - "$T/timeline.txt" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]) if l[:4] == "2026"]
order = [l.split()[3] for l in lines]
assert order == ["fauxtransformers", "step_600", "step_690", "fauxtorch", "fauxsglang", "inductor", "inductor"], order
assert "AFTER THE NEWEST CHECKPOINT" in lines[3] and "AFTER" not in lines[2], lines
PY
expect_contains "$T/timeline.txt" "+11 min after the newest checkpoint step_690"
expect_contains "$T/timeline.txt" "fauxtorch 2.11.0+cu128  (uv-cache: $T/uv/archive-v0/Kx1/fauxtorch-2.11.0+cu128.dist-info)"
expect_contains "$T/timeline.txt" "fauxtorch 2.10.0+cu128  (wheel: $W/fauxtorch-2.10.0+cu128-py3-none-any.whl)"
not grep -q "fauxtorch 2.11.0+cu130  (" "$T/timeline.txt"

"$ENVBISECT" timeline --venv "$T/venv" --checkpoints "$T/ckpt" --uv-cache "$T/uv" --as-of step_690 -o "$T/good.json" > /dev/null
"$PY" - "$T/good.json" "$T/good.facts.json" <<'PY'
import json, sys
s, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["packages"] == {"fauxtorch": "2.11.0+cu128", "fauxtransformers": "5.8.1"}, s["packages"]
assert s["caches"]["inductor"]["state"] == "warm", s["caches"]
p = f["reconstructed"]["provenance"]
assert p["packages/fauxtorch"]["confidence"] == "guessed" and "Kx1" in p["packages/fauxtorch"]["source"], p
assert p["packages/fauxtransformers"]["confidence"] == "observed", p
assert f["reconstructed"]["as_of_utc"] == "2026-11-12T20:41:00Z", f["reconstructed"]
PY
# The proposal is a state like any other: diff against a capture of today names the torch build.
"$ENVBISECT" capture --venv "$T/venv" -o "$T/now.json" > /dev/null
"$ENVBISECT" diff "$T/good.json" "$T/now.json" > "$T/diff.txt"
expect_contains "$T/diff.txt" "2.11.0+cu128"
expect_contains "$T/diff.txt" "fauxsglang"

# --as-of without -o, and an unknown time: exit 2.
not "$ENVBISECT" timeline --venv "$T/venv" --as-of step_690 2> "$T/err1"
expect_contains "$T/err1" "needs -o FILE"
rc=0
"$ENVBISECT" timeline --venv "$T/venv" --checkpoints "$T/ckpt" --as-of step_999 -o "$T/x.json" > /dev/null 2> "$T/err2" || rc=$?
[[ $rc -eq 2 && ! -e "$T/x.json" ]]
expect_contains "$T/err2" "step_999"
echo OK
