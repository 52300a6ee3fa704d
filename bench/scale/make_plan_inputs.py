"""Write a planning fixture for bench/scale: N packages, 10 % of them changed between good and bad.

Usage: make_plan_inputs.py SRC OUT_DIR N
Writes OUT_DIR/{good,bad,recipe}.json and OUT_DIR/wheels/ (one small wheel per package build; every
fifth changed package also has a build between its ends, so it becomes an ordered axis; every tenth
changed package pins its neighbour exactly, so the two move together). Stdlib only.
"""
import json
import os
import sys

src, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, os.path.join(src, "scripts"))
from make_wheel import build_wheel  # noqa: E402

wheels = os.path.join(out, "wheels")
os.makedirs(wheels, exist_ok=True)
good, bad = {}, {}
changed = max(2, count // 10)
for i in range(count):
    name = f"pkg{i:05d}"
    files = {f"{name}/__init__.py": f"VALUE = {i}\n"}
    if i < changed:
        requires = []
        if i % 10 == 1:
            requires = [f"pkg{i - 1:05d}==1.2"]
        build_wheel(name, "1.0", files, wheels)
        build_wheel(name, "1.2", files, wheels, requires=requires)
        if i % 5 == 0:
            build_wheel(name, "1.1", files, wheels)
        good[name], bad[name] = "1.0", "1.2"
    else:
        build_wheel(name, "1.0", files, wheels)
        good[name] = bad[name] = "1.0"
for label, packages in (("good", good), ("bad", bad)):
    with open(os.path.join(out, f"{label}.json"), "w") as fh:
        json.dump({"format": 1, "name": label, "python": {"version": "3.11", "interpreter": "python3"},
                   "packages": packages}, fh)
with open(os.path.join(out, "recipe.json"), "w") as fh:
    json.dump({"format": 1, "name": "scale", "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "t",
               "repeats": 3, "timeout_s": 30}, fh)
