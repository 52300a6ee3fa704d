#!/usr/bin/env bash
# `run --slots 2` (local) measures two attempts at once and still finds the incident's cause,
# {fauxtorch +cu128 -> +cu130, inductor cache warm -> cold}, as the serial run does. Reduced run count: the fixture's states with three of their differences, no thread probes.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null

# The fixture's states, bad reduced to the cause plus one harmless difference; repo paths absolute.
"$PY" - "$F" "$T" <<'PY'
import json, sys
f, t = sys.argv[1:]
good, bad = (json.load(open(f"{f}/{n}.json")) for n in ("good", "bad"))
for s in (good, bad):
    for repo in s.get("repos", {}).values():
        repo["path"] = f"{f}/{repo['path']}"
for key in ("repos", "env", "data"):
    bad[key] = good[key]
bad["packages"] = {k: v for k, v in bad["packages"].items() if k in good["packages"]}
json.dump(good, open(f"{t}/good.json", "w"))
json.dump(bad, open(f"{t}/bad.json", "w"))
PY

# Exit 0, or 1 when a verification came out intermediate: on 2 shared cores, runs measured side by side
# (the anchors) are slower than runs alone, so a candidate run alone can look better than the bad
# anchor (docs/EXECUTORS.md, "Slots share what they are not given"). The cause itself must be the same.
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" \
  --store "$T/store" --out "$T/run" --no-probe --slots 2 >"$T/out.txt" || rc=$?
(( rc == 0 || rc == 1 )) || { cat "$T/out.txt" >&2; exit 1; }
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
expect_contains "$T/out.txt" "caches/inductor warm -> cold"
grep '^verified:' "$T/out.txt"
# Two slots were used: some attempts ran at the same time (each record has its end time and wall time),
# and each candidate's attempts are journaled in attempt order.
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
spans = sorted((r["t"] - r["wall_s"], r["t"]) for r in records if r.get("type") == "attempt")
overlaps = sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1] - 0.05)
print(f"{len(spans)} attempts, {overlaps} started before the previous one ended")
assert overlaps > 0, spans
seen = {}
for r in records:
    if r.get("type") == "attempt":
        assert r["attempt"] == seen.get(r["candidate"], 0), r
        seen[r["candidate"]] = r["attempt"] + 1
PY
