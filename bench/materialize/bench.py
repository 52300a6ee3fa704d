"""The orchestration of bench/materialize/run.sh (see there). Stdlib only."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

src, driver, py, pip_reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, os.path.join(src, "scripts"))
from make_wheel import build_wheel  # noqa: E402

work = tempfile.mkdtemp(prefix="envbisect-bench-materialize-")
wheels = os.path.join(work, "wheels")
env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")


def timed(argv, **kw):
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter() - start


# 50 wheels, 3000 package files in all: a few big ones (like torch), many small; pinned pairs.
# BENCH_SMOKE=1 (CI): 10 small wheels and fewer repetitions, only to prove the bench still runs.
smoke = bool(os.environ.get("BENCH_SMOKE"))
sizes = [120, 60] + [4] * 8 if smoke else [1200, 600, 300, 150] + [16] * 46
if smoke:
    pip_reps = 1
reqs = []
for i, n in enumerate(sizes):
    name = f"benchpkg{i:02d}"
    version = "2.11.0+cu128" if i == 0 else "1.0"
    files = {f"{name}/__init__.py": f"VALUE = {i}\n"}
    for k in range(n - 1):
        files[f"{name}/sub{k // 100}/mod{k}.py"] = f"X = {k}\n" + "# padding\n" * (k % 40)
    requires = [f"benchpkg{i + 1:02d}==1.0"] if i % 10 == 1 and i + 1 < len(sizes) else []
    if i == 1:
        requires.append("benchpkg00==2.11.0")
    build_wheel(name, version, files, wheels, requires=requires)
    reqs.append(f"{name}=={version}")
reqs_file = os.path.join(work, "reqs.txt")
with open(reqs_file, "w") as fh:
    fh.write("\n".join(reqs) + "\n")
print(f"fixture: {len(sizes)} wheels, {sum(sizes)} package files, in {wheels}")


def pip_build(env_dir, with_pip):
    """python -m venv + pip install --no-index of the same wheels; returns seconds."""
    start = time.perf_counter()
    if with_pip:
        subprocess.run([py, "-m", "venv", env_dir], check=True, env=env, stdout=subprocess.DEVNULL)
        argv = [os.path.join(env_dir, "bin", "python"), "-m", "pip", "--isolated", "install", "-q", "--no-index"]
    else:
        subprocess.run([py, "-m", "venv", "--without-pip", env_dir], check=True, env=env, stdout=subprocess.DEVNULL)
        argv = [py, "-m", "pip", "--isolated", "--python", os.path.join(env_dir, "bin", "python"), "install", "-q", "--no-index"]
    subprocess.run(argv + ["--find-links", wheels] + reqs, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def materialize(store, prefix, reps):
    out = subprocess.run([driver, "materialize", store, py, wheels, reqs_file, prefix, str(reps)],
                         check=True, env=env, capture_output=True, text=True).stdout
    return [float(line.split()[1]) for line in out.splitlines() if line.startswith("materialize")]


# Baselines: pip into a --without-pip venv (what build_venv does; the faster pip path) and the
# literal `python -m venv` (with pip) + pip install.
pip_times = [pip_build(os.path.join(work, f"pip-{i}"), with_pip=False) for i in range(pip_reps)]
pip_full = pip_build(os.path.join(work, "pip-full"), with_pip=True)
pip_median = statistics.median(pip_times)

# Cold store: a fresh store and a fresh process (skeleton, interpreter probe and every unpack included).
cold_store = os.path.join(work, "store-cold")
cold = [materialize(cold_store + str(i), os.path.join(work, f"cold{i}"), 1)[0] for i in range(pip_reps)]
cold_median = statistics.median(cold)

# Warm store: one process, 11 candidates; the first also probes the interpreter.
warm_store = os.path.join(work, "store-warm")
materialize(warm_store, os.path.join(work, "fill"), 1)
warm = materialize(warm_store, os.path.join(work, "warm"), 3 if smoke else 11)
warm_first, warm_median = warm[0], statistics.median(warm[1:])

# The cp -al floor: hard-link copies of the very same finished environment tree.
cp_times = [timed(["cp", "-al", os.path.join(work, "warm.1"), os.path.join(work, f"cpal-{i}")]) for i in range(7)]
cp_median = statistics.median(cp_times)

# Warm cache snapshot: an inductor-like cache tree (2000 files), copied by copy_tree with real copies
# (env/warm_cache.cpp's fallback where neither a reflink nor an overlay is available) vs `cp -a`.
cache = os.path.join(work, "cache")
for k in range(200 if smoke else 2000):
    d = os.path.join(cache, f"{k % 64:02x}", f"k{k // 64}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"entry{k}.bin"), "wb") as fh:
        fh.write(os.urandom(256 + k % 4096))
snap = []
for i in range(7):
    out = subprocess.run([driver, "copy-tree", cache, os.path.join(work, f"snap-{i}")], check=True, env=env,
                         capture_output=True, text=True).stdout
    snap.append(float(out.split()[1]))
snap_cp = [timed(["cp", "-a", cache, os.path.join(work, f"snapcp-{i}")]) for i in range(7)]

print(f"pip (venv --without-pip + pip --python, median of {pip_reps}): {pip_median:.3f} s")
print(f"pip (python -m venv with pip + pip install, 1 run):     {pip_full:.3f} s")
print(f"store cold (fresh store, fresh process, median of {pip_reps}): {cold_median:.3f} s  {cold}")
print(f"store warm (median of 10, one process):             {warm_median * 1000:.1f} ms  (first in process {warm_first * 1000:.1f} ms)")
print(f"cp -al of the same env tree (median of 7):           {cp_median * 1000:.1f} ms")
print(f"cache snapshot copy_tree, real copies (median of 7): {statistics.median(snap) * 1000:.1f} ms")
print(f"cache snapshot cp -a (median of 7):                  {statistics.median(snap_cp) * 1000:.1f} ms")
print(f"speedup_vs_full_venv_pip: {pip_full / warm_median:.1f}")
print(f"snapshot_ratio_to_cp_a: {statistics.median(snap) / statistics.median(snap_cp):.2f}")
shutil.rmtree(work, ignore_errors=True)
print(f"speedup_vs_pip: {pip_median / warm_median:.1f}")
print(f"ratio_to_cp_al: {warm_median / cp_median:.2f}")
print(f"cold_vs_pip: {cold_median / pip_median:.2f}")
