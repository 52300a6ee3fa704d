#!/usr/bin/env bash
# The nightly matrix over two nights: night 1 measures 4 cells (no history yet: they say so, exit 0);
# night 2's wheelhouse gains a broken fauxlib 1.2, so the two "latest" cells turn red, are bisected
# automatically against night 1's state and name fauxlib 1.1 -> 1.2 (exit 1); the pinned cells stay
# green. A rerun of night 2 measures nothing and changes no file; a bad spec exits 2 writing nothing.
source "$(dirname "$0")/common.sh"
FX="$T/fx"
R="$T/results"
"$PY" "$SRC/fixtures/matrix/make-fixture" "$FX"
"$ENVBISECT" matrix "$FX/spec.json" --results "$R" --date 2026-11-01 >"$T/night1.txt"
[[ $(wc -l <"$T/night1.txt") -eq 1 ]]
expect_contains "$T/night1.txt" "matrix 2026-11-01: 4 cells: 0 green, 0 red (0 new), 4 without enough history"
expect_contains "$R/2026-11-01/matrix.md" "not enough history: 0 earlier passing nights"

"$PY" "$SRC/fixtures/matrix/make-fixture" "$FX" --night 2
rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$R" --date 2026-11-02 --jobs 2 >"$T/night2.txt" || rc=$?
[[ $rc -eq 1 ]]
[[ $(wc -l <"$T/night2.txt") -eq 1 ]]
expect_contains "$T/night2.txt" "4 cells: 2 green, 2 red (2 new)"
expect_contains "$T/night2.txt" "(cause: packages/fauxlib 1.1 -> 1.2)"
N="$R/2026-11-02"
expect_contains "$N/matrix.md" "RED (new)"
expect_contains "$N/matrix.md" "packages/fauxlib 1.1 -> 1.2 (vs 2026-11-01)"
"$PY" - "$N" <<'PY'
import json, os, re, sys
night = sys.argv[1]
doc = json.load(open(os.path.join(night, "matrix.json")))
assert doc["new_red"] == 2, doc["new_red"]
cells = {c["id"]: c for c in doc["cells"]}
for workers in (1, 2):
    cell = cells[f"packages.fauxkernels=latest,packages.fauxlib=latest,threads.workers={workers}"]
    assert cell["status"] == "red" and cell["new_red"] and cell["resolved"]["packages.fauxlib"] == "1.2", cell
    assert "RuntimeError" in cell["first_error"], cell
    bisect = cell["bisect"]
    assert bisect["status"] == "found" and bisect["cause"] == ["packages/fauxlib 1.1 -> 1.2"], bisect
    assert bisect["last_green"] == "2026-11-01", bisect
    report = os.path.join(night, bisect["report"])
    assert "fauxlib" in open(report).read(), report
    result = json.load(open(os.path.join(os.path.dirname(report), "result.json")))
    assert [d["name"] for d in result["cause"]] == ["fauxlib"], result["cause"]
for cid in ("packages.fauxkernels=latest,packages.fauxlib=1.0,threads.workers=1", "env.FAUX_MODE=strict,packages.fauxlib=1.0"):
    assert cells[cid]["status"] == "green", cells[cid]
assert len(cells) == 4  # the exclude rule dropped fauxlib 1.0 with 2 workers
html = open(os.path.join(night, "matrix.html")).read()
assert not re.search(r"(src|href)=\"(https?:)?//", html) and "<script" not in html, "self-contained"
assert html.count("<svg class=\"trend\"") == 4 and 'class="red new"' in html and 'class="green"' in html
assert html.count('/bisect/report.html">report</a>') == 2
PY

# Rerun of night 2: the same files, byte for byte and untouched (no cell measured again).
snapshot() { (cd "$R" && find . -type f -printf '%p %T@ %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
snapshot >"$T/before.txt"
rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$R" --date 2026-11-02 --jobs 2 >"$T/rerun.txt" 2>"$T/rerun.err" || rc=$?
[[ $rc -eq 1 ]]
snapshot >"$T/after.txt"
diff "$T/before.txt" "$T/after.txt"
diff <(cut -d';' -f1-3 "$T/night2.txt") <(cut -d';' -f1-3 "$T/rerun.txt")
not grep -q "bisecting" "$T/rerun.err"

# A bad spec: one clear error naming the file and the field, exit 2, nothing written.
"$PY" - "$FX/spec.json" "$FX/bad.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["axes"]["threads.workers"] = [0, 2]
json.dump(spec, open(sys.argv[2], "w"))
PY
rc=0
"$ENVBISECT" matrix "$FX/bad.json" --results "$T/fresh" --date 2026-11-03 2>"$T/bad.err" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/bad.err" "bad.json: /axes/threads.workers/0: expected a positive integer thread count, got 0"
[[ ! -e "$T/fresh" ]]
