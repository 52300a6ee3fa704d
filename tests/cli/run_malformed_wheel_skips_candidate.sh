#!/usr/bin/env bash
# Malformed wheels among the versions being bisected (a file that is also a folder, a console script
# named "..", a symlink entry with children, a "../" path, a file changed after the wheel was built so
# that it no longer matches its RECORD) make those candidates untestable (skip,
# with the reason in the journal) and the search goes on: the run ends with its answer, not exit 4,
# and so does its resume.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
mkdir -p "$W"
"$PY" - "$W" <<'PY'
import base64, hashlib, sys, zipfile
out = sys.argv[1]
def wheel(version, extra, slow=False, changed=False):
    di = f"p-{version}.dist-info/"
    files = {"p/__init__.py": f"SLOW = {slow}\ndef main():\n    pass\n",
             di + "METADATA": f"Metadata-Version: 2.1\nName: p\nVersion: {version}\n",
             di + "WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    with zipfile.ZipFile(f"{out}/p-{version}-py3-none-any.whl", "w") as z:
        record = ""
        for name, text in list(files.items()) + extra:
            info = zipfile.ZipInfo(name[0] if isinstance(name, tuple) else name)
            info.external_attr = (name[1] if isinstance(name, tuple) else 0o100644) << 16
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record += f"{info.filename},sha256={digest},{len(text.encode())}\n" if changed else ""
            z.writestr(info, text + ("# changed after the build\n" if changed and name == "p/__init__.py" else ""))
        z.writestr(di + "RECORD", record)
wheel("1.0", [])
wheel("2.0", [("p/a", "file"), ("p/a/b.py", "child")])
wheel("3.0", [("p-3.0.dist-info/entry_points.txt", "[console_scripts]\n.. = p:main\n")])
wheel("4.0", [(("p/link", 0o120777), "/etc"), ("p/link/passwd", "child")])
wheel("5.0", [("p/../../evil.py", "x")])
wheel("5.5", [], changed=True)
wheel("6.0", [], slow=True)
PY
cat >"$T/bench.py" <<'PY'
import json, os, p, time
if os.path.exists(os.path.join(os.path.dirname(__file__), "slow-runs")):
    time.sleep(0.3)  # the budgeted run below: its anchors alone take longer than its budget
print(json.dumps({"m": (200.0 if p.SLOW else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "6.0"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 || $rc -eq 1 ]] || { echo "expected the search to finish (exit 0 or 1), got $rc"; cat "$T/err.txt"; exit 1; }
expect_contains "$T/out.txt" "packages/p"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
failed = [r["reason"] for r in records if r["type"] == "build" and not r["ok"]]
skips = [r["error_class"] for r in records if r["type"] == "attempt" and r["status"] == "skip"]
assert failed and len(skips) == len(failed), (failed, skips)
expected = {"2.0": "is both a file and a folder", "3.0": "'..' is not a file name",
            "4.0": "is both a file and a folder", "5.0": "refusing entry",
            "5.5": "p/__init__.py: its sha256 is"}
for reason in failed:
    version = [v for v in expected if f"p-{v}" in reason or f"p {v}" in reason]
    assert version and expected[version[0]] in reason, reason
assert all(s.startswith("environment: ") for s in skips), skips
assert any("p-5.5" in reason for reason in failed), failed  # between 5.0 and 6.0: always built
PY
rc2=0
"$ENVBISECT" resume "$T/run" >"$T/resume.txt" 2>"$T/resume.err" || rc2=$?
[[ $rc2 -eq $rc ]] || { echo "resume exited $rc2, the run $rc"; cat "$T/resume.err"; exit 1; }

# The same run stopped early (at its --budget, after the anchors) leaves the malformed versions to
# `resume`: it builds them, skips them with their reasons and finishes the search (never exit 4).
# Each run takes 0.3 s here, so the budget stops it on any machine before a malformed version is built
# (with runs of a few milliseconds a quiet machine got past the anchors within the second).
touch "$T/slow-runs"
rc3=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store2" \
  --no-probe --budget 1s --out "$T/run2" >"$T/out3.txt" 2>"$T/err3.txt" || rc3=$?
[[ $rc3 -eq 1 ]] || { echo "expected the budget to stop the run (exit 1), got $rc3"; cat "$T/out3.txt" "$T/err3.txt"; exit 1; }
not grep -q '"ok":false' "$T/run2/journal.jsonl"  # nothing malformed was built before the stop
rm "$T/slow-runs"
rc4=0
"$ENVBISECT" resume "$T/run2" >"$T/resume2.txt" 2>"$T/resume2.err" || rc4=$?
[[ $rc4 -eq 0 || $rc4 -eq 1 ]] || { echo "resume after the budget: expected exit 0 or 1, got $rc4"; cat "$T/resume2.err"; exit 1; }
grep -q '"ok":false' "$T/run2/journal.jsonl" || { echo "resume built no malformed version"; exit 1; }
expect_contains "$T/resume2.txt" "packages/p"
