#!/usr/bin/env bash
# Bare `envbisect` prints the usage (not an error), `envbisect help` the same, `envbisect help CMD`
# the usage of one command (nested ones too), and an unknown one is named with the nearest command.
source "$(dirname "$0")/common.sh"
"$ENVBISECT" >"$T/bare.out" 2>"$T/bare.err"
expect_contains "$T/bare.out" "Usage:"
expect_contains "$T/bare.out" "run"
[[ ! -s $T/bare.err ]] || { echo "bare envbisect wrote to stderr:"; cat "$T/bare.err"; exit 1; }
"$ENVBISECT" help >"$T/help.out"
cmp "$T/bare.out" "$T/help.out"
"$ENVBISECT" help run >"$T/run.out"
expect_contains "$T/run.out" "--recipe"
"$ENVBISECT" run --help >"$T/run-flag.out"
cmp "$T/run.out" "$T/run-flag.out"
"$ENVBISECT" help store gc >"$T/gc.out"
expect_contains "$T/gc.out" "--older-than"
rc=0
"$ENVBISECT" help rnu >/dev/null 2>"$T/unknown.err" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2 for an unknown command, got $rc"; exit 1; }
expect_contains "$T/unknown.err" "help: no command 'rnu'; did you mean 'run'?"
echo "cli_bare_and_help_print_usage: ok"
