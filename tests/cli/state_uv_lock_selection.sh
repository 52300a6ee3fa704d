#!/usr/bin/env bash
# `envbisect state uv.lock` takes what `uv sync` would install with the same flags: the project's
# default-groups from pyproject.toml at the same revision, --extra picking torch's CUDA build through
# uv's conflict markers, a git source as a repo (URL + commit); conflicting extras are exit 2.
source "$(dirname "$0")/common.sh"
R="$T/trainer"
git init -q -b main "$R"
git -C "$R" config user.name t && git -C "$R" config user.email t@example.org
h() { printf "sha256:%s" "$(printf "$1%.0s" {1..64})"; }
cat >"$R/uv.lock" <<TOML
version = 1
revision = 3
requires-python = ">=3.12"
conflicts = [[{ package = "trainer", extra = "cu128" }, { package = "trainer", extra = "cu130" }]]

[[package]]
name = "trainer"
version = "0.1.0"
source = { editable = "." }
dependencies = [{ name = "titan" }]

[package.optional-dependencies]
cu128 = [{ name = "torch", version = "2.11.0+cu128", source = { registry = "https://download.pytorch.org/whl/cu128" } }]
cu130 = [{ name = "torch", version = "2.11.0+cu130", source = { registry = "https://download.pytorch.org/whl/cu130" } }]

[package.dev-dependencies]
dev = [{ name = "pytest" }]
docs = [{ name = "sphinx" }]

[[package]]
name = "torch"
version = "2.11.0+cu128"
source = { registry = "https://download.pytorch.org/whl/cu128" }
wheels = [{ url = "https://download.pytorch.org/whl/cu128/torch-2.11.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl", hash = "$(h a)" }]

[[package]]
name = "torch"
version = "2.11.0+cu130"
source = { registry = "https://download.pytorch.org/whl/cu130" }
wheels = [{ url = "https://download.pytorch.org/whl/cu130/torch-2.11.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl", hash = "$(h b)" }]

[[package]]
name = "titan"
version = "0.2.0"
source = { git = "https://github.com/pytorch/torchtitan?rev=main#23e4dfca5ca52587dbaf18f67bee8d73e875df5b" }

[[package]]
name = "pytest"
version = "8.3.4"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/pytest-8.3.4-py3-none-any.whl", hash = "$(h c)" }]

[[package]]
name = "sphinx"
version = "8.0.0"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/sphinx-8.0.0-py3-none-any.whl", hash = "$(h d)" }]
TOML
printf '[project]\nname = "trainer"\n[tool.uv]\ndefault-groups = ["dev", "docs"]\n' >"$R/pyproject.toml"
git -C "$R" add uv.lock pyproject.toml && git -C "$R" commit -qm lock
printf '[project]\nname = "trainer"\n' >"$R/pyproject.toml"  # uncommitted: --at reads the commit's

"$ENVBISECT" state "$R/uv.lock" --at HEAD --extra cu130 -o "$T/cu130.json" 2>"$T/cu130.err"
expect_contains "$T/cu130.json" '"torch": {'
expect_contains "$T/cu130.json" "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
expect_contains "$T/cu130.json" '"sphinx"'  # default-groups of the committed pyproject.toml
expect_contains "$T/cu130.json" "roots trainer; groups dev, docs; extras trainer[cu130]"
expect_contains "$T/cu130.json" '"url": "https://github.com/pytorch/torchtitan"'
expect_contains "$T/cu130.err" "for CPython 3.12"  # requires-python, no --python given
expect_contains "$T/cu130.err" "left out (1 lock entry"
"$ENVBISECT" state "$R/uv.lock" --at HEAD --extra cu128 --no-default-groups -o "$T/cu128.json" 2>/dev/null
not grep -q sphinx "$T/cu128.json"
"$ENVBISECT" diff "$T/cu128.json" "$T/cu130.json" >"$T/diff.txt" || true
expect_contains "$T/diff.txt" "2.11.0+cu128"

rc=0
"$ENVBISECT" state "$R/uv.lock" --at HEAD --extra cu128 --extra cu130 -o "$T/both.json" 2>"$T/both.err" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; cat "$T/both.err"; exit 1; }
expect_contains "$T/both.err" "declares them in conflict"
[[ ! -e "$T/both.json" ]]
