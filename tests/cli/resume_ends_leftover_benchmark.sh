#!/usr/bin/env bash
# kill -9 of envbisect mid-attempt: the benchmark (its direct child) is gone within a second
# (PR_SET_PDEATHSIG); what the benchmark started in its process group outlives it, and `resume` kills
# that group, saying so, before it starts any attempt of its own: no new attempt runs beside it.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
[[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 is missing"
# The flags benchmark, which first hangs (leaving a helper in its group) while $T/hang exists, and
# notes any attempt that starts while an earlier helper still runs.
cat >"$T/bench.py" <<PY
import os, subprocess, sys, time
hang, pids = "$T/hang", "$T/pids"
if os.path.exists(pids):
    helper = int(open(pids).read().split()[1])
    if os.path.exists(f"/proc/{helper}") and open(f"/proc/{helper}/stat").read().split(")")[1].split()[0] != "Z":
        open("$T/beside", "a").write(f"attempt {sys.argv[1]} ran beside {helper}\n")
if os.path.exists(hang):
    helper = subprocess.Popen(["sleep", "120"])  # stays in the benchmark's process group
    with open(pids + ".tmp", "w") as out:
        out.write(f"{os.getpid()} {helper.pid}\n")
    os.rename(pids + ".tmp", pids)
    time.sleep(120)
exec(open("$F/bench.py").read())
PY
cp "$F/recipe.json" "$T/"
touch "$T/hang"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/first.txt" 2>&1 &
envbisect=$!
for _ in $(seq 300); do [[ -f "$T/pids" ]] && break; sleep 0.1; done
read -r bench helper <"$T/pids"
kill -9 "$envbisect"; wait "$envbisect" 2>/dev/null || true
alive() { [[ -e /proc/$1 ]] && [[ $(cut -d')' -f2 /proc/$1/stat | awk '{print $1}') != Z ]]; }
for _ in $(seq 10); do alive "$bench" || break; sleep 0.1; done
not alive "$bench"   # the benchmark died with envbisect
alive "$helper"      # its helper did not: only resume can end it

rm "$T/hang"
"$ENVBISECT" resume "$T/run" >"$T/resume.txt" 2>"$T/resume.err"
expect_contains "$T/resume.err" "of process group $bench (/usr/bin/python3)"
expect_contains "$T/resume.err" "left running by an earlier session of this run, before starting new attempts"
not alive "$helper"
[[ ! -e "$T/beside" ]] || { cat "$T/beside"; exit 1; }
expect_contains "$T/resume.txt" "result:"
