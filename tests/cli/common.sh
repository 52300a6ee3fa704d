# Sourced by every CLI test (bash). Gives: strict mode, an ERR trap naming the failing line,
# $T (temp dir: removed on success, kept and printed on failure), $ENVBISECT, $SRC,
# $T/runcount.py for benchmarks placed in $T, and the helpers not, skip, need, need_python_module,
# expect_contains.
set -Eeuo pipefail

# The source tree's root; the envbisect binary under test (ctest passes it; run by hand, this tree's build).
if [[ -n "${ENVBISECT_SOURCE_DIR:-}" ]]; then
  SRC="$ENVBISECT_SOURCE_DIR"
else
  SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fi
ENVBISECT="${ENVBISECT:-$SRC/build/envbisect}"
export ENVBISECT SRC

# The environment of this machine points pip at a missing /opt/wheels; tests never use it.
unset PIP_FIND_LINKS

# The real interpreter behind python3 (pyenv's shim costs a shell script per call).
PY="$(python3 -c 'import sys; print(sys.executable)')"
export PY

T="$(mktemp -d "${TMPDIR:-/tmp}/envbisect-cli.XXXXXX")"
export T
# Run keys (processes.jsonl seals) go with the test's folder, not the user's state.
export XDG_STATE_HOME="$T/state"

# A benchmark in $T that must behave differently in its n-th run (a race that bites every third
# run, a machine that slows down after the anchors) counts its runs with `from runcount import
# count_run`: the count lives beside it, outside every candidate's environment.
cat >"$T/runcount.py" <<'PY'
import os


def count_run(name):
    """Count one more run under `name`; return how many so far, this one included."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".log")
    with open(path, "a") as f:
        f.write("x")
    return os.path.getsize(path)
PY

_cli_on_exit() {
  local rc=$?
  if [[ $rc -eq 0 ]]; then
    rm -rf "$T"
  elif [[ $rc -eq 125 ]]; then
    rm -rf "$T"
  else
    echo "FAILED (exit $rc); temp dir kept: $T" >&2
  fi
  return $rc
}
trap _cli_on_exit EXIT
trap 'echo "${BASH_SOURCE[0]}:${LINENO}: command failed (exit $?): ${BASH_COMMAND}" >&2' ERR

# not CMD...: succeeds iff CMD fails (exit status != 0).
not() {
  if "$@"; then
    echo "expected failure, but succeeded: $*" >&2
    return 1
  fi
  return 0
}

# Each skip leaves its reason in $ENVBISECT_SKIP_DIR/<test> when scripts/test sets it: the script
# lists every skip, and fails on one for a component scripts/install-deps installs.
_cli_record_skip() {
  if [[ -n "${ENVBISECT_SKIP_DIR:-}" ]]; then
    mkdir -p "$ENVBISECT_SKIP_DIR"
    printf '%s: %s\n' "$1" "$2" >"$ENVBISECT_SKIP_DIR/$(basename "$0" .sh)"
  fi
}

# skip "reason": the test cannot run on this machine for a reason no package fixes (not root, no user
# namespaces); exit 125 (ctest SKIP_RETURN_CODE). A missing program is `need`'s, not this.
skip() {
  _cli_record_skip other "$*"
  echo "SKIP: $*" >&2
  exit 125
}

# need PROGRAM PACKAGE: skip unless PROGRAM (a name on PATH or an absolute path) is there. PACKAGE is
# the Debian package scripts/install-deps installs for it, so scripts/test counts this skip as a
# failure (ENVBISECT_ALLOW_MISSING=1 excuses it on a developer's box; CI never sets it).
need() {
  command -v "$1" >/dev/null || _cli_missing "$1" "$2"
}

# need_python_module MODULE PACKAGE: as need, for a module that $PY must import.
need_python_module() {
  "$PY" -c "import $1" 2>/dev/null || _cli_missing "python module $1" "$2"
}

_cli_missing() {
  _cli_record_skip missing "$1 is missing (Debian package $2, which scripts/install-deps installs)"
  echo "SKIP: $1 is missing (Debian package $2, which scripts/install-deps installs)" >&2
  exit 125
}

# expect_contains FILE TEXT: fails (printing FILE) unless FILE contains TEXT literally.
expect_contains() {
  local file="$1" text="$2"
  if ! grep -qF -- "$text" "$file"; then
    echo "expected '$file' to contain: $text" >&2
    echo "---- $file ----" >&2
    cat "$file" >&2 || true
    echo "----" >&2
    return 1
  fi
}

# system_state FIELDS: a state on /usr/bin/python3 as it is (no venv) with the JSON members FIELDS
# ("\"threads\": {\"workers\": 2}, ..."), for the tests whose differences are threads, caches and env.
system_state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, $1}"
}

# race_bench [cache] <<'PY' ... PY: write $T/bench.py and $T/recipe.json for a benchmark that fails
# like the incident's compile race. It takes {threads.workers} as `threads` (and with `cache`,
# {cache.c}: `warm` says whether an earlier run compiled into it, and this run does); the Python on
# stdin may set `fail` (with `count_run`, `here`, `os` at hand); a failing run writes the race's
# RuntimeError and exits 1, any other prints a metric of about 1000 (1000-1060, the same values for
# every thread count, so that no state measures better than another).
race_bench() {
  local with_cache="${1:-}" rule args='"{threads.workers}"'
  rule="$(cat)"
  {
    echo 'import json, os, sys'
    echo 'from runcount import count_run'
    echo 'threads = int(sys.argv[1])'
    echo 'here = os.path.dirname(os.path.abspath(__file__))'
    echo 'fail = False'
    if [[ $with_cache == cache ]]; then
      echo 'cache = sys.argv[2]'
      echo 'warm = os.path.exists(os.path.join(cache, "compiled"))'
      echo 'open(os.path.join(cache, "compiled"), "w").write("kernels")'
      args+=', "{cache.c}"'
    fi
    printf '%s\n' "$rule"
    echo 'if fail:'
    echo '    sys.stderr.write("RuntimeError: race in compile\n")'
    echo '    sys.exit(1)'
    # The noise cycles through its seven values per thread count: drawn from the process id, it
    # followed the order good and bad runs start in, and a bad anchor could measure "better".
    echo 'print(json.dumps({"m": 1000.0 * (1 + count_run("metric-%d" % threads) % 7 / 100)}))'
  } >"$T/bench.py"
  echo "{\"format\": 1, \"command\": [\"{python}\", \"{recipe_dir}/bench.py\", $args], \"metric\": \"m\", \"repeats\": 3}" \
    >"$T/recipe.json"
}

# race_state WORKERS CACHE: a system_state with `workers` threads and the inductor cache `c` warm or cold,
# the two differences of race_bench's incident in miniature.
race_state() {
  system_state "\"threads\": {\"workers\": $1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"$2\"}}"
}

# race_run "RC [RC ...]" [OPTION ...]: `envbisect run` of $T/good.json against $T/bad.json with
# $T/recipe.json into $T/run and OPTIONs, stdout in $T/out.txt and stderr in $T/err.txt; the test fails,
# printing both, unless the exit status (left in `rc`) is one of the RCs.
race_run() {
  local want="$1" code
  shift
  rc=0
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" "$@" \
    >"$T/out.txt" 2>"$T/err.txt" || rc=$?
  for code in $want; do
    [[ $rc -eq $code ]] && return 0
  done
  echo "expected exit ${want// / or }, got $rc"
  cat "$T/out.txt" "$T/err.txt"
  exit 1
}

# eight_var_state VALUE: a state on /usr/bin/python3 as it is (no venv) whose env E0..E7 all hold VALUE;
# two of them with different values differ in eight variables.
eight_var_state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"env\": {"
  for i in 0 1 2 3 4 5 6; do echo "\"E$i\": \"$1\","; done
  echo "\"E7\": \"$1\"}}"
}

# eight_var_inputs: $T/good.json and $T/bad.json, eight_var_state a and b, and $T/recipe.json, which runs
# $T/bench.py for its metric "m" with 3 first runs a candidate.
eight_var_inputs() {
  echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
  eight_var_state a >"$T/good.json"
  eight_var_state b >"$T/bad.json"
}

# json_field FILE FIELD: prints FIELD of the last JSON line of FILE ($PY; null -> "null").
json_field() {
  "$PY" - "$1" "$2" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if l.strip().startswith("{")]
v = json.loads(lines[-1]).get(sys.argv[2])
print("null" if v is None else (json.dumps(v) if isinstance(v, (list, dict)) else v))
PY
}

# make_venv DIR WHEELDIR REQ...: a plain venv (no pip inside) with REQs installed offline.
make_venv() {
  local dir="$1" wheels="$2"
  shift 2
  "$PY" -m venv --without-pip "$dir"
  "$PY" -m pip --isolated --python "$dir/bin/python" install -q --no-index --find-links "$wheels" "$@"
}

# reduced_incident_states FIXTURE OUTDIR: OUTDIR/good.json and OUTDIR/bad.json from the incident
# fixture's states, bad reduced to the cause plus the fauxtransformers red herring (fewer runs for
# the executor tests); repo paths made absolute.
reduced_incident_states() {
  "$PY" - "$1" "$2" <<'PY'
import json, sys
f, t = sys.argv[1:]
good, bad = (json.load(open(f"{f}/{n}.json")) for n in ("good", "bad"))
for s in (good, bad):
    for repo in s.get("repos", {}).values():
        repo["path"] = f"{f}/{repo['path']}"
for key in ("repos", "env", "data"):
    bad[key] = good[key]
bad["packages"] = {k: v for k, v in bad["packages"].items() if k in good["packages"]}
json.dump(good, open(f"{t}/good.json", "w"))
json.dump(bad, open(f"{t}/bad.json", "w"))
PY
}
