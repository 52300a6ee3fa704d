#!/usr/bin/env bash
# A tampered journal names /etc/passwd, /dev/zero, a symlink out of the run folder and a symlink to
# another file inside it as attempt logs, and carries HTML and terminal escapes in an error class and a
# label: `report` finishes promptly, embeds none of those files (each gets a loader note instead),
# still shows a real log inside the run folder, and report.md holds no raw HTML from the journal.
source "$(dirname "$0")/common.sh"
R="$T/run"
good=aaaaaaaaaaaaaaaa0000
bad=bbbbbbbbbbbbbbbb0000
mkdir -p "$R/attempts/${good:0:16}/0" "$R/attempts/${bad:0:16}/1"
echo "real log line inside the run folder" >"$R/attempts/${good:0:16}/0/stdout.txt"
ln -s /etc/passwd "$R/attempts/${bad:0:16}/1/stdout.txt"
mkdir -p "$R/attempts/${good:0:16}/1"
echo "INSIDE-BUT-LINKED marker" >"$R/elsewhere-in-run.txt"
ln -s "$R/elsewhere-in-run.txt" "$R/attempts/${good:0:16}/1/stdout.txt"
"$PY" - "$R" "$good" "$bad" <<'PY'
import json, sys
run, good, bad = sys.argv[1:4]
def attempt(candidate, n, stdout, stderr, error_class=""):
    return {"type": "attempt", "candidate": candidate, "applied": [], "env_hash": "e" * 20, "recipe_hash": "r",
            "attempt": n, "status": "failed" if error_class else "ok", "exit_code": 1 if error_class else 0,
            "signal": 0, "metric": 1.0, "checksum": None, "error_class": error_class, "wall_s": 0.1,
            "stdout": stdout, "stderr": stderr, "t": 1000.0 + n}
records = [
    {"type": "start", "version": "0.1.0", "resumed": False, "run": {},
     "deltas": [{"dimension": "env", "name": "FLAG_A", "good": "old", "bad": "<script>alert(1)</script>"}]},
    attempt(good, 0, "/etc/passwd", "/dev/zero"),
    attempt(bad, 0, "/dev/zero", "/etc/passwd", "<img src=x onerror=alert(2)>"),
    attempt(bad, 1, f"{run}/attempts/{bad[:16]}/1/stdout.txt", "/proc/self/environ", "Boom\u001b]0;owned\u0007"),
    attempt(good, 1, f"{run}/attempts/{good[:16]}/1/stdout.txt", "/dev/null", "Crash"),
    {"type": "decision", "n": 1, "stage": "isolate", "label": "<b>bold</b>", "applied": [0], "candidate": bad,
     "verdict": "bad", "runs": 2, "reason": "<iframe src=//evil>"},
]
with open(f"{run}/journal.jsonl", "w") as out:
    for record in records:
        out.write(json.dumps(record) + "\n")
PY
timeout -s KILL 60 "$ENVBISECT" report "$R" >"$T/out.txt" 2>&1 || { cat "$T/out.txt"; exit 1; }

for file in "$R/report.md" "$R/report.html" "$R/report.json"; do
  [[ -s $file ]] || { echo "missing $file"; exit 1; }
  if grep -q "root:x:0:0" "$file"; then echo "/etc/passwd embedded in $file"; exit 1; fi
  [[ $(stat -c %s "$file") -lt 200000 ]] || { echo "$file is huge: /dev/zero embedded?"; exit 1; }
done
expect_contains "$R/report.md" "real log line inside the run folder"
expect_contains "$R/report.md" "the journal names the log /etc/passwd, which lies outside the run directory: not shown"
expect_contains "$R/report.md" "the journal names the log /dev/zero, which lies outside the run directory: not shown"
# A symlink inside the run folder is never followed, whether it leads out of the folder or not.
grep -q "/attempts/${bad:0:16}/1/stdout.txt, which is or passes through a symbolic link" "$R/report.md" ||
  { echo "the symlink out of the run folder was not refused"; exit 1; }
grep -q "/attempts/${good:0:16}/1/stdout.txt, which is or passes through a symbolic link" "$R/report.md" ||
  { echo "the symlink to another file of the run folder was not refused"; exit 1; }
for file in "$R/report.md" "$R/report.html" "$R/report.json"; do
  not grep -q "INSIDE-BUT-LINKED" "$file"
done
# report.md: journal HTML shows as text (entities) outside code spans; no raw tag, no escape byte.
"$PY" - "$R/report.md" <<'PY'
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
body = md.split("## Reproduce")[0]
outside = re.sub(r"`+[^`]*`+", "", body)
for raw in ("<script", "<img", "<b>", "<iframe", "\x1b", "\x07"):
    assert raw not in outside, f"raw {raw!r} in report.md outside code: " + outside[outside.find(raw) - 80:][:200]
assert "&lt;img src=x onerror=alert(2)&gt;" in md and "&lt;iframe src=//evil&gt;" in md, "escaped forms missing"
PY
