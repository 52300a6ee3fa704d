#!/usr/bin/env bash
# capture reads a real venv (fixture wheels), a git repo and a compile cache into a state that diff
# loads; after a torch build swap and a cache wipe, a second capture differs in exactly those.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

need git git
need_python_module pip python3-pip
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
W="$F/.build/wheels"

make_venv "$T/venv" "$W" 'fauxtorch==2.11.0+cu128' 'fauxtransformers==5.8.1'
git init -q -b main "$T/repo"
echo one > "$T/repo/a.txt"
git -C "$T/repo" add a.txt
git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false commit -q -m one
HEAD_ID="$(git -C "$T/repo" rev-parse HEAD)"
mkdir -p "$T/inductor/fx" "$T/states"
echo kernel > "$T/inductor/fx/k.py"
export TORCHINDUCTOR_CACHE_DIR="$T/inductor" TRITON_CACHE_DIR="$T/no-triton"
export NCCL_DEBUG=WARN HF_TOKEN=hf_do_not_leak

"$ENVBISECT" capture --venv "$T/venv" --repo "dflash=$T/repo" -o "$T/states/good.json" > "$T/capture.out"
expect_contains "$T/capture.out" "into $T/states/good.json"
"$PY" - "$T/states/good.json" "$HEAD_ID" "$T/venv" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["format"] == 1 and s["name"] == "good", s
assert s["packages"]["fauxtorch"] == "2.11.0+cu128", s["packages"]
assert s["packages"]["fauxtransformers"] == "5.8.1", s["packages"]
assert s["repos"]["dflash"]["commit"] == sys.argv[2], s["repos"]
assert s["caches"]["inductor"] == {"role": "inductor", "state": "warm"}, s["caches"]
assert s["caches"]["triton"]["state"] == "cold", s["caches"]
assert s["env"]["NCCL_DEBUG"] == "WARN", s["env"]  # secrets and cache folders stay out
assert not {"HF_TOKEN", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"} & set(s["env"]), s["env"]
PY
"$PY" - "$T/states/good.facts.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["captured"]
assert f["packages"]["fauxtorch"]["installer"] == "pip", f["packages"]["fauxtorch"]
assert len(f["packages"]["fauxtorch"]["record_sha256"]) == 64
assert f["caches"]["inductor"]["entries"] == 1 and f["caches"]["inductor"]["bytes"] == 7
assert f["env"]["HF_TOKEN"] == "<redacted>"
assert f["host"]["cpu_count"] >= 1 and f["python"]["in_venv"] is True
PY
not grep -r hf_do_not_leak "$T/states"

# What the incident did: another torch build over the same version, and the cache wiped.
"$PY" -m pip --isolated --python "$T/venv/bin/python" install -q --no-index --find-links "$W" 'fauxtorch==2.11.0+cu130'
rm -rf "$T/inductor"
"$ENVBISECT" capture --venv "$T/venv" --repo "dflash=$T/repo" -o "$T/states/bad.json" > /dev/null

"$ENVBISECT" diff --json "$T/states/good.json" "$T/states/bad.json" > "$T/diff.json"
"$PY" - "$T/diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["deltas"]
got = sorted((x["dimension"], x["name"]) for x in d)
assert got == [("caches", "inductor"), ("packages", "fauxtorch")], d
PY
"$ENVBISECT" diff "$T/states/good.json" "$T/states/bad.json" > "$T/diff.txt"
expect_contains "$T/diff.txt" "2.11.0+cu130"
"$ENVBISECT" diff --exit-code "$T/states/good.json" "$T/states/good.json" > /dev/null
echo OK
