#!/usr/bin/env bash
# kill -9 of envbisect mid-attempt: the benchmark (its direct child) is gone within a second
# (PR_SET_PDEATHSIG), and so is what it started in its process group (the group watchdog). When the
# watchdog is killed too, that helper outlives it, and `resume` kills the group, saying so, before it
# starts any attempt of its own: no new attempt runs beside it.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
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
alive() { [[ -e /proc/$1 ]] && [[ $(cut -d')' -f2 /proc/$1/stat | awk '{print $1}') != Z ]]; }
# start CMD...: run envbisect in the background until its benchmark hangs; sets $envbisect, $bench, $helper.
start() {
  rm -f "$T/pids"
  "$ENVBISECT" "$@" >>"$T/first.txt" 2>&1 &
  envbisect=$!
  for _ in $(seq 300); do [[ -f "$T/pids" ]] && break; sleep 0.1; done
  read -r bench helper <"$T/pids"
}
# gone_soon PID: PID stops running within a second.
gone_soon() { for _ in $(seq 10); do alive "$1" || return 0; sleep 0.1; done; not alive "$1"; }

# kill -9 of envbisect alone: the benchmark (PDEATHSIG) and its helper (the group watchdog) go with it.
start run "$F/good.json" "$F/bad.json" --recipe "$T/recipe.json" --out "$T/run"
kill -9 "$envbisect"; wait "$envbisect" 2>/dev/null || true
gone_soon "$bench"
gone_soon "$helper"

# kill -9 of envbisect and its watchdog at once (a job killed as a whole, the OOM killer): the helper
# survives, and resume must end it before it starts attempts of its own.
start resume "$T/run"
watchdog=""
for _ in $(seq 50); do watchdog=$(pgrep -P "$envbisect" -x envbisect || true); [[ -n $watchdog ]] && break; sleep 0.1; done
[[ -n $watchdog ]] || { echo "no group watchdog under envbisect $envbisect"; exit 1; }
# The watchdog first: killed second, it can see envbisect's end and clean the group before its own
# SIGKILL lands, and no helper is left over (a loaded CI machine did that once).
kill -9 "$watchdog"
for _ in $(seq 50); do [[ $(cut -d')' -f2 "/proc/$watchdog/stat" 2>/dev/null | awk '{print $1}') =~ ^(Z|)$ ]] && break; sleep 0.1; done
kill -9 "$envbisect"; wait "$envbisect" 2>/dev/null || true
gone_soon "$bench"
alive "$helper"
rm "$T/hang"
"$ENVBISECT" resume "$T/run" >"$T/resume.txt" 2>"$T/resume.err"
expect_contains "$T/resume.err" "of process group $bench (/usr/bin/python3)"
expect_contains "$T/resume.err" "left running by an earlier session of this run, before starting new attempts"
not alive "$helper"
[[ ! -e "$T/beside" ]] || { cat "$T/beside"; exit 1; }
expect_contains "$T/resume.txt" "result:"
