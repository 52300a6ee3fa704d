#!/usr/bin/env bash
# A long run shows life on stderr. Under a real terminal (script(1) gives a pty) one status line is
# redrawn in place (elapsed, ETA, phase, counters, what runs). Piped (tee, nohup, a
# Slurm log) every attempt's end reaches the pipe as its own flushed line within 2 s. -q prints only
# the result. The benchmark's metric is set by its package, not by timing.
source "$(dirname "$0")/common.sh"
need script bsdutils
W="$T/wheels"
mkdir -p "$W"
for v in 1.0 2.0; do
  mkdir -p "$T/src/p-$v/p"
  echo "NEW = '$v' == '2.0'" >"$T/src/p-$v/p/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name p --version "$v" --src "$T/src/p-$v" --out "$W" >/dev/null
done
cat >"$T/bench.py" <<'PY'
import json, os, sys, time, p
time.sleep(0.4)
print(json.dumps({"m": (300.0 if p.NEW else 1000.0) * (1 + os.getpid() % 7 / 100)}), flush=True)
with open(sys.argv[1], "a") as ends:
    ends.write(f"{time.time()}\n")
PY
echo "{\"format\": 1, \"command\": [\"{python}\", \"{recipe_dir}/bench.py\", \"$T/ends.txt\"], \"metric\": \"m\", \"repeats\": 2}" >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "2.0"}}' >"$T/bad.json"
args=("$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" --no-probe --anchor-runs 3)

# 1. A terminal 80 columns wide: the status line is drawn in place (\r, clear to end of line), changes
# during the anchors, and every redraw starts with the elapsed time and the ETA, within the width.
script -qfc "stty cols 80 rows 24; $(printf '%q ' "$ENVBISECT" run "${args[@]}" --out "$T/tty")" "$T/tty.txt" >/dev/null
"$PY" - "$T/tty.txt" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
redraws = [s for s in re.findall(r"\r\x1b\[K([^\r\n\x1b]*)(?=\r(?!\n))", text) if s]  # a redraw ends at the next \r; a line of output at \r\n
states = [s for s in redraws if " | anchors | " in s]
assert states, "no status line during the anchors:\n" + text
assert any("good anchor run 1/3" in s for s in states) and any("bad anchor run 3/3" in s for s in states), states
assert len(set(states)) >= 4, f"the status line did not change: {set(states)}"
for s in redraws:
    assert re.match(r"\d+:\d\d ETA (~\d+:\d\d|--:--) \| ", s), "a redraw without elapsed time and ETA: " + repr(s)
    assert len(s) <= 79, "a redraw wider than the terminal: " + repr(s)
assert "cause (1 difference):" in text, text
PY

# 2. A pipe: a line per attempt, each within 2 s of the benchmark's end (as the benchmark timed it).
rm -f "$T/ends.txt"
"$ENVBISECT" run "${args[@]}" --out "$T/pipe" 2>&1 >/dev/null | "$PY" -c '
import sys, time
for line in iter(sys.stdin.buffer.readline, b""):
    sys.stdout.write(f"{time.time()} {line.decode().rstrip()}\n")
' >"$T/pipe.txt"
"$PY" - "$T/ends.txt" "$T/pipe.txt" <<'PY'
import sys
ends = [float(l) for l in open(sys.argv[1])]
lines = [l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines()]
finished = [(float(t), text) for t, text in lines if " finished in " in text]
assert len(ends) >= 6 and len(finished) == len(ends), (len(ends), len(finished), lines)
for end in ends:
    assert any(0 <= t - end <= 2.0 for t, _ in finished), f"no line within 2 s of the attempt that ended at {end}"
assert any(" environment " in text for _, text in lines), lines
PY

# 3. -q: only the result on stdout, nothing on stderr.
"$ENVBISECT" run "${args[@]}" --out "$T/quiet" -q >"$T/quiet.out" 2>"$T/quiet.err"
[[ ! -s $T/quiet.err ]] || { echo "-q wrote to stderr:"; cat "$T/quiet.err"; exit 1; }
expect_contains "$T/quiet.out" "cause (1 difference):"
if grep -q "differences between\|anchors (" "$T/quiet.out"; then
  echo "-q printed more than the result:"; cat "$T/quiet.out"; exit 1
fi

# 4. The journal's start record holds the host; every attempt its load; the report shows the host.
"$PY" - "$T/quiet/journal.jsonl" <<'PY'
import json, os, sys
records = [json.loads(l) for l in open(sys.argv[1])]
host = records[0]["host"]
assert host["hostname"] == os.uname().nodename and host["cores"] >= 1 and len(host["loadavg"]) == 3, host
assert host["kernel"].startswith("Linux ") and host["mem_available_mib"] > 0, host
attempts = [r for r in records if r["type"] == "attempt"]
assert attempts and all(isinstance(a["load1"], float) for a in attempts), attempts[:1]
PY
expect_contains "$T/quiet/report.md" "- host: $(uname -n); Linux "
