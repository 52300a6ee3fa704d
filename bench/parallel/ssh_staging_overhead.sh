#!/usr/bin/env bash
# ssh overhead per benchmark run, with and without a shared filesystem: the incident fixture (reduced
# to the cause plus one harmless difference, no probes) run side by side with the local executor,
# with --executor ssh (same paths on both sides) and with --executor ssh --remote-root (inputs sent by
# tar over ssh, environments built there by the bundled envbisect, attempt folders fetched back),
# against a real sshd on 127.0.0.1 started by scripts/sshd-local. Prints wall time, attempts and
# seconds per attempt for each, the ratios to local; last line:
#   staging_overhead_per_attempt_s: X   (staged ssh minus plain ssh, seconds per attempt)
# Usage: bench/parallel/ssh_staging_overhead.sh   (ENVBISECT=binary, default build/envbisect; root, sshd)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
envbisect="${ENVBISECT:-$root/build/envbisect}"
# The build folder the binary comes from says which build is measured (an installed binary has none:
# BENCH_ALLOW_DEBUG=1 lets it run, labelled `none`).
source "$root/bench/lib.sh"
bench_build_type "$(dirname "$envbisect")"
work="$(mktemp -d)"
remote="$(mktemp -d /tmp/envbisect-remote.XXXXXX)"
trap '"$root/scripts/sshd-local" stop "$work/sshd"; rm -rf "$work" "$remote"' EXIT
unset PIP_FIND_LINKS
F="$root/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
"$root/scripts/bundle" --binary "$envbisect" --out "$work/bundle/envbisect" >/dev/null
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
eval "$("$root/scripts/sshd-local" start "$work/sshd")"

measure() {  # measure NAME ARGS...: prints "seconds attempts"
  local name="$1"
  shift
  local start end
  start=$(date +%s.%N)
  "$envbisect" run "$work/good.json" "$work/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" \
    --store "$work/store-$name" --out "$work/run-$name" --no-probe "$@" >"$work/$name.out" 2>"$work/$name.err"
  end=$(date +%s.%N)
  grep -q "cause (2 differences, together)" "$work/$name.out" || { cat "$work/$name.out" "$work/$name.err" >&2; exit 1; }
  python3 - "$work/run-$name/journal.jsonl" "$start" "$end" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
attempts = sum(1 for r in records if r.get("type") == "attempt")
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.1f} {attempts}")
PY
}
ssh_args=(--executor ssh --host root@127.0.0.1 --ssh-config "$SSH_CONFIG")
read -r local_s local_n <<<"$(measure local)"
read -r ssh_s ssh_n <<<"$(measure ssh "${ssh_args[@]}")"
read -r staged_s staged_n <<<"$(measure staged "${ssh_args[@]}" --remote-root "$remote" \
  --remote-bundle "$work/bundle/envbisect")"
python3 - "$local_s" "$local_n" "$ssh_s" "$ssh_n" "$staged_s" "$staged_n" <<'PY'
import sys
ls, ln, ss, sn, ts, tn = (float(x) for x in sys.argv[1:])
print(f"{'executor':<22} {'wall_s':>7} {'attempts':>8} {'s/attempt':>9} {'ratio':>6}")
for name, s, n in (("local", ls, ln), ("ssh (shared paths)", ss, sn), ("ssh --remote-root", ts, tn)):
    print(f"{name:<22} {s:>7.1f} {n:>8.0f} {s / n:>9.2f} {(s / n) / (ls / ln):>6.2f}")
print(f"ssh_overhead_per_attempt_s: {ss / sn - ls / ln:.2f}")
print(f"staging_overhead_per_attempt_s: {ts / tn - ss / sn:.2f}")
PY
