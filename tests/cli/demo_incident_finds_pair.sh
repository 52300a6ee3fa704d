#!/usr/bin/env bash
# The incident end to end: `envbisect run` on fixtures/incidents/dflash-cu130 finds exactly the pair
# {fauxtorch +cu128 -> +cu130, inductor cache warm -> cold}, verifies it both ways, reports that one
# drafter thread does not race and that a warm cache does not at the boundary (the modifiers: threads
# bisected with the cache cold, the warm cache decided at the last good and first bad count), and
# writes the three report files.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null

"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" \
  --store "$T/store" --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
expect_contains "$T/out.txt" "caches/inductor warm -> cold"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
expect_contains "$T/out.txt" "when it bites (threads/drafter_threads, inductor:cold): 1: good,"
expect_contains "$T/out.txt" "when it bites (threads/drafter_threads, inductor:warm): 1: good, 2: good"
for f in result.json report.md report.html report.json; do [[ -s "$T/run/$f" ]]; done
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted((c["dimension"], c["name"]) for c in r["cause"]) == [("caches", "inductor"), ("packages", "fauxtorch")], r["cause"]
assert r["verified"] == {"forward": True, "reverse": True}
cold = {p["value"]: p["verdict"] for p in r["probes"] if p["cache"] == "inductor:cold"}
warm = {p["value"]: p["verdict"] for p in r["probes"] if p["cache"] == "inductor:warm"}
assert cold[1] == "good" and cold[2] == "bad" and cold[4] == "bad", r["probes"]
assert set(warm) == {1, 2} and set(warm.values()) == {"good"}, r["probes"]
assert all(p["measured"] == (not p["verdict"].startswith("inferred")) for p in r["probes"]), r["probes"]
PY
# The file opens with the answer: `head` shows whether it was found, the cause and its verification.
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
keys = list(json.load(open(sys.argv[1])))
assert keys[:4] == ["found", "outcome", "cause", "verified"], keys
PY
head -n 3 "$T/run/result.json" | grep -q '"outcome": "found"'
# The strip chart names every decision under its candidate's column (re-checked candidates included).
decisions=$(grep -c '"type":"decision"' "$T/run/journal.jsonl")
named=$(sed -n '/id="plot-metric"/,/<\/svg>/p' "$T/run/report.html" | grep -o '>#[0-9]*</text>' | sort -u | wc -l)
[[ "$decisions" -gt 12 && "$named" == "$decisions" ]] || { echo "strip chart names $named of $decisions decisions"; exit 1; }
