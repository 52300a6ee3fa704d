#!/usr/bin/env bash
# Fixture self-test (no envbisect): the pair scenario is slow only with alpha 1.1 AND beta 2.1;
# the single scenario is slow with delta 4.1 alone. Speed is judged against the good run (5x).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

P="$SRC/fixtures/scenarios/pair"
S="$SRC/fixtures/scenarios/single"
"$P/make-fixture" > /dev/null
"$S/make-fixture" > /dev/null
W="$P/.build/wheels"
cmp "$W/beta-2.1-py3-none-any.whl" "$S/.build/wheels/beta-2.1-py3-none-any.whl"   # reproducible

# The bad state really installs with pip (beta requires alpha).
make_venv "$T/bad" "$W" 'alpha==1.1' 'beta==2.1' 'gamma==3.1'
RC=0; PAIR_LOG_LEVEL=debug "$T/bad/bin/python" "$P/bench.py" --seed 7 > "$T/bad.out" 2> "$T/bad.err" || RC=$?
[[ $RC -eq 0 ]]; expect_contains "$T/bad.err" "pair-bench:"
bad_venv="$(json_field "$T/bad.out" items_per_s)"

# Other combinations: wheels unpacked side by side, chosen with PYTHONPATH (fast).
for whl in "$W"/*.whl; do
  "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$T/site/$(basename "$whl" -py3-none-any.whl)"
done
# run NAME PKG-VER...: median items_per_s of 3 runs into $T/NAME.rate, checksum into $T/NAME.sum.
run() {
  local name="$1" path=""
  shift
  for p in "$@"; do path="$path${path:+:}$T/site/$p"; done
  PYTHONPATH="$path" "$PY" - "$P/bench.py" "$T/$name" <<'PY'
import json, subprocess, sys
runs = [json.loads(subprocess.run([sys.executable, sys.argv[1], "--seed", "7", "--items", "200000"], check=True,
                                  stdout=subprocess.PIPE, text=True).stdout.splitlines()[-1]) for _ in range(3)]
assert len({r["checksum"] for r in runs}) == 1, runs
open(sys.argv[2] + ".rate", "w").write(f"{sorted(r['items_per_s'] for r in runs)[1]}\n")  # median of 3
open(sys.argv[2] + ".sum", "w").write(runs[0]["checksum"] + "\n")
PY
  echo "$name: $(cat "$T/$name.rate") items/s checksum $(cat "$T/$name.sum")"
}
slower() {  # slower A B: A is at least 2.5x slower than B (5 passes cost ~3x one: the first warms the interpreter)
  "$PY" -c "import sys; sys.exit(0 if $(cat "$T/$1.rate") * 2.5 < $(cat "$T/$2.rate") else 1)"
}
run good alpha-1.0 beta-2.0 gamma-3.0
run bad alpha-1.1 beta-2.1 gamma-3.1
run alpha_only alpha-1.1 beta-2.0 gamma-3.0
run beta_only alpha-1.0 beta-2.1 gamma-3.0
run gamma_only alpha-1.0 beta-2.0 gamma-3.1
run single_good alpha-1.0 beta-2.0 gamma-3.0 delta-4.0
run single_bad alpha-1.1 beta-2.0 gamma-3.1 delta-4.1
run delta_only alpha-1.0 beta-2.0 gamma-3.0 delta-4.1
run single_rest alpha-1.1 beta-2.0 gamma-3.1 delta-4.0

slower bad good
not slower alpha_only good
not slower beta_only good
not slower gamma_only good
slower single_bad single_good
slower delta_only single_good
not slower single_rest single_good
"$PY" -c "import sys; sys.exit(0 if $bad_venv * 3 < $(cat "$T/good.rate") else 1)"
# Same checksum everywhere: only the speed differs.
for n in bad alpha_only beta_only gamma_only single_good single_bad delta_only single_rest; do
  cmp -s "$T/good.sum" "$T/$n.sum"
done

# Cannot test without the packages: 125.
RC=0; PYTHONPATH= "$PY" -I "$P/bench.py" > "$T/none.out" || RC=$?
[[ $RC -eq 125 ]]; expect_contains "$T/none.out" '"error": "ImportError"'
echo "fixture_pair_behaves: ok"
