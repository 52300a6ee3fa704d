#!/usr/bin/env bash
# capture --via 'env OMP_NUM_THREADS=7' runs every probe through a real command prefix: the state
# holds the 7 that only the prefix sets (a dropped prefix would capture this shell's 3), and is
# otherwise the same state and facts as a local capture (time and description aside); a bad --via
# writes nothing.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

need git git
need_python_module pip python3-pip
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null

make_venv "$T/venv" "$F/.build/wheels" 'fauxtransformers==5.8.1'
git init -q -b work "$T/repo"
echo x > "$T/repo/x"
git -C "$T/repo" add x
git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false commit -q -m x
echo dirty > "$T/repo/untracked.txt"
mkdir -p "$T/inductor" "$T/out"
echo k > "$T/inductor/k"
export TORCHINDUCTOR_CACHE_DIR="$T/inductor" TRITON_CACHE_DIR="$T/none" OMP_NUM_THREADS=3

"$ENVBISECT" capture --venv "$T/venv" --repo "r=$T/repo" -o "$T/out/local.json" > /dev/null 2> "$T/local.err"
"$ENVBISECT" capture --via 'env OMP_NUM_THREADS=7' --venv "$T/venv" --repo "r=$T/repo" -o "$T/out/via.json" > /dev/null 2> "$T/via.err"
expect_contains "$T/local.err" "uncommitted"
"$PY" - "$T/out" <<'PY'
import json, sys
d = sys.argv[1]
def load(n):
    s = json.load(open(f"{d}/{n}.json")); s.pop("name"); s.pop("description")
    f = json.load(open(f"{d}/{n}.facts.json")); c = f["captured"]
    for k in ("time", "time_utc", "via"): c.pop(k)
    f.pop("state")
    return s, f
(ls, lf), (vs, vf) = load("local"), load("via")
assert ls["env"]["OMP_NUM_THREADS"] == "3" and vs["env"]["OMP_NUM_THREADS"] == "7", (ls["env"], vs["env"])
assert vf["captured"]["env"]["OMP_NUM_THREADS"] == "7", vf["captured"]["env"]
vs["env"]["OMP_NUM_THREADS"] = vf["captured"]["env"]["OMP_NUM_THREADS"] = "3"
assert ls == vs, (ls, vs)
assert lf == vf, json.dumps([lf, vf], indent=1)[:3000]
assert ls["packages"] == {"fauxtransformers": "5.8.1"}, ls
assert lf["captured"]["repos"]["r"]["branch"] == "work" and lf["captured"]["repos"]["r"]["dirty"] == ["untracked.txt"]
assert json.load(open(f"{d}/via.facts.json"))["captured"]["via"] == ["env", "OMP_NUM_THREADS=7"]
PY

# Bad input: an unterminated quote, both --python and --venv; exit 2 and no file written.
rc=0
"$ENVBISECT" capture --via "ssh 'host" --python /usr/bin/python3 --venv "$T/venv" -o "$T/out/bad.json" 2> "$T/bad.err" || rc=$?
[[ $rc -eq 2 ]] || { cat "$T/bad.err"; exit 1; }
expect_contains "$T/bad.err" "unterminated single quote"
expect_contains "$T/bad.err" "--python and --venv"
[[ ! -e "$T/out/bad.json" ]]
echo OK
