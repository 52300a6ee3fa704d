#!/usr/bin/env bash
# `run --executor ssh --remote-root DIR` on a host that shares no files with this machine: a real sshd on
# 127.0.0.1 whose every remote command runs under `bwrap --dev-bind / / --tmpfs T --tmpfs SRC --`, so
# the run folder, the store, the states, the wheels, the recipe and the bundle are all invisible there.
# The environments are built there by the bundled envbisect (scripts/bundle) from the wheels sent, the
# benchmark runs there, and the run finds the interacting cause {alpha 1.0 -> 2.0, cache warm -> cold}.
source "$(dirname "$0")/common.sh"
need /usr/sbin/sshd openssh-server
need bwrap bubblewrap  # it hides this machine's files from the remote side
bwrap --dev-bind / / --tmpfs "$T" true 2>/dev/null || skip "bwrap cannot mount here"
# A bisection whose metric is set by its inputs, not by CPU time (these cores are shared): the bench
# is slow only with alpha 2.0 and a cold cache. It reads a file of a git checkout, and its warm-up fills
# the cache, so checkouts go out and a warm-up's cache comes back to become the warm snapshot.
W="$T/wheels"
mkdir -p "$W"
for name in alpha beta; do
  for v in 1.0 2.0; do
    mkdir -p "$T/src/$name-$v/$name"
    echo "MAJOR = ${v%%.*}" >"$T/src/$name-$v/$name/__init__.py"
    "$PY" "$SRC/scripts/make_wheel.py" --name "$name" --version "$v" --src "$T/src/$name-$v" --out "$W" >/dev/null
  done
done
git init -q "$T/repo"
echo "model = tiny" >"$T/repo/config.txt"
git -C "$T/repo" add config.txt
git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false commit -qm config
commit=$(git -C "$T/repo" rev-parse HEAD)
mkdir -p "$T/recipe"
cat >"$T/recipe/bench.py" <<'PY'
import json, os, sys, time, alpha, beta
repo, cache = sys.argv[1], sys.argv[2]
assert open(os.path.join(repo, "config.txt")).read().startswith("model = tiny")
if "--warmup" in sys.argv:
    open(os.path.join(cache, "compiled.bin"), "w").write("kernels")
    print(json.dumps({"m": 1.0}))
    sys.exit(0)
time.sleep(0.05)
open("trace.txt", "w").write("ran\n")
slow = alpha.MAJOR == 2 and not os.path.exists(os.path.join(cache, "compiled.bin"))
print(json.dumps({"m": (200.0 if slow else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}", "{cache.inductor}"],
 "warmup": ["{python}", "{recipe_dir}/bench.py", "{repo.app}", "{cache.inductor}", "--warmup"],
 "metric": "m", "repeats": 3}
JSON
state() {  # state VERSION CACHE ENV
  cat <<JSON
{"format": 1, "python": {"version": "3.11"}, "packages": {"alpha": "$1", "beta": "$1"},
 "caches": {"inductor": {"role": "inductor", "state": "$2"}}, "env": {"E": "$3"},
 "repos": {"app": {"path": "$T/repo", "commit": "$commit"}}}
JSON
}
state 1.0 warm a >"$T/good.json"
state 2.0 cold b >"$T/bad.json"
"$SRC/scripts/bundle" --binary "$ENVBISECT" --out "$T/bundle/envbisect" >/dev/null

# The remote root lies outside everything hidden.
R="$(mktemp -d /tmp/envbisect-remote.XXXXXX)"
eval "$("$SRC/scripts/sshd-local" start "$T/sshd")"
trap 'rc=$?; "$SRC/scripts/sshd-local" stop "$T/sshd"; rm -rf "$R"; (exit $rc); _cli_on_exit' EXIT
hide="bwrap --dev-bind / / --tmpfs $T --tmpfs $SRC --"

# The hiding works: the remote side sees neither the states nor the fixture's wheels.
ssh -F "$SSH_CONFIG" -n root@127.0.0.1 "$hide sh -c 'test ! -e $T/good.json && test ! -e $W && test ! -e $SRC/README.md'"

# Run from the bundle itself: without --remote-bundle it sends its own folder.
"$T/bundle/envbisect/envbisect" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe/recipe.json" \
  --wheels "$W" --store "$T/store" --out "$T/run" --no-probe \
  --executor ssh --host root@127.0.0.1 --ssh-config "$SSH_CONFIG" --prefix "$hide" --remote-root "$R" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/alpha 1.0 -> 2.0"
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
# The environments hold what was asked: both alpha builds the states name.
grep -rh '^Version:' "$R$T"/store/envs/*/lib/python3*/site-packages/alpha-*.dist-info/METADATA | sort -u \
  > "$T/versions.txt"
expect_contains "$T/versions.txt" "Version: 1.0"
expect_contains "$T/versions.txt" "Version: 2.0"
# The warm-up ran there and its cache came back as the warm snapshot here.
[[ -s "$(ls "$T"/run/warm/*/inductor/compiled.bin | sed -n 1p)" ]]
# The build logs came back: the remote builder's own log beside its request and answer.
log=$(ls -d "$T"/run/logs/build-* | sed -n 1p)
[[ -s "$log/build-request.json" && -s "$log/build-env.out.log" && -s "$log/materialize.log" ]]
# The attempt folders came back with what the benchmark wrote there, and nothing is left of them remotely.
[[ -s "$(ls "$T"/run/attempts/*/0/stdout.txt | sed -n 1p)" && -s "$(ls "$T"/run/attempts/*/0/trace.txt | sed -n 1p)" ]]
left=$(find "$R$T/run/attempts" -type f 2>/dev/null | wc -l)
echo "files left in remote attempt folders: $left"
(( left == 0 ))
