#!/usr/bin/env bash
# A thread knob from 1 to 10^7, and one to 2^63-1, is a range: `run --dry-run` plans it in a few MiB
# and well under a second, and prints the range's ends and size instead of every number (it once
# listed them all: 825 MiB for 10^7, and 2^63-1 grew until the machine ran out of memory).
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3

"$PY" - "$ENVBISECT" "$F" "$T" <<'PY'
import json, resource, subprocess, sys, time
envbisect, flags, t = sys.argv[1:4]
for top in (10**7, 2**63 - 1):
    for side, workers, flag in (("good", 1, "old"), ("bad", top, "new")):
        doc = json.load(open(f"{flags}/{side}.json"))
        doc["threads"] = {"workers": workers}
        doc["env"]["FLAG_A"] = flag
        json.dump(doc, open(f"{t}/{side}-{top}.json", "w"))
    start = time.monotonic()
    done = subprocess.run([envbisect, "run", f"{t}/good-{top}.json", f"{t}/bad-{top}.json", "--recipe",
                           f"{flags}/recipe.json", "--dry-run", "--out", f"{t}/run-{top}", "--store", f"{t}/store"],
                          capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - start
    rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far
    print(f"top {top}: exit {done.returncode}, {seconds:.2f} s, max RSS {rss_mib:.1f} MiB, {len(done.stdout)} bytes of plan")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"1 < 2 < ... < {top - 1} < {top} ({top} points)" in done.stdout, done.stdout
    assert len(done.stdout) < 20000, "the plan lists the range"
    assert rss_mib < 64, f"max RSS {rss_mib:.1f} MiB: the range was materialised"
    assert seconds < 10, f"{seconds:.2f} s"
PY
