#!/usr/bin/env bash
# 90 bad inputs (tests/cli/bad_inputs/): each exits with the documented code (2), prints exactly ONE
# stderr line "envbisect: error: FILE...: FIELD: what is wrong" (a "hint:" line may follow it), and
# writes nothing: no run directory, no store, nothing in the working directory or in $HOME.
source "$(dirname "$0")/common.sh"
B="$SRC/tests/cli/bad_inputs"
F="$SRC/fixtures/scenarios/flags"
cases=0

# check CODE FILE FIELD -- ARGS...: run envbisect ARGS (@OUT and @STORE become fresh paths) in an
# empty working directory with an empty HOME, and assert all of the above.
check() {
  local code="$1" file="$2" field="$3"
  shift 4
  cases=$((cases + 1))
  local dir="$T/case$cases" args=() rc=0
  mkdir -p "$dir/cwd" "$dir/home"
  for arg in "$@"; do
    arg="${arg//@OUT/$dir/run}"
    args+=("${arg//@STORE/$dir/store}")
  done
  # A bounded wait: an input that makes envbisect read forever (a fifo, /dev/zero) fails here, not in CI's timeout.
  (cd "$dir/cwd" && HOME="$dir/home" timeout -s KILL 60 "$ENVBISECT" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr") || rc=$?
  local what="case $cases (${args[*]})"
  [[ $rc -eq $code ]] || { echo "$what: expected exit $code, got $rc"; cat "$dir/stderr"; return 1; }
  # One error line; a "hint:" line with the fix may follow it.
  [[ $(grep -vc '^hint: ' "$dir/stderr") -eq 1 ]] || { echo "$what: expected one stderr line:"; cat "$dir/stderr"; return 1; }
  grep -q '^envbisect: error: ' "$dir/stderr" || { echo "$what: not an error line:"; cat "$dir/stderr"; return 1; }
  expect_contains "$dir/stderr" "$file"
  expect_contains "$dir/stderr" "$field"
  [[ ! -e $dir/run && ! -e $dir/store ]] || { echo "$what: wrote a run directory or a store"; return 1; }
  [[ -z $(ls -A "$dir/cwd") && -z $(ls -A "$dir/home") ]] || { echo "$what: wrote into cwd or HOME"; return 1; }
}

# A bad state as the good side of a run; the recipe and the other state are fine.
bad_state() {
  local name="$1" field="$2"
  check 2 "$B/state_$name.json: $field" "$field" -- \
    run "$B/state_$name.json" "$F/bad.json" --recipe "$F/recipe.json" --out @OUT --store @STORE
}
bad_state_at() {  # malformed JSON: the field is a line:column
  local name="$1" position="$2"
  check 2 "$B/state_$name.json:$position: malformed JSON" "$position" -- \
    run "$B/state_$name.json" "$F/bad.json" --recipe "$F/recipe.json" --out @OUT --store @STORE
}
# A bad recipe with fine states (the good one has the thread count some recipes ask for).
bad_recipe() {
  local name="$1" field="$2"
  check 2 "$B/recipe_$name.json: $field" "$field" -- \
    run "$B/ok_good_threads.json" "$F/bad.json" --recipe "$B/recipe_$name.json" --out @OUT --store @STORE
}

# Malformed JSON: file, line and column.
bad_state_at trailing_comma 2:26
bad_state_at truncated 1:36
bad_state_at empty 1:1
bad_state_at number_overflow 1:41
# Wrong shapes, types and values, each named by its JSON pointer.
bad_state array "expected a JSON object (an environment state), got an array"
bad_state no_format "/format: missing"
bad_state format_2 "/format: expected 1"
bad_state format_string '/format: expected 1 (this envbisect reads state format 1), got "1"'
bad_state format_wraps "/format: expected 1 (this envbisect reads state format 1), got 4294967297"
bad_state unknown_field "/pakages: unknown field 'pakages' (did you mean 'packages'?)"
bad_state packages_array "/packages: expected an object, got an array"
bad_state bad_version "/packages/fauxtorch: invalid PEP 440 version '2.11.0-cu128!'"
bad_state version_number "/packages/fauxtorch: expected a version string or an object, got a number"
bad_state duplicate_package "/packages/faux-torch: duplicate package"
bad_state bad_package_name "/packages/faux torch!: invalid package name"
bad_state package_no_version "/packages/fauxtorch/version: missing"
bad_state sha256_not_hex "/packages/fauxtorch/sha256: expected 64 hex digits"
bad_state package_unknown_field "/packages/fauxtorch/wheels: unknown field 'wheels' (did you mean 'wheel'?)"
bad_state repo_no_commit "/repos/dflash/commit: missing"
bad_state repo_bad_commit "/repos/dflash/commit: expected a commit id, tag, branch or revision (v2.3, main~4), got '--upload-pack=touch', which starts with '-'"
bad_state repo_missing_dir "/repos/dflash/path: $B/no/such/checkout is not a directory"
# A lock's git source is a repo known by its URL (state writes no path): run asks for a clone.
bad_state repo_url_only "/repos/torchtitan/path: missing: clone https://github.com/pytorch/torchtitan and give its folder as path"
bad_state cache_state "/caches/inductor/state: expected \"cold\", \"warm\" or a snapshot path, got 'lukewarm'"
# Names that become folders (RUNDIR/repos/NAME-COMMIT, a snapshot per cache) cannot leave the run folder.
bad_state unknown_not_a_field "/unknown/0: expected one of caches, container, data, env, gpus, python/interpreter, python/version, threads, got \"packages\""
bad_state hashes_and_sha256 "/packages/fauxtorch/hashes: give sha256 (one file) or hashes (any of these files), not both"
bad_state repo_subdirectory_escapes "/repos/dflash/subdirectory: expected a folder inside the repository (relative, no '..'), got '../outside'"
bad_state repo_name_escapes "/repos/..~1..~1escape: invalid name '../../escape': starts with '.'"
bad_state cache_name_escapes "/caches/..~1..~1..~1c: invalid name '../../../c': starts with '.'"
# A captured cache is found beside the state and must exist before the run folder is made.
bad_state cache_snapshot_missing "/caches/inductor/state: $B/no/such/cache is not a directory"
bad_state package_version_empty "/packages/fauxtorch: invalid PEP 440 version ''"
bad_state threads_negative "/threads/drafter_threads: expected a non-negative integer, got -3"
bad_state threads_string "/threads/drafter_threads: expected a non-negative integer, got \"3\""
bad_state env_number "/env/FLAG_A: expected a string, got an integer"
bad_state env_name_equals "/env/FLAG_A=x: invalid environment variable name"
bad_state env_nul "/env/FLAG_A: contains a NUL character"
bad_state gpus_not_array "/gpus/target: expected an array of GPU indices, got a string"
bad_state gpu_index_wraps "/gpus/target/0: expected a GPU index (an integer from 0 to 65535), got 4294967296"
bad_state gpu_both_roles "/gpus/drafter: GPU 1 is both a target and a drafter GPU"
bad_state gpu_twice "/gpus/target/2: GPU 0 is listed twice"
bad_state python_version_x "/python/version: expected a Python version such as 3.11 or 3.11.4, got '3.11.x'"
bad_state wheel_pin_path "/packages/fauxtorch/wheel: expected a wheel file name (NAME-VERSION-PY-ABI-PLATFORM.whl, no folder), got '../../etc/passwd'"
bad_state wheel_pin_other_project "/packages/fauxtorch/wheel: 'numpy-2.11.0-py3-none-any.whl' is numpy 2.11.0, not fauxtorch 2.11.0"
bad_state python_venv "/python/venv: expected \"fresh\""
bad_state python_not_object "/python: expected an object, got a string"
bad_state data_object "/data/train_samples: expected a string, number or boolean, got an object"
bad_state name_number "/name: expected a string, got an integer"
bad_state duplicate_key "/env: duplicate key 'env'"
bad_state data_nul "/data/dataset: contains a NUL character"

# Recipes.
bad_recipe format_missing "/format: expected 1"
bad_recipe no_metric "/metric: missing"
bad_recipe unknown_placeholder "/command/0: unknown placeholder {pyhton}"
bad_recipe unbalanced_brace "/command/1: unbalanced '{' or '}'"
bad_recipe empty_command "/command: expected a non-empty array of strings (an argv), got an empty array"
bad_recipe shell_string "/command: expected a non-empty array of strings (an argv), got a string"
bad_recipe argv_object "/command/1: expected a string, got an object"
bad_recipe argv_nul "/command/1: contains a NUL character"
bad_recipe repeats_zero "/repeats: expected an integer from 1 to 100, got 0"
bad_recipe repeats_wraps "/repeats: expected an integer from 1 to 100, got 4294967297"
bad_recipe timeout_tiny "/timeout_s: expected a positive number of seconds, from 0.001 to 1000000, got 0.0001"
bad_recipe timeout_huge "/timeout_s: expected a positive number of seconds, from 0.001 to 1000000, got 1e+300"
bad_recipe direction '/direction: expected "higher" or "lower", got "up"'
bad_recipe env_name_equals "/env/A=B: invalid environment variable name"
bad_recipe unknown_field "/comand: unknown field 'comand' (did you mean 'command'?)"
bad_recipe duplicate_key "/metric: duplicate key 'metric'"
# A placeholder the bad state cannot fill: the state is named, with the field and the recipe.
check 2 "$F/bad.json: /threads/drafter_threads: missing; the recipe $B/recipe_missing_thread.json uses {threads.drafter_threads}" \
  "/threads/drafter_threads" -- run "$B/ok_good_threads.json" "$F/bad.json" --recipe "$B/recipe_missing_thread.json" --out @OUT --store @STORE

# Whole inputs: the same state twice, files that are not there or not files, wheel folders that are not folders.
check 2 "$F/good.json and $F/good.json describe the same environment" "nothing to bisect" -- \
  run "$F/good.json" "$F/good.json" --recipe "$F/recipe.json" --out @OUT --store @STORE
check 2 "$F/missing.json: cannot read" "No such file or directory" -- \
  run "$F/missing.json" "$F/bad.json" --recipe "$F/recipe.json" --out @OUT --store @STORE
check 2 "$B: cannot read" "is a directory, not a file" -- \
  run "$B" "$F/bad.json" --recipe "$F/recipe.json" --out @OUT --store @STORE
check 2 "$F/missing-recipe.json: cannot read" "No such file or directory" -- \
  run "$F/good.json" "$F/bad.json" --recipe "$F/missing-recipe.json" --out @OUT --store @STORE
check 2 "--wheels $B/ok_good_threads.json" "not a readable directory" -- \
  run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$B/ok_good_threads.json" --out @OUT --store @STORE
check 2 "--wheels $T/no-such-dir" "not a readable directory" -- \
  run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$T/no-such-dir" --out @OUT --store @STORE
# Files that are not regular files are refused by name, without being read: a device that never ends,
# a fifo no one writes, a directory; and a file past the input size limit (sparse: nothing is written).
check 2 "/dev/zero: cannot read: is a character device, not a regular file" "/dev/zero" -- diff /dev/zero "$F/bad.json"
check 2 "/dev/zero: cannot read: is a character device" "/dev/zero" -- \
  run "$F/good.json" "$F/bad.json" --recipe /dev/zero --out @OUT --store @STORE
mkfifo "$T/state.fifo"
check 2 "$T/state.fifo: cannot read: is a fifo, not a regular file" "fifo" -- diff "$F/good.json" "$T/state.fifo"
check 2 "$B: cannot read: is a directory, not a file" "directory" -- diff "$B" "$F/bad.json"
truncate -s 65M "$T/huge.json"
check 2 "$T/huge.json: cannot read: 68157440 bytes, more than the 67108864" "an input file may have" -- \
  diff "$T/huge.json" "$F/bad.json"
# A state nested 100,000 levels deep: refused at the depth limit, with its pointer cut short.
# (Under "format", whose error message quoted the value: dumping it recursively overflowed the stack.)
"$PY" -c 'import sys; d = 100000; sys.stdout.write("{\"format\": " + "[" * d + "]" * d + "}")' >"$T/deep.json"
check 2 "$T/deep.json: /format/0/0/0" "nested deeper than 128 levels" -- diff "$F/good.json" "$T/deep.json"
check 2 "$T/deep.json: /format/0/0/0" "nested deeper than 128 levels" -- \
  run "$T/deep.json" "$F/bad.json" --recipe "$F/recipe.json" --out @OUT --store @STORE

# The same problems reach diff too.
check 2 "$B/state_unknown_field.json: /pakages" "unknown field" -- diff "$B/state_unknown_field.json" "$F/bad.json"
check 2 "$B/state_truncated.json:1:36: malformed JSON" "missing closing quote" -- diff "$F/good.json" "$B/state_truncated.json"

# A commit the repository does not have: found before anything is written.
mkdir -p "$T/repo"
git -C "$T/repo" init -q
echo a >"$T/repo/a"
git -C "$T/repo" add a
git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false commit -qm c1
commit=$(git -C "$T/repo" rev-parse HEAD)
"$PY" - "$F" "$T" "$commit" <<'PY'
import json, sys
flags, t, commit = sys.argv[1:4]
for side, rev in (("good", commit), ("bad", "dead" * 10)):
    doc = json.load(open(f"{flags}/{side}.json"))
    doc["repos"] = {"app": {"path": "repo", "commit": rev}}
    json.dump(doc, open(f"{t}/{side}-repo.json", "w"))
PY
check 2 "$T/bad-repo.json: /repos/app/commit: git repository" "cannot resolve revision 'deaddeaddeaddeaddeaddeaddeaddeaddeaddead'" -- \
  run "$T/good-repo.json" "$T/bad-repo.json" --recipe "$F/recipe.json" --out @OUT --store @STORE

# A pinned build that no wheel folder holds (here: the wrong local label): named before anything is written.
mkdir -p "$T/wheel-src/alpha" "$T/wheels"
echo "X = 1" >"$T/wheel-src/alpha/__init__.py"
"$PY" "$SRC/scripts/make_wheel.py" --name alpha --version 2.0+cu128 --src "$T/wheel-src" --out "$T/wheels" >/dev/null
echo '{"format": 1, "packages": {"alpha": "2.0+cu128"}, "env": {"E": "a"}}' >"$T/good-wheel.json"
echo '{"format": 1, "packages": {"alpha": "2.0+cu130"}, "env": {"E": "b"}}' >"$T/bad-wheel.json"
echo '{"format": 1, "command": ["{python}", "-c", "pass"], "metric": "m"}' >"$T/min-recipe.json"
check 2 "$T/bad-wheel.json: /packages/alpha" "alpha==2.0+cu130 is in no wheel folder or uv cache (found: 2.0+cu128)" -- \
  run "$T/good-wheel.json" "$T/bad-wheel.json" --recipe "$T/min-recipe.json" --wheels "$T/wheels" --out @OUT --store @STORE

# Command-line mistakes: one error line too, naming the option.
check 2 "--repeats" "not in range" -- run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --repeats 0 --out @OUT --store @STORE
check 2 "--recipe" "required" -- run "$F/good.json" "$F/bad.json" --out @OUT --store @STORE
check 2 "--builder" "magic" -- run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --builder magic --out @OUT --store @STORE
# An empty value (an unset variable) is refused, never taken as "not given": --budget "" ran unbounded,
# state --at "" read the working tree instead of a revision.
check 2 "--budget" "an empty value (an unset variable?)" -- run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --budget "" --out @OUT --store @STORE
check 2 "--at" "an empty value (an unset variable?)" -- state "$F/good.json" --at ""

# A store that cannot become a folder is refused before the run folder is made (it was made mid-run).
touch "$T/a-file"
check 2 "--store $T/a-file/store" "$T/a-file is not a directory" -- \
  run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out @OUT --store "$T/a-file/store"

# Remote staging (--remote-root): refused before anything is written or any host is contacted.
run_args=(run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out @OUT --store @STORE)
check 2 "--remote-root" "needs --executor ssh" -- "${run_args[@]}" --remote-root /srv/stage
check 2 "--remote-root stage" "must be an absolute folder" -- "${run_args[@]}" --executor ssh --host root@h --remote-root stage
check 2 "--remote-root" "cannot be combined with --isolation bwrap" -- \
  "${run_args[@]}" --executor ssh --host root@h --remote-root /srv/stage --isolation bwrap
check 2 "--remote-root" "is not a bundle" -- "${run_args[@]}" --executor ssh --host root@h --remote-root /srv/stage
check 2 "--remote-bundle $T/no-bundle" "no executable envbisect" -- \
  "${run_args[@]}" --executor ssh --host root@h --remote-root /srv/stage --remote-bundle "$T/no-bundle"
# What the remote side reads: a build request with a field missing names the file and the field.
echo '{"python": "python3", "python_version": "", "packages": {}, "wheel_dirs": [], "index_url": ""}' >"$T/request.json"
check 2 "$T/request.json: /env_dir" "missing" -- build-env "$T/request.json"

[[ $cases -ge 90 ]] || { echo "only $cases cases"; exit 1; }
# docs/RELIABILITY.md quotes the count: it must be this run's.
reliability_count=$(sed -nE 's/^([0-9]+) cases, data in tests\/cli\/bad_inputs\/.*/\1/p' "$SRC/docs/RELIABILITY.md")
[[ "$reliability_count" == "$cases" ]] ||
  { echo "docs/RELIABILITY.md says ${reliability_count:-no number of} cases; this run has $cases"; exit 1; }
echo "$cases bad inputs: exit 2, one error line naming file and field, nothing written"
