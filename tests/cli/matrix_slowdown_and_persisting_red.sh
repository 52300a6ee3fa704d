#!/usr/bin/env bash
# Past the first red night: on night 3 the wheelhouse gains fauxkernels 2.2, 5x slower but never
# failing. The pinned-fauxlib cell regresses beyond the 20 % threshold against its own history, turns
# red, and its bisection names fauxkernels 2.1 -> 2.2; the cells red since night 2 stay red, are not
# new and are not bisected again, but show night 2's cause and link to its report (exit 1 for the one
# new red cell). Night 4 changes nothing: every
# red cell is old, so the matrix exits 0.
source "$(dirname "$0")/common.sh"
FX="$T/fx"
R="$T/results"
for night in 1 2 3; do
  "$PY" "$SRC/fixtures/matrix/make-fixture" "$FX" --night "$night"
  rc=0
  "$ENVBISECT" matrix "$FX/spec.json" --results "$R" --date "2026-11-0$night" --jobs 2 >"$T/night$night.txt" 2>"$T/night$night.err" || rc=$?
  [[ $rc -eq $([[ $night -eq 1 ]] && echo 0 || echo 1) ]]
done
expect_contains "$T/night3.txt" "4 cells: 1 green, 3 red (1 new)"
expect_contains "$T/night3.txt" "(cause: packages/fauxkernels 2.1 -> 2.2)"
[[ $(grep -c "bisecting against" "$T/night3.err") -eq 1 ]]
"$PY" - "$R/2026-11-03" <<'PY'
import json, os, sys
doc = json.load(open(os.path.join(sys.argv[1], "matrix.json")))
cells = {c["id"]: c for c in doc["cells"]}
slow = cells["packages.fauxkernels=latest,packages.fauxlib=1.0,threads.workers=1"]
assert slow["status"] == "red" and slow["new_red"] and slow["failed"] == 0, slow
assert slow["change"] > 0.7 and "beyond the 20.0 % threshold" in slow["reason"], slow
assert slow["bisect"]["cause"] == ["packages/fauxkernels 2.1 -> 2.2"] and slow["bisect"]["last_green"] == "2026-11-02"
assert [t["status"] for t in slow["trend"]] == ["no_history", "green", "red"], slow["trend"]
for workers in (1, 2):
    old = cells[f"packages.fauxkernels=latest,packages.fauxlib=latest,threads.workers={workers}"]
    assert old["status"] == "red" and not old["new_red"] and old["red_since"] == "2026-11-02", old
    # Not bisected again: tonight shows the cause found the night it turned red, and links there.
    assert old["bisect"]["cause"] == ["packages/fauxlib 1.1 -> 1.2"], old
    assert old["bisect"]["report"].startswith("../2026-11-02/cells/"), old
    assert os.path.exists(os.path.join(sys.argv[1], old["bisect"]["report"])), old
PY
expect_contains "$R/2026-11-03/matrix.md" "red since 2026-11-02"

rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$R" --date 2026-11-04 --jobs 2 >"$T/night4.txt" 2>"$T/night4.err" || rc=$?
[[ $rc -eq 0 ]]
expect_contains "$T/night4.txt" "4 cells: 1 green, 3 red (0 new)"
not grep -q "bisecting" "$T/night4.err"
