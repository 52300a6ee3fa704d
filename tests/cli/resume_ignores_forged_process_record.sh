#!/usr/bin/env bash
# processes.jsonl can only name what this run started: a forged "started" line carrying an unrelated
# process's real identity (pgid, session, start ticks, boot id: all readable in /proc) is reported by
# `resume` and never acted on; the process lives on. Records this run wrote carry a MAC under a key
# kept outside the run folder, so a copied or edited line does not verify either.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
export XDG_STATE_HOME="$T/state"
R="$T/run"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$R" --no-probe -q >"$T/run.txt" 2>&1
# The run's own records are sealed, and the key is not in the run folder.
grep -q '"mac":"[0-9a-f]\{64\}"' "$R/processes.jsonl"
[[ $(find "$T/state/envbisect/run-keys" -name '*.key' | wc -l) -eq 1 ]]
[[ -z $(find "$R" -name '*.key') ]]

# An unrelated process in a group and session of its own.
setsid sleep 300 &
victim=$!
trap 'rc=$?; kill -9 $victim 2>/dev/null; (exit $rc); _cli_on_exit' EXIT
for _ in $(seq 50); do [[ $(cut -d')' -f2 /proc/$victim/stat | awk '{print $4}') == "$victim" ]] && break; sleep 0.1; done
read -r pgid session ticks < <(cut -d')' -f2 "/proc/$victim/stat" | awk '{print $3, $4, $20}')
boot=$(cat /proc/sys/kernel/random/boot_id)
forged="{\"type\":\"started\",\"pgid\":$pgid,\"session\":$session,\"start_ticks\":$ticks,\"boot_id\":\"$boot\",\"program\":\"sleep\",\"containment\":\"process-group\"}"
echo "$forged" >>"$R/processes.jsonl"
# A real record of this run with its pgid changed to the victim's, MAC kept: does not verify either.
grep -m 1 '"type":"started"' "$R/processes.jsonl" |
  "$PY" -c "import json,sys; r=json.loads(sys.stdin.read()); r['pgid']=$pgid; r['start_ticks']=$ticks; r['session']=$session; print(json.dumps(r, separators=(',', ':')))" \
  >>"$R/processes.jsonl"

"$ENVBISECT" resume "$R" >"$T/resume.txt" 2>"$T/resume.err"
expect_contains "$T/resume.err" "processes.jsonl: record"
expect_contains "$T/resume.err" "is not sealed by this run"
expect_contains "$T/resume.err" "nothing it names is killed"
[[ $(grep -c "is not sealed by this run" "$T/resume.err") -eq 2 ]]
not grep -q "killed .* process" "$T/resume.err"
sleep 0.2
[[ -d /proc/$victim ]] && [[ $(cut -d')' -f2 "/proc/$victim/stat" | awk '{print $1}') != Z ]]

# Without the key (another user's state, a moved folder) nothing verifies, and nothing is killed.
rm -r "$T/state"
"$ENVBISECT" resume "$R" >"$T/resume2.txt" 2>"$T/resume2.err"
expect_contains "$T/resume2.err" "missing"
[[ -d /proc/$victim ]]
