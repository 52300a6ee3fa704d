#!/usr/bin/env bash
# The incident fixture, watched as a user would: under script(1) (a real pty, 80 columns) one status
# line is redrawn, each time led by the elapsed time and an ETA of the whole run from the measured run
# and build times, then the phase with its decisions of the worst case (never past it); piped, every
# attempt's end reaches the pipe as its own flushed line within 2 s of the time the journal gives it.
source "$(dirname "$0")/common.sh"
need script bsdutils
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
args=("$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" --store "$T/store" --no-probe)

# 1. A terminal, 80 columns.
script -qfc "stty cols 80 rows 24; $(printf '%q ' "$ENVBISECT" run "${args[@]}" --out "$T/tty")" "$T/tty.txt" >/dev/null
"$PY" - "$T/tty.txt" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
states = [s for s in re.findall(r"\r\x1b\[K([^\r\n\x1b]*)(?=\r(?!\n))", text) if s]  # a redraw ends at the next \r; a line of output at \r\n
anchors = [s for s in states if " | anchors | " in s]
assert anchors, "no status line during the anchors:\n" + text[:2000]
assert any(re.search(r"good anchor run 1/\d+", s) for s in anchors), anchors
assert any(re.search(r"bad anchor run (\d+)/\1", s) for s in anchors), anchors
assert len(set(anchors)) >= 4, f"the status line did not change during the anchors: {set(anchors)}"
# Cut at the terminal's width, every redraw still starts with the elapsed time and the ETA.
for s in states:
    assert re.match(r"\d+:\d\d ETA (~\d+:\d\d|--:--) \| ", s), "no elapsed time or ETA: " + repr(s)
    assert len(s) <= 79, s
search = [s for s in states if " | isolate " in s]
assert any(re.search(r"\| isolate \d+/<=\d+ \|", s) for s in search), "no decision count: " + repr(search[:5])
# The ETA covers the whole run: the re-checks after the search have one too.
assert any(re.search(r"ETA ~\d+:\d\d \| recheck", s) for s in states), "no ETA in the re-checks"
# A count past its worst case is a wrong status.
for s in states:
    m = re.search(r"\| isolate (\d+)/<=(\d+) ", s)
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
