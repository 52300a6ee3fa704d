#!/usr/bin/env bash
# `envbisect versions NAME --wheels DIR` lists NAME's versions in PEP 440 order (not text order),
# local labels included, and warns about a wheel whose version is not PEP 440 instead of guessing.
source "$(dirname "$0")/common.sh"

# Only file names are read, so empty files named like wheels make a wheelhouse.
mkdir -p "$T/wheels"
for f in \
  fauxtorch-2.11.0+cu130-cp311-cp311-linux_x86_64.whl \
  fauxtorch-2.10.0-py3-none-any.whl \
  fauxtorch-2.11.0+cu128-cp311-cp311-linux_x86_64.whl \
  fauxtorch-2.11.0rc1-py3-none-any.whl \
  fauxtorch-2.9.0-py3-none-any.whl \
  fauxtorch-2.11.0-py3-none-any.whl \
  fauxtorch-2.11.0.x-py3-none-any.whl \
  Faux_Transformers-5.8.1-py3-none-any.whl \
  README.txt; do
  : > "$T/wheels/$f"
done

"$ENVBISECT" versions FauxTorch --wheels "$T/wheels" > "$T/out" 2> "$T/err"

printf '%s\n' 2.9.0 2.10.0 2.11.0rc1 2.11.0 2.11.0+cu128 2.11.0+cu130 > "$T/expected"
diff -u "$T/expected" "$T/out"
expect_contains "$T/err" "envbisect: warning: $T/wheels/fauxtorch-2.11.0.x-py3-none-any.whl: invalid version '2.11.0.x'"
not grep -q transformers "$T/out"
