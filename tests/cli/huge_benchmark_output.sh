#!/usr/bin/env bash
# A benchmark that prints 300 MB does not make envbisect hold it: log tails are read from the end of
# the file and each log is capped (--max-log-mb 4 here), keeping its beginning and its end with a
# marker between; the attempt still counts (its metric, printed last, is read). envbisect's peak RSS
# stays far below the output's size.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
need /usr/bin/time time
cat >"$T/bench.py" <<PY
import os, sys
# The good anchor's first attempt floods stdout before its result line.
if sys.argv[1] == "1" and all(os.environ.get(f"FLAG_{f}") == "old" for f in "ABCDE"):
    chunk = "x" * 1023 + "\n"
    for _ in range(300 * 1024):
        sys.stdout.write(chunk)
exec(open("$F/bench.py").read())
PY
cp "$F/recipe.json" "$T/"
/usr/bin/time -v -o "$T/time.txt" "$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/recipe.json" \
  --out "$T/run" --no-probe --max-log-mb 4 >"$T/run.txt" 2>&1
expect_contains "$T/run.txt" "cause"
rss_kb=$(awk -F: '/Maximum resident set size/ {print $2 + 0}' "$T/time.txt")
echo "envbisect peak RSS: $rss_kb KiB for a 300 MiB benchmark output"
[[ $rss_kb -lt 100000 ]] || { echo "peak RSS $rss_kb KiB" >&2; exit 1; }
"$PY" - "$T/run" <<'PY'
import json, os, sys
run = sys.argv[1]
records = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
flooded = [r for r in records if r.get("type") == "attempt" and os.path.getsize(r["stdout"]) > 1 << 20]
assert len(flooded) == 1, [r["stdout"] for r in flooded]
attempt = flooded[0]
assert attempt["status"] == "ok" and attempt["metric"] is not None, attempt
size = os.path.getsize(attempt["stdout"])
assert size < (4 << 20) + 4096, size
text = open(attempt["stdout"], "rb").read()
assert b"bytes of output cut here" in text and text.rstrip().endswith(b"}"), text[-300:]
PY
