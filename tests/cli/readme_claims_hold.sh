#!/usr/bin/env bash
# What README.md and docs/RELIABILITY.md state about the tree holds: the README's list of Debian
# build packages is the one scripts/install-deps installs to build (a package missing there broke a
# build from the list: libcurl4-openssl-dev), and RELIABILITY's count of bad-input cases is the
# count tests/cli/bad_inputs.sh runs (that script checks it as it runs; here, that it still does).
source "$(dirname "$0")/common.sh"
"$PY" - "$SRC" <<'PY'
import pathlib, re, sys
src = pathlib.Path(sys.argv[1])
readme = src.joinpath("README.md").read_text()
m = re.search(r"Debian packages: `([^`]+)`", readme)
assert m, "README: no 'Debian packages: `...`' line"
listed = set(m.group(1).split())
deps = src.joinpath("scripts/install-deps").read_text()
m = re.search(r"^packages=\(([^)]*)\)", deps, re.M)
assert m, "scripts/install-deps: no packages=(...) list"
# What builds envbisect: install-deps' base list without what only runs the demo and the tests.
build = set(m.group(1).split()) - {"git", "python3", "python3-venv"}
assert listed == build, f"README lists {sorted(listed - build)} that install-deps does not; " \
                        f"install-deps builds with {sorted(build - listed)} that README does not list"
print(f"README's {len(listed)} build packages are install-deps' build packages")
PY
grep -q 'reliability_count=' "$SRC/tests/cli/bad_inputs.sh" || { echo "bad_inputs.sh no longer checks RELIABILITY's count"; exit 1; }
