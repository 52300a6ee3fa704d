#!/usr/bin/env bash
# --help names what each option takes (PATH, SECONDS, N, DURATION), never CLI11's TEXT or INT, with
# ranges in words; an option left without its value says so in one readable line.
source "$(dirname "$0")/common.sh"
for cmd in "" diff run resume locate "store gc" "store verify" report capture timeline repro replay versions matrix \
  state completion manual help; do
  # shellcheck disable=SC2086 # the nested command is two words
  "$ENVBISECT" $cmd --help >"$T/help.txt"
  if grep -nE '\b(TEXT|INT|UINT|FLOAT)\b' "$T/help.txt"; then
    echo "envbisect $cmd --help shows a type, not a value name"; exit 1
  fi
done
"$ENVBISECT" run --help >"$T/run.txt"
expect_contains "$T/run.txt" "--budget DURATION"
expect_contains "$T/run.txt" "--index-timeout SECONDS"
expect_contains "$T/run.txt" "--repeats N:1 to 100"
expect_contains "$T/run.txt" "-o,--output,--out PATH"
expect_contains "$T/run.txt" "--recipe FILE"
rc=0
"$ENVBISECT" run a.json b.json --recipe r.json --repeats 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; exit 1; }
expect_contains "$T/err.txt" "envbisect: error: --repeats needs a value: --repeats N (1 to 100)"
rc=0
"$ENVBISECT" run a.json b.json --explain --recipe 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err2.txt" "--recipe needs a value: --recipe FILE"
echo "cli_help_names_values: ok"
