#!/usr/bin/env bash
# Where the machine gives a writable cgroup v2 tree, each attempt runs in a cgroup of its own, and
# what the benchmark started is ended with the attempt even after it moved to a process group of its
# own (which neither the group kill nor the subreaper's daemon sweep finds). The journal says which
# containment a run used; with ENVBISECT_CGROUP=off (or no cgroup v2 access) it says "process group"
# and why, and processes.jsonl marks each process so.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
# The flags benchmark, first starting a process that leaves its group (setpgid) and lingers.
cat >"$T/bench.py" <<PY
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import os, time; os.setpgid(0, 0); time.sleep(300)"])
exec(open("$F/bench.py").read())
PY
"$PY" -c "import json,sys; r=json.load(open('$F/recipe.json')); r['command'][1]='$T/bench.py'; json.dump(r, open('$T/recipe.json','w'))"
lingering() { pgrep -f "os.setpgid\(0, 0\); time.sleep\(300\)" | while read -r p; do
  [[ $(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -c "^ENVBISECT_TEST_MARK=$1$") -gt 0 ]] && echo "$p"; done || true; }
containment() { "$PY" -c "import json; print(next(json.loads(l)['containment'] for l in open('$1/journal.jsonl') if json.loads(l)['type']=='start'))"; }
# Judged apart from envbisect: may this process make cgroups in its own cgroup v2 folder?
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
allowed=no
cgdir=""
for mount in /sys/fs/cgroup /sys/fs/cgroup/unified; do
  [[ -n $own && -w "$mount$own/cgroup.procs" ]] && allowed=yes && cgdir="$mount${own%/}"
done
# The benchmark runs with the recipe's environment only; a marker tells this test's processes apart.
with_mark() { "$PY" -c "import json,sys; r=json.load(open('$T/recipe.json')); r.setdefault('env',{})['ENVBISECT_TEST_MARK']='$1'; json.dump(r, open('$T/recipe-$1.json','w'))"; }

with_mark fallback
ENVBISECT_CGROUP=off "$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/recipe-fallback.json" --out "$T/off" \
  --no-probe -q >/dev/null 2>&1
[[ $(containment "$T/off") == "process group per attempt (no cgroup: ENVBISECT_CGROUP=off)" ]]
grep -q '"containment":"process-group"' "$T/off/processes.jsonl"
not grep -q '"containment":"cgroup"' "$T/off/processes.jsonl"
# What the fallback cannot end (it says so): processes that only left the group.
left=$(lingering fallback | wc -l)
lingering fallback | xargs -r kill -9
echo "process-group fallback: $left processes outlived their attempts"

with_mark cgroup
# What a kill -9 between making a cgroup and journaling its process leaves: swept at the next start.
[[ $allowed == no ]] || mkdir "$cgdir/envbisect-999999999-0"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/recipe-cgroup.json" --out "$T/on" --no-probe -q >/dev/null 2>&1
said=$(containment "$T/on")
if [[ $allowed == yes ]]; then
  [[ $said == "cgroup v2 per attempt under "* ]] || { echo "cgroups are allowed here, but the run said: $said"; exit 1; }
  grep -q '"containment":"cgroup"' "$T/on/processes.jsonl"
  # Killed with their cgroup when each attempt ended; on a loaded machine an exit may take a moment.
  for _ in $(seq 50); do [[ -z $(lingering cgroup) ]] && break; sleep 0.1; done
  left=$(lingering cgroup | wc -l)
  lingering cgroup | xargs -r kill -9
  [[ $left -eq 0 ]] || { echo "$left processes outlived their attempts' cgroups"; exit 1; }
  # Every attempt had its own cgroup, and none is left behind; nor is an empty one of a dead envbisect.
  [[ ! -e "$cgdir/envbisect-999999999-0" ]]
  "$PY" - "$T/on/processes.jsonl" <<'PY'
import json, os, sys
paths = [r["cgroup"] for r in map(json.loads, open(sys.argv[1])) if r["type"] == "started"]
assert paths and len(set(paths)) == len(paths), paths
left = [p for p in paths if os.path.exists(p)]
assert not left, left
PY
else
  [[ $said == "process group per attempt (no cgroup: "* ]] || { echo "no cgroups here, but the run said: $said"; exit 1; }
  lingering cgroup | xargs -r kill -9
fi
