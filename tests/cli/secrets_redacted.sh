#!/usr/bin/env bash
# A real run whose states hold secrets (HF_TOKEN differs between good and bad and is part of the cause,
# WANDB_API_KEY, AWS_SECRET_ACCESS_KEY, a token under a harmless name) and whose benchmark prints them:
# no secret appears in the journal, result.json, report.md/html/json, a re-rendered report, `diff`
# output or the run's own output; "<redacted>" does, and KEYBOARD's plain value stays visible.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
[[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 is missing"
hf_good="hf_GoodGoodGood0123456789abcdefGHIJ"
hf_bad="hf_BadBadBad9876543210zyxwvuABCDEF"
wandb="0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
aws="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
header="ghp_R4nd0mT0k3nV4lu3xxxxxxxxxxxxxxxx01"

cat >"$T/bench.py" <<'PY'
import json, os, random, sys
# A careless benchmark: it prints its secrets to both logs.
print("HF_TOKEN=" + os.environ.get("HF_TOKEN", ""), "token", sys.argv[1], "header", os.environ.get("EXTRA_HEADER"))
print("WANDB_API_KEY=" + os.environ.get("WANDB_API_KEY", ""), file=sys.stderr)
slow = os.environ.get("FLAG_A") == "new" and os.environ.get("HF_TOKEN", "").startswith("hf_Bad")
rate = (200.0 if slow else 1000.0) * (1 + 0.05 * random.Random(os.getpid()).random())
print(json.dumps({"items_per_s": rate, "error": None}))
PY
"$PY" - "$T" "$hf_good" "$hf_bad" "$wandb" "$aws" "$header" <<'PY'
import json, sys
t, hf_good, hf_bad, wandb, aws, header = sys.argv[1:7]
def state(flag, hf, keyboard):
    return {"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"},
            "env": {"FLAG_A": flag, "HF_TOKEN": hf, "WANDB_API_KEY": wandb, "AWS_SECRET_ACCESS_KEY": aws,
                    "EXTRA_HEADER": header, "KEYBOARD": keyboard}}
json.dump(state("old", hf_good, "us"), open(f"{t}/good.json", "w"))
json.dump(state("new", hf_bad, "keyboard-de"), open(f"{t}/bad.json", "w"))
json.dump({"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{env.HF_TOKEN}"], "metric": "items_per_s",
           "repeats": 3, "timeout_s": 20, "seed": 1}, open(f"{t}/recipe.json", "w"))
PY
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" --no-probe >"$T/out.txt" 2>&1 ||
  { cat "$T/out.txt"; exit 1; }
"$ENVBISECT" report "$T/run" --out "$T/again" >/dev/null
"$ENVBISECT" diff "$T/good.json" "$T/bad.json" >"$T/diff.txt"
"$ENVBISECT" diff --json "$T/good.json" "$T/bad.json" >"$T/diff.json" || true

# The benchmark really saw and printed the secrets (its raw logs are its own business)...
grep -rqF "$hf_bad" "$T/run/attempts" || { echo "the benchmark never printed the token: the test proves nothing"; exit 1; }
# ...and nothing envbisect wrote or printed holds one.
files=("$T/run/journal.jsonl" "$T/run/result.json" "$T/run/report.md" "$T/run/report.html" "$T/run/report.json"
       "$T/again/report.md" "$T/again/report.html" "$T/again/report.json" "$T/out.txt" "$T/diff.txt" "$T/diff.json")
for file in "${files[@]}"; do
  [[ -s $file ]] || { echo "missing output $file"; exit 1; }
  for secret in "$hf_good" "$hf_bad" "$wandb" "$aws" "$header"; do
    if grep -qF -- "$secret" "$file"; then
      echo "secret leaked into $file:"; grep -nF -- "$secret" "$file" | cut -c1-200; exit 1
    fi
  done
done
expect_contains "$T/run/result.json" '"name": "HF_TOKEN"'
expect_contains "$T/run/result.json" '<redacted>'
expect_contains "$T/run/report.md" '<redacted>'
expect_contains "$T/run/report.html" '&lt;redacted&gt;'
expect_contains "$T/run/journal.jsonl" '"keyboard-de"'
