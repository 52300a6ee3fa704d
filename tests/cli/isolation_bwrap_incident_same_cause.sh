#!/usr/bin/env bash
# `envbisect run --isolation bwrap` on the incident fixture finds the same cause as the plain run
# (demo_incident_finds_pair.sh): {fauxtorch +cu128 -> +cu130, inductor cache warm -> cold}, verified
# both ways, and every benchmark run was spawned inside bwrap. No thread probes, to keep it short.
source "$(dirname "$0")/common.sh"
need bwrap bubblewrap
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null

"$ENVBISECT" -vv run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" \
  --store "$T/store" --out "$T/run" --isolation bwrap --no-probe >"$T/out.txt" 2>"$T/log.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
expect_contains "$T/out.txt" "caches/inductor warm -> cold"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"

"$PY" - "$T/run" "$T/log.txt" <<'PY'
import json, sys
run, log = sys.argv[1], sys.argv[2]
r = json.load(open(f"{run}/result.json"))
assert sorted((c["dimension"], c["name"]) for c in r["cause"]) == [("caches", "inductor"), ("packages", "fauxtorch")], r["cause"]
records = [json.loads(line) for line in open(f"{run}/journal.jsonl")]
runs = [x for x in records if x["type"] in ("attempt", "warmup")]
bench = [l for l in open(log) if "spawn:" in l and "/bench.py" in l]
assert len(bench) == len(runs) > 0, (len(bench), len(runs))
assert all(" --unshare-all " in l and "bwrap" in l.split("spawn:")[1].split()[0] for l in bench), bench[0]
PY
