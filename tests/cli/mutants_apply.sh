#!/usr/bin/env bash
# Every mutant of tests/mutations/ still applies to the tree and names tests that exist: its snippet
# occurs exactly once in its file (`scripts/mutate --list`, which builds nothing), each `test: cli
# NAME` is a script in tests/cli/, and each `test: unit SPEC` selects unit tests of this build. Code that moves under a merge leaves a mutant that scripts/mutate
# can only report stale; here every CTest run notices, not just the day CI's rotating quick set
# reaches it (pin_sha256_ignored was stale for a merge until the whole list ran).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
count=$(find "$SRC/tests/mutations" -name '*.mutant' | wc -l)
(( count >= 30 )) || { echo "tests/mutations/ holds $count mutants, fewer than the 30 the check is built on"; exit 1; }
rc=0
"$SRC/scripts/mutate" --list >"$T/list.txt" 2>&1 || rc=$?
[[ $rc -eq 0 ]] || { grep -E "stale|error|Error" "$T/list.txt" || cat "$T/list.txt"; exit 1; }
expect_contains "$T/list.txt" "$count mutants, 0 stale"
unit_tests="$(dirname "$ENVBISECT")/tests/envbisect_tests"
[[ -x "$unit_tests" ]] || { echo "no unit test binary beside $ENVBISECT"; exit 1; }
"$PY" - "$SRC" "$unit_tests" <<'PY'
import pathlib, subprocess, sys
src, unit_tests = pathlib.Path(sys.argv[1]), sys.argv[2]
missing = []
for mutant in sorted(src.glob("tests/mutations/*.mutant")):
    for line in mutant.read_text().split("\n--- find")[0].splitlines():
        kind, _, name = line.partition(":")[2].strip().partition(" ")
        name = name.strip()
        if not line.startswith("test:"):
            continue
        if kind == "cli" and not (src / "tests/cli" / (name + ".sh")).is_file():
            missing.append(f"{mutant.name}: test: cli {name}: no tests/cli/{name}.sh")
        if kind == "unit" and not subprocess.run([unit_tests, "--list-test-names-only", name],
                                                 capture_output=True, text=True).stdout.strip():
            missing.append(f"{mutant.name}: test: unit {name}: selects no unit test")
assert not missing, "\n".join(missing)
PY
