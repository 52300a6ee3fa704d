#!/usr/bin/env bash
# Noisy runs are said, not hidden, and said once: a good side whose runs spread by a third (CV well over
# 10 %) gets a warning under the anchors' line and one noise line with the result, however many of its
# decisions are noisy (each one is flagged under --explain and in every report format); the quiet bad
# side gets none. The metric is set by a run counter, not by timing.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys
counter = sys.argv[1]
n = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(n + 1))
if os.environ["B"] == "new":
    m = 200.0 * (1 + n % 3 / 100)           # quiet: CV about 1 %
else:
    m = [1000.0, 1400.0, 700.0][n % 3]      # noisy: CV about 34 %
print(json.dumps({"m": m}))
PY
cat >"$T/recipe.json" <<JSON
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "$T/counter"], "metric": "m", "unit": "items/s", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"env\": {\"A\": \"$1\", \"B\": \"$2\"}}"
}
state old old >"$T/good.json"
state new new >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "env/B old -> new"
# A warning: on stderr, not among the results.
expect_contains "$T/err.txt" "envbisect: warning: the good anchor's runs are noisy (CV "
not grep -q "the bad anchor's runs are noisy" "$T/err.txt"
not grep -q "warning:" "$T/out.txt"
# One line for the noise of every decision, with the result, not a tail on each verdict line.
noisy_lines=$(grep -c "noisy" "$T/out.txt" || true)
[[ "$noisy_lines" == 1 ]] || { echo "expected one noise line, got $noisy_lines:"; cat "$T/out.txt"; exit 1; }
grep -Eq "^noise: 2 of 4 decisions noisy, CV [0-9]+–[0-9]+ %; noisy anchors: good CV [0-9]+ % .*details in the report$" \
  "$T/out.txt" || { echo "no noise summary line:"; cat "$T/out.txt"; exit 1; }
not grep -Eq "^  (good|bad)  .*noisy" "$T/out.txt"
# --explain keeps it per decision.
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --no-probe --explain --out "$T/explained" \
  >"$T/explain.txt" 2>/dev/null
grep -Eq "^  good  .*noisy: CV [0-9.]+ % > 10 %" "$T/explain.txt" || { echo "--explain flags no decision:"; cat "$T/explain.txt"; exit 1; }
expect_contains "$T/run/report.md" "- noise: "  # one line in the answer, the details in the appendix
expect_contains "$T/run/report.md" "- noisy: the good anchor's runs: CV "
grep -Eq "^- noisy: decision #[0-9]+ .*: [0-9]+ runs with CV [0-9.]+ %, above the 10.0 % noise threshold" "$T/run/report.md" \
  || { echo "report.md flags no noisy decision:"; grep -n noisy "$T/run/report.md"; exit 1; }
not grep -q "the bad anchor's runs: CV" "$T/run/report.md"
"$ENVBISECT" report "$T/run" >/dev/null
expect_contains "$T/run/report.html" "<li>noisy: the good anchor&#39;s runs: CV "
"$PY" - "$T/run/report.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert any(f.startswith("the good anchor's runs: CV") for f in doc["verdict"]["noisy"]), doc["verdict"]["noisy"]
assert any(d["noisy"] for d in doc["timeline"]), doc["timeline"]
PY
