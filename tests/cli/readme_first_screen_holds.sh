#!/usr/bin/env bash
# The README stays readable: no line over 120 characters, and its first screen (the first 40 lines)
# names the two commands it promises, which exist and run as scripts, and shows what the demo prints.
source "$(dirname "$0")/common.sh"
readme="$SRC/README.md"
if awk 'length > 120 {print FILENAME ":" NR ": " length " characters"; bad = 1} END {exit bad}' "$readme"; then :; else
  exit 1
fi
head -n 40 "$readme" >"$T/first-screen.md"
for command in scripts/demo scripts/test; do
  expect_contains "$T/first-screen.md" "$command"
  [[ -x $SRC/$command ]] || { echo "$command is not an executable script"; exit 1; }
done
expect_contains "$T/first-screen.md" "cause (2 differences, together):"
expect_contains "$T/first-screen.md" "effect of the cause: "
echo "readme_first_screen_holds: ok"
