#!/usr/bin/env bash
# `envbisect diff` on the incident fixture lists all seven differences grouped by dimension, as a table
# and as JSON; identical states say so and exit 0; --exit-code exits 1 when they differ.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/incidents/dflash-cu130"

"$ENVBISECT" diff "$F/good.json" "$F/bad.json" >"$T/table.txt"
expect_contains "$T/table.txt" "7 differences"
for line in packages repos caches env data; do
  grep -qx "$line" "$T/table.txt" || { echo "no '$line' group"; cat "$T/table.txt"; exit 1; }
done
grep -Eq "^  fauxtorch +2\.11\.0\+cu128 +-> +2\.11\.0\+cu130 +changed$" "$T/table.txt"
grep -Eq "^  fauxsglang +- +-> +0\.5\.0 +added$" "$T/table.txt"
grep -Eq "^  inductor +warm +-> +cold +changed$" "$T/table.txt"

"$ENVBISECT" diff --json "$F/good.json" "$F/bad.json" >"$T/diff.json"
"$PY" - "$T/diff.json" <<'PY'
import json, sys
deltas = json.load(open(sys.argv[1]))["deltas"]
assert [(d["dimension"], d["name"]) for d in deltas] == [
    ("packages", "fauxsglang"), ("packages", "fauxtorch"), ("packages", "fauxtransformers"),
    ("repos", "dflash"), ("caches", "inductor"), ("env", "DFLASH_LOG_LEVEL"), ("data", "train_samples")], deltas
assert deltas[0]["good"] is None and deltas[0]["bad"] == "0.5.0"
PY

"$ENVBISECT" diff "$F/good.json" "$F/good.json" >"$T/same.txt"
expect_contains "$T/same.txt" "The states are identical"
rc=0
"$ENVBISECT" diff --exit-code "$F/good.json" "$F/bad.json" >/dev/null || rc=$?
[[ $rc -eq 1 ]]
"$ENVBISECT" diff --exit-code "$F/good.json" "$F/good.json" >/dev/null
