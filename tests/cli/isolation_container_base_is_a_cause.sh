#!/usr/bin/env bash
# A state's container base is a dimension that really moves: good runs on rootfs A, bad on rootfs B
# (A plus one file in /etc that makes the benchmark slow, an OS-level change). With --isolation bwrap
# each candidate runs on its own state's base, so `envbisect run` names container/base as the cause,
# next to an innocent env var, and verifies it both ways.
source "$(dirname "$0")/common.sh"
need bwrap bubblewrap
[[ $(id -u) -eq 0 ]] || skip "mounting rootfs B as an overlay needs root"
need /usr/bin/python3 python3
# Rootfs A: the host's /usr as hard links (seconds, no bytes copied) and the usual top-level links.
A="$T/rootfs-a"
mkdir -p "$A/etc" "$A/tmp" "$A/proc" "$A/dev"
cp -al /usr "$A/usr" 2>/dev/null || skip "cannot hard-link /usr into $T (another filesystem)"
for link in bin sbin lib lib64; do [[ -e /$link ]] && ln -s "usr/$link" "$A/$link"; done
# Rootfs B: A plus /etc/envbisect-slow, as an overlay (unmounted on exit).
mkdir -p "$T/upper-b/etc" "$T/work-b" "$T/rootfs-b"
echo slow >"$T/upper-b/etc/envbisect-slow"
mount -t overlay overlay -o "lowerdir=$A,upperdir=$T/upper-b,workdir=$T/work-b" "$T/rootfs-b" ||
  skip "cannot mount an overlay here"
trap 'umount "$T/rootfs-b" 2>/dev/null; _cli_on_exit' EXIT
[[ -e "$T/rootfs-b/etc/envbisect-slow" && ! -e "$A/etc/envbisect-slow" ]]

mkdir -p "$T/recipe"
cat >"$T/recipe/bench.py" <<'PY'
import json, os, time
time.sleep(0.02)
slow = os.path.exists("/etc/envbisect-slow")
print(json.dumps({"m": (200.0 if slow else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"env\": {\"E\": \"$2\"}, \"container\": {\"base\": \"$1\"}}"
}
state "$A" a >"$T/good.json"
state "$T/rootfs-b" b >"$T/bad.json"

"$ENVBISECT" diff "$T/good.json" "$T/bad.json" >"$T/diff.txt" || true
expect_contains "$T/diff.txt" "base  $A  ->  $T/rootfs-b"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe/recipe.json" --isolation bwrap --no-probe \
  --store "$T/store" --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (1 difference):"
expect_contains "$T/out.txt" "container/base"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
