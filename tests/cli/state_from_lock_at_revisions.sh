#!/usr/bin/env bash
# "good = uv.lock at the last green tag, bad = uv.lock at HEAD" is two commands: `envbisect state
# uv.lock --at v1.4` and `--at HEAD` read the lock from the repository's history (the working tree
# holds a third, uncommitted version that must not leak in), keep local labels, wheels and hashes, and
# `diff` names the one package that changed build. Bad inputs: exit 2, one message, nothing written.
source "$(dirname "$0")/common.sh"
R="$T/trainer"
git init -q -b main "$R"
git -C "$R" config user.name t && git -C "$R" config user.email t@example.org
lock() {  # lock LABEL HASH-LETTER: a uv.lock whose torch is 2.11.0+LABEL
  cat <<TOML
version = 1
revision = 3
requires-python = ">=3.11"

[[package]]
name = "trainer"
version = "0.1.0"
source = { editable = "." }
dependencies = [{ name = "torch" }, { name = "pywin32", marker = "sys_platform == 'win32'" }]

[[package]]
name = "torch"
version = "2.11.0+$1"
source = { registry = "https://download.pytorch.org/whl/$1" }
wheels = [
  { url = "https://download.pytorch.org/whl/$1/torch-2.11.0%2B$1-cp311-cp311-manylinux_2_28_x86_64.whl", hash = "sha256:$(printf "$2%.0s" {1..64})" },
  { url = "https://download.pytorch.org/whl/$1/torch-2.11.0%2B$1-cp312-cp312-manylinux_2_28_x86_64.whl", hash = "sha256:$(printf "f%.0s" {1..64})" },
]

[[package]]
name = "pywin32"
version = "308"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/pywin32-308-cp311-cp311-win_amd64.whl", hash = "sha256:$(printf "e%.0s" {1..64})" }]
TOML
}
lock cu128 a >"$R/uv.lock" && git -C "$R" add uv.lock && git -C "$R" commit -qm green && git -C "$R" tag v1.4
lock cu130 b >"$R/uv.lock" && git -C "$R" commit -qam "sglang pulled torch cu130"
lock cu126 c >"$R/uv.lock"  # uncommitted: --at must read history, not this file

"$ENVBISECT" state "$R/uv.lock" --at v1.4 -o "$T/good.json" 2>"$T/good.err"
"$ENVBISECT" state "$R/uv.lock" --at HEAD --python 3.11 -o "$T/bad.json" 2>"$T/bad.err"
expect_contains "$T/good.err" "1 package and 0 repos from $R/uv.lock at v1.4 (commit $(git -C "$R" rev-parse v1.4))"
expect_contains "$T/good.err" "chose torch-2.11.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl of 2 wheels"
expect_contains "$T/good.json" "\"sha256\": \"$(printf "a%.0s" {1..64})\""
expect_contains "$T/bad.json" "torch-2.11.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl"
not grep -q pywin32 "$T/good.json"
not grep -q cu126 "$T/good.json" "$T/bad.json"

"$ENVBISECT" diff "$T/good.json" "$T/bad.json" >"$T/diff.txt"
grep -Eq "^  torch +2\.11\.0\+cu128 +-> +2\.11\.0\+cu130 +changed$" "$T/diff.txt" || { cat "$T/diff.txt"; exit 1; }
expect_contains "$T/diff.txt" "1 difference"

# --python chooses the wheel: for 3.12 the cp312 build, with its own hash.
"$ENVBISECT" state "$R/uv.lock" --at v1.4 --python 3.12 >"$T/py312.json" 2>/dev/null
expect_contains "$T/py312.json" "cp312-cp312"

# -q: the same state, nothing on stderr.
"$ENVBISECT" -q state "$R/uv.lock" --at v1.4 -o "$T/quiet.json" 2>"$T/quiet.err"
cmp "$T/good.json" "$T/quiet.json"
[[ ! -s "$T/quiet.err" ]] || { echo "-q printed:"; cat "$T/quiet.err"; exit 1; }

# Bad inputs: exit 2, one line naming file and place, no output file.
bad() {  # bad EXPECTED-TEXT ARGS...
  local text="$1" rc=0; shift
  "$ENVBISECT" state "$@" -o "$T/out.json" >"$T/bad.out" 2>"$T/bad.txt" || rc=$?
  [[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc for $*"; cat "$T/bad.txt"; exit 1; }
  expect_contains "$T/bad.txt" "$text"
  [[ ! -e "$T/out.json" ]] || { echo "wrote $T/out.json for $*"; exit 1; }
}
bad "'v9.9' is not a commit" "$R/uv.lock" --at v9.9
printf 'version = 1\n[[package]\n' >"$T/uv.lock"
bad "$T/uv.lock: line 2" "$T/uv.lock"
printf 'version = 1\n' >"$T/uv.lock"
bad "$T/uv.lock: /package: no [[package]]" "$T/uv.lock"
printf 'version = 1\n[[package]]\nname = "app"\nsource = { editable = "." }\ndependencies = [{ name = "torch" }]\n' >"$T/uv.lock"
bad "depends on torch, which the lock does not hold" "$T/uv.lock"
mkdir "$T/plain" && cp "$R/uv.lock" "$T/plain/uv.lock"
bad "no git repository holds" "$T/plain/uv.lock" --at HEAD
bad "pylock.toml is not in commit" "$R/pylock.toml" --at HEAD
bad "no wheel of torch 2.11.0+cu128 fits CPython 3.11 on Linux aarch64" "$R/uv.lock" --at v1.4 --machine aarch64
printf 'torch>=2\n' >"$T/requirements.txt"
bad "requirements.txt: line 1: 'torch>=2' is not pinned with ==" "$T/requirements.txt"
bad "--python: expected a Python version" "$R/uv.lock" --python three

# -o naming the lock itself, or a link to it, is refused before anything is written: the lock stays.
cp "$R/uv.lock" "$T/keep.lock" && ln -s "$T/keep.lock" "$T/link.lock"
for out in "$T/keep.lock" "$T/link.lock"; do
  rc=0
  "$ENVBISECT" state "$T/keep.lock" -o "$out" >/dev/null 2>"$T/self.txt" || rc=$?
  [[ $rc -eq 2 ]] || { echo "state -o $out: expected exit 2, got $rc"; cat "$T/self.txt"; exit 1; }
  expect_contains "$T/self.txt" "--out: $out is the lock file $T/keep.lock itself"
  cmp "$R/uv.lock" "$T/keep.lock"
done
