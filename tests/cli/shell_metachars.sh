#!/usr/bin/env bash
# Values with shell metacharacters (; $(...) backticks quotes spaces newlines) in env values, data
# values, placeholders, recipe env and the recipe's own folder reach the benchmark byte for byte and
# are never run by a shell: no PWNED marker file appears anywhere. Package names and versions with
# them are refused as bad input (exit 2).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
evil=$'$(touch PWNED_dollar); `touch PWNED_backtick` && touch PWNED_and | touch PWNED_pipe \'q\' "dq" \\ *\nline2 > PWNED_redirect'
dir="$T/we ird;\$(touch PWNED_dir) \`touch PWNED_dirbt\` 'q\" "$'\n'"dir"
mkdir -p "$dir"

cat >"$dir/bench.py" <<'PY'
import json, os, random, sys
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "seen.jsonl"), "a") as out:
    out.write(json.dumps({"argv": sys.argv[1:], "FLAG_A": os.environ.get("FLAG_A"),
                          "NOTE": os.environ.get("NOTE"), "EXTRA": os.environ.get("EXTRA")}) + "\n")
slow = os.environ.get("FLAG_A", "old") != "old"
rate = (200.0 if slow else 1000.0) * (1 + 0.05 * random.Random(os.getpid()).random())
print(json.dumps({"items_per_s": rate, "error": None}))
PY
"$PY" - "$dir" "$evil" <<'PY'
import json, sys
folder, evil = sys.argv[1:3]
base = {"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"},
        "data": {"label": evil}, "env": {"NOTE": evil, "FLAG_A": "old"}}
json.dump(base, open(f"{folder}/good.json", "w"))
base["env"]["FLAG_A"] = "new " + evil
json.dump(base, open(f"{folder}/bad.json", "w"))
json.dump({"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{data.label}", "{env.NOTE}", evil + "{{x}}"],
           "env": {"EXTRA": "{env.NOTE};`touch PWNED_recipe_env`"}, "metric": "items_per_s", "repeats": 3,
           "timeout_s": 20, "seed": 1}, open(f"{folder}/recipe.json", "w"))
PY
(cd "$dir" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --out "$T/run" --no-probe >"$T/out.txt" 2>&1) ||
  { cat "$T/out.txt"; exit 1; }

# Every run saw the exact bytes, and the cause is the evil value itself.
"$PY" - "$dir" "$evil" "$T/run" <<'PY'
import json, sys
folder, evil, run = sys.argv[1:4]
seen = [json.loads(line) for line in open(f"{folder}/seen.jsonl")]
assert len(seen) >= 6, len(seen)
for record in seen:
    assert record["argv"] == [evil, evil, evil + "{x}"], record["argv"]
    assert record["NOTE"] == evil and record["EXTRA"] == evil + ";`touch PWNED_recipe_env`", record
    assert record["FLAG_A"] in ("old", "new " + evil), record["FLAG_A"]
cause = json.load(open(f"{run}/result.json"))["cause"]
assert [(c["name"], c["bad"]) for c in cause] == [("FLAG_A", "new " + evil)], cause
PY

# Names and versions with metacharacters are bad input, refused before anything runs.
printf '{"format": 1, "packages": {"a;touch PWNED_name": "1.0", "b": "1.0; touch PWNED_version"}}\n' >"$T/pkgs.json"
rc=0
(cd "$T" && "$ENVBISECT" run pkgs.json "$dir/good.json" --recipe "$dir/recipe.json" --out "$T/run2" 2>"$T/err.txt") || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; cat "$T/err.txt"; exit 1; }
expect_contains "$T/err.txt" "invalid package name 'a;touch PWNED_name'"
expect_contains "$T/err.txt" "invalid PEP 440 version '1.0; touch PWNED_version'"

# Nothing anywhere was executed by a shell.
# (find exits 1 when other tests' temp folders vanish under it; sed reads all, so no SIGPIPE either)
found=$( { find "$T" /tmp -maxdepth 6 -name 'PWNED*' 2>/dev/null || true; } | sed -n 1,5p)
[[ -z $found ]] || { echo "a shell ran something: $found"; exit 1; }
