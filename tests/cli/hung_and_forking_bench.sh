#!/usr/bin/env bash
# A benchmark that hangs after starting a daemon (fork, setsid, fork: it leaves the process group) is
# killed at the recipe's timeout, and afterwards /proc holds no process of the run at all. SIGINT to
# envbisect stops it within seconds with exit 130, leaves nothing running, and `resume` then finishes.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
marker="envbisect-leak-marker-$$-$RANDOM"

cat >"$T/hang.py" <<'PY'
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("FLAG_A") == "new" or os.path.exists(os.path.join(here, "HANG")):
    if os.fork() == 0:
        os.setsid()  # a daemon: its own session and process group
        if os.fork() == 0:
            with open(os.path.join(here, "daemons"), "a") as out:
                out.write(f"{os.getpid()}\n")
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", sys.argv[1]])
        os._exit(0)
    os.wait()
    time.sleep(300)  # hang
print(json.dumps({"items_per_s": 1000.0, "error": None}))
PY
cat >"$T/recipe.json" <<JSON
{"format": 1, "command": ["{python}", "{recipe_dir}/hang.py", "$marker"], "metric": "items_per_s",
 "repeats": 3, "timeout_s": 1, "seed": 1}
JSON

# leftovers: the processes whose command line holds the marker (this shell's own never does).
leftovers() {
  "$PY" - "$marker" <<'PY'
import os, sys
marker = sys.argv[1].encode()
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        continue
    if marker in cmdline and int(pid) != os.getpid():
        print(pid, cmdline.replace(b"\0", b" ").decode(errors="replace"))
PY
}

# 1. Timeouts: FLAG_A=new hangs; every timed-out attempt's group and escaped daemon are gone.
start=$SECONDS
rc=0
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/recipe.json" --out "$T/run" --anchor-runs 3 --no-probe \
  >"$T/run.txt" 2>&1 || rc=$?
echo "run: exit $rc after $((SECONDS - start)) s; $(wc -l <"$T/daemons") daemons were started"
[[ -s $T/daemons ]] || { echo "the benchmark never started its daemon: the test proves nothing"; exit 1; }
grep -q '"status":"timeout"' "$T/run/journal.jsonl" || { echo "no attempt timed out"; cat "$T/run.txt"; exit 1; }
left="$(leftovers)"
[[ -z $left ]] || { echo "processes left after the run:"; echo "$left"; exit 1; }

# 2. SIGINT mid-attempt: exit 130 promptly, nothing left, and the run can be resumed. Here only a HANG
# file makes the benchmark hang; FLAG_A=new makes it 5x slower, so the resumed run has a cause to find.
mkdir "$T/b2"
sed -e 's/os.environ.get("FLAG_A") == "new" or //' \
    -e 's/"items_per_s": 1000.0/"items_per_s": 200.0 if os.environ.get("FLAG_A") == "new" else 1000.0/' \
    "$T/hang.py" >"$T/b2/hang.py"
sed 's/"timeout_s": 1/"timeout_s": 60/' "$T/recipe.json" >"$T/b2/recipe.json"
: >"$T/b2/daemons"
touch "$T/b2/HANG"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/b2/recipe.json" --out "$T/run2" --anchor-runs 3 --no-probe \
  >"$T/run2.txt" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [[ -s $T/b2/daemons ]] && break; sleep 0.05; done
[[ -s $T/b2/daemons ]] || { echo "no attempt started"; cat "$T/run2.txt"; exit 1; }
stopped=$SECONDS
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc -eq 130 ]] || { echo "SIGINT: expected exit 130, got $rc"; cat "$T/run2.txt"; exit 1; }
(( SECONDS - stopped <= 5 )) || { echo "SIGINT took $((SECONDS - stopped)) s"; exit 1; }
echo "SIGINT: exit 130 after $((SECONDS - stopped)) s"
left="$(leftovers)"
[[ -z $left ]] || { echo "processes left after SIGINT:"; echo "$left"; exit 1; }
rm "$T/b2/HANG"
"$ENVBISECT" resume "$T/run2" >"$T/resume.txt" 2>&1 || { cat "$T/resume.txt"; exit 1; }
expect_contains "$T/resume.txt" "FLAG_A"
[[ -z "$(leftovers)" ]]
