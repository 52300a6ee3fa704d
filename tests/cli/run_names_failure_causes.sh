#!/usr/bin/env bash
# Inputs that make every anchor run fail (a metric key the benchmark never prints, no JSON line, a
# corrupt wheel, a wheel with a `../` entry, a wheel holding one entry twice (the last copy once won
# silently), a wheel built for another interpreter, or for this one but musl libc, a newer glibc or a
# debug ABI) end the run with exit 2 and one message naming
# the real cause, before the search: not exit 3 with advice about repeats, not "an anchor run exited
# 125". The journal and the report carry the same diagnosis.
source "$(dirname "$0")/common.sh"

# setup DIR CASE: wheels p 1.0 (good) and 2.0 (bad, broken as CASE says), a benchmark, the inputs.
setup() {
  local dir="$1" case="$2"
  mkdir -p "$dir/wheels"
  "$PY" - "$dir/wheels" "$case" <<'PY'
import sys, zipfile
out, case = sys.argv[1:]
def wheel(version, extra=(), slow=False, tag="py3-none-any"):
    di = f"p-{version}.dist-info/"
    files = {"p/__init__.py": f"SLOW = {slow}\n",
             di + "METADATA": f"Metadata-Version: 2.1\nName: p\nVersion: {version}\n",
             di + "WHEEL": f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: {tag}\n"}
    with zipfile.ZipFile(f"{out}/p-{version}-{tag}.whl", "w") as z:
        for name, text in list(files.items()) + list(extra):
            z.writestr(name, text)
        z.writestr(di + "RECORD", "")
wheel("1.0")
if case == "corrupt":
    open(f"{out}/p-2.0-py3-none-any.whl", "wb").write(b"PK\x03\x04 not a zip archive")
elif case == "dotdot":
    wheel("2.0", [("p/../../evil.py", "x")], slow=True)
elif case == "duplicate":
    import warnings
    warnings.simplefilter("ignore")  # zipfile warns about the duplicate it is asked to write
    wheel("2.0", [("p/__init__.py", "SLOW = False\n")], slow=True)
elif case == "interpreter":
    wheel("2.0", slow=True, tag="cp312-cp312-manylinux_2_17_x86_64")
elif case == "musl":
    wheel("2.0", slow=True, tag="cp311-cp311-musllinux_1_2_x86_64")
elif case == "glibc":
    wheel("2.0", slow=True, tag="cp311-cp311-manylinux_2_99_x86_64")
elif case == "debug_abi":
    wheel("2.0", slow=True, tag="cp311-cp311d-manylinux_2_17_x86_64")
else:
    wheel("2.0", slow=True)
PY
  case "$case" in
    nokey) echo 'import json, p; print("warming up"); print(json.dumps({"tokens_per_s": 300.0 if p.SLOW else 1000.0, "loss": 1.5}))' ;;
    nojson) echo 'import p; print("throughput: 1000 tok/s")' ;;
    *) echo 'import json, p; print(json.dumps({"m": 300.0 if p.SLOW else 1000.0}))' ;;
  esac >"$dir/bench.py"
  echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$dir/recipe.json"
  echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}}' >"$dir/good.json"
  echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "2.0"}}' >"$dir/bad.json"
}

# check CASE TEXT...: the run exits 2 and its one error line holds every TEXT.
check() {
  local case="$1" dir="$T/$1"
  shift
  setup "$dir" "$case"
  local rc=0
  "$ENVBISECT" run "$dir/good.json" "$dir/bad.json" --recipe "$dir/recipe.json" --wheels "$dir/wheels" \
    --store "$T/store" --no-probe --out "$dir/run" >"$dir/out.txt" 2>"$dir/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || { echo "$case: expected exit 2, got $rc"; cat "$dir/err.txt"; exit 1; }
  [[ $(grep -c '^envbisect: error:' "$dir/err.txt") -eq 1 ]] || { echo "$case: not one error"; cat "$dir/err.txt"; exit 1; }
  for text in "$@"; do
    expect_contains "$dir/err.txt" "$text"
  done
  if grep -qE 'exited 125|Try:|more repeats' "$dir/err.txt"; then
    echo "$case: the message blames a skip or advises repeats"; cat "$dir/err.txt"; exit 1
  fi
}

check nokey "every run of both anchors (4 of 4) failed the same way" \
  "without the recipe's metric key \"m\"; its keys: loss, tokens_per_s" \
  'last JSON line: "{"tokens_per_s": 1000.0, "loss": 1.5}"'
check nojson "printed no JSON object line on stdout" 'last stdout line: "throughput: 1000 tok/s"'
check corrupt "the bad anchor's environment could not be built" "p-2.0-py3-none-any.whl: not a valid wheel (zip)"
check dotdot "the bad anchor's environment could not be built" "refusing entry 'p/../../evil.py'"
check duplicate "the bad anchor's environment could not be built" "holds the entry 'p/__init__.py' twice"
check interpreter "p==2.0 has no wheel this state's Python 3.11 can install" \
  "p-2.0-cp312-cp312-manylinux_2_17_x86_64.whl (tags cp312-cp312-manylinux_2_17_x86_64)"
# Wheels of the right interpreter that still cannot run here were once installed silently.
check musl "p==2.0 has no wheel this state's Python 3.11 can install" \
  "(tags cp311-cp311-musllinux_1_2_x86_64): built for platform musllinux_1_2_x86_64 (musl libc, not glibc)"
check glibc "p==2.0 has no wheel this state's Python 3.11 can install" \
  "(needs glibc 2.99), the target is Linux x86_64 with glibc 2.36"
check debug_abi "p==2.0 has no wheel this state's Python 3.11 can install" \
  "ABI cp311d (a debug CPython's ABI) does not fit a standard CPython 3.11"

# The journal holds the cause of each attempt and why the run stopped; the report says the same.
"$PY" - "$T/nokey/run/journal.jsonl" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
attempts = [r for r in records if r["type"] == "attempt"]
assert len(attempts) == 4 and all(a["cause"] == "no_metric_key" for a in attempts), attempts
assert all('metric key "m"' in a["diagnosis"] for a in attempts), attempts
stopped = [r for r in records if r["type"] == "stopped"]
assert len(stopped) == 1 and stopped[0]["why"] == "input_error", stopped
PY
expect_contains "$T/nokey/run/report.md" "stopped by an input error"
expect_contains "$T/nokey/run/report.md" "failed: printed JSON without the recipe's metric key"
expect_contains "$T/dotdot/run/report.md" "the bad anchor's environment could not be built"

# The run stopped on its inputs: resume says so (exit 2), it does not pretend the run is unfinished.
rc=0
"$ENVBISECT" resume "$T/nokey/run" >/dev/null 2>"$T/resume.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "resume after an input error: expected exit 2, got $rc"; cat "$T/resume.txt"; exit 1; }
expect_contains "$T/resume.txt" "the run stopped on an input error, so there is nothing to resume"
