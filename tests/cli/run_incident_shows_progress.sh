#!/usr/bin/env bash
# The incident fixture, watched as a user would: under script(1) (a real pty) one status line is
# redrawn while the anchors run (run i of n, elapsed) and, once the search starts, carries its
# decisions of the worst case (never past it) and an ETA from the measured run times; piped, every
# attempt's end reaches the pipe as its own flushed line within 2 s of the time the journal gives it.
source "$(dirname "$0")/common.sh"
need script bsdutils
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
args=("$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" --store "$T/store" --no-probe)

# 1. A terminal.
script -qfc "$(printf '%q ' "$ENVBISECT" run "${args[@]}" --out "$T/tty")" "$T/tty.txt" >/dev/null
"$PY" - "$T/tty.txt" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
states = re.findall(r"\r\x1b\[K(\[[a-z]+\][^\r\n]*)", text)
anchors = [s for s in states if s.startswith("[anchors]")]
assert anchors, "no status line during the anchors:\n" + text[:2000]
assert any(re.search(r"good anchor run 1/\d+", s) for s in anchors), anchors
assert any(re.search(r"bad anchor run (\d+)/\1", s) for s in anchors), anchors
assert len(set(anchors)) >= 4, f"the status line did not change during the anchors: {set(anchors)}"
# The line is cut at the terminal's width (80 columns under script), so not every one shows the clock.
assert any(re.search(r"\| \d+:\d\d", s) for s in anchors), "no elapsed time: " + repr(anchors[:3])
search = [s for s in states if s.startswith("[isolate]")]
assert any(re.search(r"\| \d+ of <=\d+ search decisions \|", s) for s in search), "no decision count: " + repr(search[:5])
assert any(re.search(r"\| search ETA ~\d+:\d\d", s) for s in states), "no ETA: " + repr(search[:5])
# A count past its worst case, or an ETA of nothing while work remains, is a wrong status.
for s in states:
    m = re.search(r"\| (\d+) of <=(\d+) ", s)
    assert not m or int(m[1]) <= int(m[2]), s
assert "cause (" in text, text[-3000:]
PY

# 2. A pipe: each attempt's "finished" line within 2 s of that attempt's journal time.
"$ENVBISECT" run "${args[@]}" --out "$T/pipe" 2>&1 >/dev/null | "$PY" -c '
import sys, time
for line in iter(sys.stdin.buffer.readline, b""):
    sys.stdout.write(f"{time.time()} {line.decode().rstrip()}\n")
' >"$T/pipe.txt"
"$PY" - "$T/pipe/journal.jsonl" "$T/pipe.txt" <<'PY'
import json, sys
ends = [r["t"] for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "attempt"]
lines = [l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines()]
finished = [float(t) for t, text in lines if " finished in " in text]
assert len(ends) >= 10 and len(finished) == len(ends), (len(ends), len(finished))
late = [end for end in ends if not any(abs(t - end) <= 2.0 for t in finished)]
assert not late, f"{len(late)} of {len(ends)} attempts had no line within 2 s: {late[:5]}"
PY
