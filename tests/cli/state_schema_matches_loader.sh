#!/usr/bin/env bash
# The published schema (docs/state.schema.json) and the loader agree: every bad state file of the
# bad-input suite is rejected by the loader (exit 2), and by the schema too unless it is listed below
# as beyond what a JSON Schema can say (with the reason); every state the fixtures hold, and a few
# written here to touch each section, is accepted by both. Uses Debian's python3-jsonschema.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
/usr/bin/python3 -c "import jsonschema" 2>/dev/null || _cli_missing "python module jsonschema" python3-jsonschema
B="$SRC/tests/cli/bad_inputs"
F="$SRC/fixtures/scenarios/flags"

# The loader: each bad state is refused as bad input by `run` (which also checks folders and wheels),
# before anything is written.
for file in "$B"/state_*.json; do
  rc=0
  "$ENVBISECT" run "$file" "$F/bad.json" --recipe "$F/recipe.json" --out "$T/run" --store "$T/store" \
    >/dev/null 2>"$T/err.txt" || rc=$?
  [[ $rc -eq 2 && ! -e "$T/run" ]] || { echo "$file: the loader gave exit $rc, not 2"; cat "$T/err.txt"; exit 1; }
done

# Good states written here: every section, with the forms the loader takes (tags as commits, epochs,
# local labels, a wheel pin, a cache snapshot path, data of each type).
mkdir -p "$T/good"
cat >"$T/good/every_section.json" <<'JSON'
{"format": 1, "name": "n", "description": "d",
 "python": {"version": "3.11.4", "interpreter": "/usr/bin/python3", "venv": "fresh"},
 "packages": {"torch": "2.11.0+cu128", "Faux.Lib_2": "1!2.0rc1.post3.dev4", "old": "1.0-1",
              "pinned": {"version": "2.0", "wheel": "pinned-2.0-py3-none-any.whl", "sha256": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
              "hashed": {"version": "3.0", "hashes": ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]}},
 "repos": {"dflash": {"path": ".", "commit": "v2.3"}, "other+x": {"path": "o", "url": "https://h/o.git", "commit": "main~4", "subdirectory": "libs/core"}},
 "caches": {"inductor": {"role": "inductor", "state": "warm"}, "triton": {"state": "snapshots/triton"}},
 "threads": {"drafter_threads": 3, "workers": 0},
 "env": {"CUDA_VISIBLE_DEVICES": "0,1", "EMPTY": ""},
 "data": {"dataset": "train", "samples": 100, "ratio": 0.5, "shuffle": true},
 "gpus": {"target": [0, 1], "drafter": [2]},
 "container": {"base": "debian:12", "packages": {"libc6": "2.36-9"}}}
JSON
"$PY" - "$T/good" "$SRC/fixtures" <<'PY'
import json, pathlib, shutil, sys
out, fixtures = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
# Every state file the fixtures hold (a JSON object with "format"), each copied beside the others.
for i, path in enumerate(sorted(fixtures.rglob("*.json"))):
    try:
        doc = json.loads(path.read_text())
    except ValueError:
        continue
    if isinstance(doc, dict) and doc.get("format") == 1 and "command" not in doc and "states" not in doc:
        shutil.copy(path, out / f"fixture{i}.json")
PY
cp "$B/ok_good_threads.json" "$T/good/"
good_count=$(ls "$T/good" | wc -l)
[[ $good_count -ge 10 ]] || { echo "only $good_count good states found"; exit 1; }
for file in "$T/good"/*.json; do
  # diff reads each state's form and checks no folder, so a good state must load as it is.
  "$ENVBISECT" diff "$file" "$F/good.json" >/dev/null 2>"$T/err.txt" ||
    { echo "$file: the loader refused a good state:"; cat "$T/err.txt"; exit 1; }
done

/usr/bin/python3 - "$SRC/docs/state.schema.json" "$B" "$T/good" <<'PY'
import json, pathlib, sys
import jsonschema
schema_path, bad_dir, good_dir = sys.argv[1:]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
# What a JSON Schema cannot say: these the loader alone refuses.
beyond = {
    "state_empty.json": "not JSON",
    "state_trailing_comma.json": "not JSON",
    "state_truncated.json": "not JSON",
    "state_number_overflow.json": "1e400: JSON parsers differ (Python reads infinity)",
    "state_duplicate_key.json": "a duplicate key is gone once the JSON is parsed",
    "state_duplicate_package.json": "two spellings of one normalised name",
    "state_cache_snapshot_missing.json": "a folder that does not exist",
    "state_repo_missing_dir.json": "a folder that does not exist",
    "state_gpu_both_roles.json": "one GPU in two lists",
    "state_wheel_pin_other_project.json": "a wheel name that must match the package and its version",
}
problems = []
bad_files = sorted(pathlib.Path(bad_dir).glob("state_*.json"))
assert len(bad_files) >= 40, len(bad_files)
for path in bad_files:
    try:
        doc = json.loads(path.read_text())
    except ValueError:
        if path.name not in beyond:
            problems.append(f"{path.name}: not JSON, yet not listed as beyond the schema")
        continue
    errors = list(validator.iter_errors(doc))
    if path.name in beyond and errors:
        problems.append(f"{path.name}: listed as beyond the schema ({beyond[path.name]}), but the schema rejects it: "
                        "take it off the list")
    elif path.name not in beyond and not errors:
        problems.append(f"{path.name}: the loader rejects it, the schema accepts it")
for path in sorted(pathlib.Path(good_dir).glob("*.json")):
    for error in validator.iter_errors(json.loads(path.read_text())):
        problems.append(f"{path.name}: the schema rejects a good state: {error.json_path}: {error.message[:200]}")
if problems:
    sys.exit("\n".join(problems))
print(f"{len(bad_files)} bad states rejected by the loader, {len(bad_files) - len(beyond)} by the schema too; "
      f"{len(list(pathlib.Path(good_dir).glob('*.json')))} good states accepted by both")
PY
