#!/usr/bin/env bash
# A state's sha256 pin chooses the wheel file: two builds of alpha 1.0 (one file name, two folders,
# one fast and one slow) pinned by good and bad are told apart, and the pin is the cause; so does a
# pin of the file's name alone (two build tags in one folder). A pin no
# file matches is exit 2 before anything runs, naming the package, the hash and the folders looked in.
source "$(dirname "$0")/common.sh"
for build in fast slow; do
  mkdir -p "$T/src-$build/alpha" "$T/$build"
  echo "M = $([[ $build == fast ]] && echo 1000.0 || echo 200.0)" >"$T/src-$build/alpha/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name alpha --version 1.0 --src "$T/src-$build" --out "$T/$build" >/dev/null
done
hash() { sha256sum "$T/$1/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1; }
cat >"$T/bench.py" <<'PY'
import json, os, alpha
print(json.dumps({"m": alpha.M * (1 + os.getpid() % 7 / 100)}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
state() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"alpha\": {\"version\": \"1.0\", \"sha256\": \"$1\"}}}"; }
state "$(hash fast)" >"$T/good.json"
state "$(hash slow)" >"$T/bad.json"
# Both folders hold alpha-1.0-py3-none-any.whl; without the pin the first folder's would be built twice.
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$T/fast" --wheels "$T/slow" \
  --store "$T/store" --no-probe --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "alpha"
expect_contains "$T/out.txt" "cause"

# A wheel-name pin alone chooses the file too: the two builds as build tags 1 (fast) and 2 (slow) of one
# folder, where an unpinned choice takes the higher tag for both anchors.
mkdir -p "$T/tagged"
cp "$T/fast/alpha-1.0-py3-none-any.whl" "$T/tagged/alpha-1.0-1-py3-none-any.whl"
cp "$T/slow/alpha-1.0-py3-none-any.whl" "$T/tagged/alpha-1.0-2-py3-none-any.whl"
named() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"alpha\": {\"version\": \"1.0\", \"wheel\": \"$1\"}}}"; }
named alpha-1.0-1-py3-none-any.whl >"$T/good-named.json"
named alpha-1.0-2-py3-none-any.whl >"$T/bad-named.json"
"$ENVBISECT" run "$T/good-named.json" "$T/bad-named.json" --recipe "$T/recipe.json" --wheels "$T/tagged" \
  --store "$T/store" --no-probe --out "$T/run-named" >"$T/out-named.txt"
expect_contains "$T/out-named.txt" "cause"
"$PY" -c "import json, sys; assert [c['name'] for c in json.load(open(sys.argv[1]))['cause']] == ['alpha']" "$T/run-named/result.json"

missing=$(printf 'ab%.0s' {1..32})
state "$missing" >"$T/bad2.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad2.json" --recipe "$T/recipe.json" --wheels "$T/fast" --wheels "$T/slow" \
  --store "$T/store" --no-probe --out "$T/run2" >"$T/out2.txt" 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; cat "$T/err2.txt"; exit 1; }
expect_contains "$T/err2.txt" "$T/bad2.json: /packages/alpha: alpha==1.0 with sha256 $missing"
expect_contains "$T/err2.txt" "$T/fast, $T/slow"
[[ ! -e "$T/run2" ]] || { echo "run directory was written despite a pin no file matches"; exit 1; }
