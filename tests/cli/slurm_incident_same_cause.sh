#!/usr/bin/env bash
# `run --executor slurm` on a real single-node Slurm (munged + slurmctld + slurmd on loopback,
# started and stopped by PID) finds the incident's cause, {fauxtorch +cu128 -> +cu130, inductor cache
# warm -> cold}, the same as the local executor; every benchmark run is a Slurm job. Reduced run
# count: the fixture's states with three of their differences (the cause and the fauxtransformers red
# herring), no thread probes.
source "$(dirname "$0")/common.sh"
need /usr/sbin/slurmctld slurm-wlm
need /usr/sbin/munged munge
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null

eval "$("$SRC/scripts/slurm-local" start "$T/slurm")"
trap 'rc=$?; "$SRC/scripts/slurm-local" stop "$T/slurm"; (exit $rc); _cli_on_exit' EXIT

# The fixture's states, bad reduced to the cause plus one harmless difference.
reduced_incident_states "$F" "$T"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" \
  --store "$T/store" --out "$T/run" --no-probe --executor slurm >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
expect_contains "$T/out.txt" "caches/inductor warm -> cold"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
# Every benchmark attempt was a Slurm job: its folder holds the generated script and sbatch's answer.
attempts=$(grep -c '"type":"attempt"' "$T/run/journal.jsonl")
jobs=$(find "$T/run/attempts" -name envbisect-slurm-submit.txt | wc -l)
echo "attempts $attempts, slurm jobs in attempt folders $jobs"
(( attempts > 0 && jobs == attempts ))
