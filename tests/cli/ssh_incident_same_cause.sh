#!/usr/bin/env bash
# `run --executor ssh` against a real sshd on 127.0.0.1 (generated keys, started and stopped by PID)
# finds the incident's cause, {fauxtorch +cu128 -> +cu130, inductor cache warm -> cold}, the same as
# the local executor. Reduced run count: the fixture's states with three of their differences (the
# cause and the fauxtransformers red herring), no thread probes. The remote prefix is `env`: harmless,
# but it is put in front of every remote command the way `pct exec 200 --` would be.
source "$(dirname "$0")/common.sh"
need /usr/sbin/sshd openssh-server
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null

eval "$("$SRC/scripts/sshd-local" start "$T/sshd")"
trap 'rc=$?; "$SRC/scripts/sshd-local" stop "$T/sshd"; (exit $rc); _cli_on_exit' EXIT

# The fixture's states, bad reduced to the cause plus one harmless difference.
reduced_incident_states "$F" "$T"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" \
  --store "$T/store" --out "$T/run" --no-probe \
  --executor ssh --host root@127.0.0.1 --ssh-config "$SSH_CONFIG" --prefix env >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
expect_contains "$T/out.txt" "caches/inductor warm -> cold"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
# Every benchmark run went through sshd: at least one accepted login per attempt.
attempts=$(grep -c '"type":"attempt"' "$T/run/journal.jsonl")
logins=$(grep -c 'Accepted publickey for root' "$T/sshd/sshd.log")
echo "attempts $attempts, ssh logins $logins"
(( attempts > 0 && logins >= attempts ))
