#!/bin/sh
# Write uv's pylock.toml export of every lock x revision named in cases.txt (NAME REV CASE FLAGS...)
# under OUT_DIR/NAME/REV/: pylock.toml, pylock.rc (uv's exit status), pylock.err (its stderr), beside
# the requirements exports export.sh writes there. No flags: it is compared with the `default` case.
# uv wants the output's name to start with `pylock.`, so it is written as pylock.toml in the
# revision's own copy and moved. uv reads the locks offline, frozen.
# usage: export_pylock.sh LOCKS_DIR CASES_FILE OUT_DIR        (tests/uv_oracle/README.md)
set -u
locks=$(cd "$1" && pwd); cases=$2; out=$3
export UV_OFFLINE=1 UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never UV_CACHE_DIR=$(mktemp -d)
work=$(mktemp -d)
uv --version | cmp -s - "$out/uv-version.txt" || { echo "export_pylock.sh: $out/uv-version.txt is not $(uv --version)" >&2; exit 1; }
awk '{print $1, $2}' "$cases" | sort -u | while read -r name rev; do
  mkdir -p "$work/$name" && cp -r "$locks/$name/$rev" "$work/$name/$rev"
  dir=$out/$name/$rev; mkdir -p "$dir"
  (cd "$work/$name/$rev" && uv export --frozen --format pylock.toml -o pylock.toml >/dev/null 2>"$dir/pylock.err")
  echo $? >"$dir/pylock.rc"
  if [ -f "$work/$name/$rev/pylock.toml" ]; then mv "$work/$name/$rev/pylock.toml" "$dir/pylock.toml"; fi
done
rm -rf "$work" "$UV_CACHE_DIR"
