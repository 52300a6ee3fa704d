#!/bin/sh
# Write uv's export of every case in cases.txt (NAME REV CASE FLAGS...) under OUT_DIR/NAME/REV/:
# CASE.txt (requirements-txt), CASE.rc (uv's exit status), CASE.err (its stderr); export_pylock.sh
# writes the pylock.toml exports beside them. uv reads the locks offline, frozen.
# usage: export.sh LOCKS_DIR CASES_FILE OUT_DIR        (tests/uv_oracle/README.md)
set -u
locks=$(cd "$1" && pwd); cases=$2; out=$3
export UV_OFFLINE=1 UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never UV_CACHE_DIR=$(mktemp -d)
work=$(mktemp -d)
uv --version >"$out/uv-version.txt"
quiet=""  # leave out the header and "# via" lines where this uv knows the options
for option in --no-header --no-annotate; do
  uv export --help | grep -q -- "$option" && quiet="$quiet $option"
done
while read -r name rev case flags; do
  [ -d "$work/$name/$rev" ] || { mkdir -p "$work/$name"; cp -r "$locks/$name/$rev" "$work/$name/$rev"; }
  dir=$out/$name/$rev; mkdir -p "$dir"
  # shellcheck disable=SC2086 # FLAGS are words
  (cd "$work/$name/$rev" && uv export --frozen --format requirements-txt $quiet $flags \
     >"$dir/$case.txt" 2>"$dir/$case.err"); echo $? >"$dir/$case.rc"
done <"$cases"
