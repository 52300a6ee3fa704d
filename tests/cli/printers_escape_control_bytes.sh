#!/usr/bin/env bash
# No printing command lets a raw control byte from its inputs reach the terminal: random strings of
# C0 controls, DEL, C1 controls and escape sequences go through state values and names,
# file names and a lock's package names; every byte envbisect prints (stdout and
# stderr) is checked. And `repro`'s printed command, pasted into bash, runs the benchmark even when a
# variable's name begins with "-S" (GNU env would take it as an option without "--").
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
# clean FILE...: no control byte but \n and \t, no C1 control, valid UTF-8.
clean() {
  "$PY" - "$@" <<'PY'
import re, sys
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    bad = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
    assert bad is None, f"{path}: raw control byte {bad.group()!r} at {bad.start()}: {data[max(0, bad.start() - 60):bad.start() + 20]!r}"
    data.decode("utf-8")  # invalid UTF-8 raises
PY
}
# Random hostile strings, reproducible.
"$PY" - "$T" "$F" <<'PY'
import json, os, random, sys
t, f = sys.argv[1], sys.argv[2]
rng = random.Random(39)
pieces = [chr(c) for c in range(1, 32)] + ["\x7f", "\u009b", "\u0085", "\x1b]0;owned\x07", "\x1b[2J", "ok"]
def hostile(n=8):
    return "".join(rng.choice(pieces) for _ in range(n))
for i in range(12):
    good = json.load(open(os.path.join(f, "good.json")))
    bad = json.load(open(os.path.join(f, "bad.json")))
    good["env"]["X" + hostile(3).replace("=", "")] = hostile()
    bad["env"]["FLAG_E"] = hostile()
    good["python"]["interpreter"] = "/usr/bin/python3"
    json.dump(good, open(f"{t}/good{i}.json", "w"))
    json.dump(bad, open(f"{t}/bad{i}.json", "w"))
# A run whose states differ in a hostile value and share a variable whose name begins with "-S".
good = json.load(open(os.path.join(f, "good.json")))
bad = json.load(open(os.path.join(f, "bad.json")))
for state in (good, bad):
    state["env"]["-Stouch " + t + "/PWNED"] = "1"
bad["env"]["FLAG_E"] = "\x1b]0;owned\x07\x1b[31mred\u009b2J"
json.dump(good, open(f"{t}/good.json", "w"))
json.dump(bad, open(f"{t}/bad.json", "w"))
# A requirements file whose package name and path carry escapes.
open(f"{t}/req\x1b[31m.txt", "w").write("torch\x1b]0;x\x07==2.0\n")
open(f"{t}/ok\x1b[2J.txt", "w").write("numpy==1.26.4\n")
PY
for i in $(seq 0 11); do
  "$ENVBISECT" diff "$T/good$i.json" "$T/bad$i.json" >"$T/diff$i.out" 2>&1 || true
  "$ENVBISECT" diff --json "$T/good$i.json" "$T/bad$i.json" >"$T/diffj$i.out" 2>&1 || true
done
clean "$T"/diff*.out
# Errors naming hostile input: a missing file, a lock's package name; the summary naming the lock's path.
"$ENVBISECT" diff "$T/good0.json" "$T/missing"$'\x1b[2J'".json" >"$T/missing.out" 2>&1 || true
"$ENVBISECT" state "$T/req"$'\x1b[31m'".txt" >"$T/state_bad.out" 2>&1 || true
"$ENVBISECT" state "$T/ok"$'\x1b[2J'".txt" --python 3.11 >"$T/state_ok.out" 2>"$T/state_ok.err" || true
expect_contains "$T/state_ok.err" 'ok\x1b[2J.txt'
clean "$T/missing.out" "$T/state_bad.out" "$T/state_ok.err"

# A whole run, its report, and repro of the bad anchor.
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$F/recipe.json" --out "$T/run" --no-probe >"$T/run.out" 2>&1
"$ENVBISECT" report "$T/run" >"$T/report.out" 2>&1
"$ENVBISECT" repro "$T/run" bad >"$T/repro.out" 2>&1
clean "$T/run.out" "$T/report.out" "$T/repro.out"
expect_contains "$T/repro.out" 'env -i -- '
# Pasted into bash (the printed command is bash: $'...' for control bytes), it runs the benchmark.
grep '^command: ' "$T/repro.out" | sed 's/^command: //' >"$T/again.sh"
(cd / && bash "$T/again.sh") >"$T/again.out" 2>&1
expect_contains "$T/again.out" '"items_per_s"'
[[ -z $(find "$T" -maxdepth 1 -name "PWNED*") ]]
