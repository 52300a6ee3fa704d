#!/usr/bin/env bash
# Slurm overhead per benchmark run: the incident fixture (reduced to the cause plus one harmless
# difference, no probes) run once with the local executor and once with --executor slurm on a real
# single-node Slurm started by scripts/slurm-local. Prints both wall times, attempts, seconds per
# attempt, the overhead per attempt and per candidate, and the ratio slurm/local; last line:
#   slurm_overhead_per_attempt_s: X
# Usage: bench/parallel/slurm_overhead.sh   (ENVBISECT=binary, default build/envbisect; root, slurm-wlm)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
envbisect="${ENVBISECT:-$root/build/envbisect}"
# The build folder the binary comes from says which build is measured (an installed binary has none:
# BENCH_ALLOW_DEBUG=1 lets it run, labelled `none`).
source "$root/bench/lib.sh"
bench_build_type "$(dirname "$envbisect")"
work="$(mktemp -d)"
trap '"$root/scripts/slurm-local" stop "$work/slurm"; rm -rf "$work"' EXIT
unset PIP_FIND_LINKS
F="$root/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
python3 - "$F" "$work" <<'PY'
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
eval "$("$root/scripts/slurm-local" start "$work/slurm")"

measure() {  # measure NAME ARGS...: prints "seconds attempts candidates"
  local name="$1"
  shift
  local start end
  start=$(date +%s.%N)
  "$envbisect" run "$work/good.json" "$work/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" \
    --store "$work/store-$name" --out "$work/run-$name" --no-probe "$@" >"$work/$name.out" 2>"$work/$name.err"
  end=$(date +%s.%N)
  grep -q "cause (2 differences, together)" "$work/$name.out" || { cat "$work/$name.out" >&2; exit 1; }
  python3 - "$work/run-$name/journal.jsonl" "$start" "$end" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
attempts = sum(1 for r in records if r.get("type") == "attempt")
candidates = sum(1 for r in records if r.get("type") == "decision") + 2
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.1f} {attempts} {candidates}")
PY
}
read -r local_s local_n local_c <<<"$(measure local)"
read -r slurm_s slurm_n slurm_c <<<"$(measure slurm --executor slurm)"
python3 - "$local_s" "$local_n" "$local_c" "$slurm_s" "$slurm_n" "$slurm_c" <<'PY'
import sys
ls, ln, lc, ss, sn, sc = (float(x) for x in sys.argv[1:])
print(f"{'executor':<9} {'wall_s':>7} {'attempts':>8} {'candidates':>10} {'s/attempt':>9}")
print(f"{'local':<9} {ls:>7.1f} {ln:>8.0f} {lc:>10.0f} {ls / ln:>9.2f}")
print(f"{'slurm':<9} {ss:>7.1f} {sn:>8.0f} {sc:>10.0f} {ss / sn:>9.2f}")
per_attempt = ss / sn - ls / ln
print(f"ratio slurm/local (s per attempt): {(ss / sn) / (ls / ln):.2f}")
print(f"overhead per candidate (s): {per_attempt * sn / sc:.2f}")
print(f"slurm_overhead_per_attempt_s: {per_attempt:.2f}")
PY
