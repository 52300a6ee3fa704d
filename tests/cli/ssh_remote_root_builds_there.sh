#!/usr/bin/env bash
# `run --executor ssh --remote-root DIR` on a host that shares no files with this machine: a real sshd on
# 127.0.0.1 whose every remote command runs under `bwrap --dev-bind / / --tmpfs T --tmpfs SRC --`, so
# the run folder, the store, the states, the wheels, the recipe and the bundle are all invisible there.
# The environments are built there by the bundled envbisect (scripts/bundle) from the wheels sent, the
# benchmark runs there, and the run finds the incident's cause exactly as the local executor does.
source "$(dirname "$0")/common.sh"
if [[ ! -x /usr/sbin/sshd ]]; then
  [[ $(id -u) -eq 0 ]] || skip "openssh-server missing and not root"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server >/dev/null 2>&1 ||
    skip "cannot install openssh-server"
fi
command -v bwrap >/dev/null || skip "bubblewrap missing (it hides this machine's files from the remote side)"
bwrap --dev-bind / / --tmpfs "$T" true 2>/dev/null || skip "bwrap cannot mount here"
F="$SRC/fixtures/incidents/dflash-cu130"
"$F/make-fixture" >/dev/null
"$SRC/scripts/bundle" --binary "$ENVBISECT" --out "$T/bundle/envbisect" >/dev/null

# The remote root lies outside everything hidden.
R="$(mktemp -d /tmp/envbisect-remote.XXXXXX)"
eval "$("$SRC/scripts/sshd-local" start "$T/sshd")"
trap 'rc=$?; "$SRC/scripts/sshd-local" stop "$T/sshd"; rm -rf "$R"; (exit $rc); _cli_on_exit' EXIT
reduced_incident_states "$F" "$T"
hide="bwrap --dev-bind / / --tmpfs $T --tmpfs $SRC --"

# The hiding works: the remote side sees neither the states nor the fixture's wheels.
ssh -F "$SSH_CONFIG" -n root@127.0.0.1 "$hide sh -c 'test ! -e $T/good.json && test ! -e $F/.build/wheels'"

# Run from the bundle itself: without --remote-bundle it sends its own folder.
"$T/bundle/envbisect/envbisect" run "$T/good.json" "$T/bad.json" --recipe "$F/recipe.json" \
  --wheels "$F/.build/wheels" --store "$T/store" --out "$T/run" --no-probe \
  --executor ssh --host root@127.0.0.1 --ssh-config "$SSH_CONFIG" --prefix "$hide" --remote-root "$R" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
expect_contains "$T/out.txt" "caches/inductor warm -> cold"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"

# Built there, not here: every build record says remote, the environments exist only under the root.
builds=$(grep -c '"type":"build"' "$T/run/journal.jsonl")
remote_builds=$(grep '"type":"build"' "$T/run/journal.jsonl" | grep -c '"remote":true')
echo "builds $builds, remote $remote_builds"
(( builds > 0 && builds == remote_builds ))
[[ ! -d "$T/store/envs" ]] || [[ -z "$(ls -A "$T/store/envs")" ]]
envs=$(find "$R$T/store/envs" -mindepth 2 -maxdepth 2 -name pyvenv.cfg | wc -l)
echo "environments under the remote root: $envs"
(( envs >= 2 ))
# The environments hold what was asked: the remote fauxtorch builds are the two the states name.
grep -rh '^Version:' "$R$T"/store/envs/*/lib/python3*/site-packages/fauxtorch-*.dist-info/METADATA | sort -u \
  > "$T/versions.txt"
expect_contains "$T/versions.txt" "2.11.0+cu128"
expect_contains "$T/versions.txt" "2.11.0+cu130"
# The build logs came back: the remote builder's own log beside its request and answer.
log=$(ls -d "$T"/run/logs/build-* | head -1)
[[ -s "$log/build-request.json" && -s "$log/build-env.out.log" && -s "$log/materialize.log" ]]
# The attempt folders came back, and nothing is left of them on the remote side.
[[ -s "$(ls "$T"/run/attempts/*/0/stdout.txt | head -1)" ]]
left=$(find "$R$T/run/attempts" -type f 2>/dev/null | wc -l)
echo "files left in remote attempt folders: $left"
(( left == 0 ))
