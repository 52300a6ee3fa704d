#!/usr/bin/env bash
# scripts/bundle makes a relocatable envbisect: moved to another folder, with LD_LIBRARY_PATH unset,
# it finds every non-glibc library in its own lib/ and does real work (diff of two states).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

need ldd libc-bin
[[ -x "$ENVBISECT" ]] || { echo "no envbisect binary at $ENVBISECT (build it first)" >&2; exit 1; }
"$SRC/scripts/bundle" --binary "$ENVBISECT" --out "$T/made/envbisect" --tar "$T/envbisect.tar.gz" > "$T/bundle.out"
expect_contains "$T/made/envbisect/BUNDLE.txt" "bundled libraries:"

# Unpack somewhere else, as on the GPU machine.
mkdir -p "$T/elsewhere"
tar -C "$T/elsewhere" -xzf "$T/envbisect.tar.gz"
B="$T/elsewhere/envbisect/envbisect"
[[ -x "$B" ]]

# Every library that is not glibc's resolves inside the bundle.
env -u LD_LIBRARY_PATH ldd "$B" > "$T/ldd.out" || true
not grep -q "not found" "$T/ldd.out"
while read -r name _ path _; do
  case "$name" in libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|libutil.so.*) continue ;; esac
  [[ "$path" == "$T/elsewhere/envbisect/lib/"* ]] || { echo "$name resolves outside the bundle: $path" >&2; exit 1; }
done < <(awk '$2 == "=>" {print $1, "=>", $3, "x"}' "$T/ldd.out")

# It works from another directory: diff of the GPU recipe's states.
(cd / && env -u LD_LIBRARY_PATH "$B" diff "$SRC/recipes/dflash/good.json" "$SRC/recipes/dflash/bad.json") > "$T/diff.out"
expect_contains "$T/diff.out" "2 differences"

# Bad arguments are refused.
RC=0; "$SRC/scripts/bundle" --frobnicate > /dev/null 2>&1 || RC=$?
[[ $RC -eq 2 ]]
echo "bundle_runs_elsewhere: ok"
