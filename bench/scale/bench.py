"""The orchestration of bench/scale/run.sh (see there). Stdlib only."""
import base64
import hashlib
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

src, build, py = sys.argv[1], sys.argv[2], sys.argv[3]
envbisect = os.path.join(build, "envbisect")
driver = os.path.join(build, "bench", "bench_materialize")
smoke = bool(os.environ.get("BENCH_SMOKE"))
work = tempfile.mkdtemp(prefix="envbisect-bench-scale-")
env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")


def timed(argv, **kw):
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter() - start


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    return path


def report(key, value, fmt="{:.3f}"):
    print(f"{key}: {fmt.format(value)}", flush=True)


# --- 1. Planning: `run --dry-run` over N packages, 10 % changed, median of 3 each. -------------------
plan_sizes = (50, 200, 500) if smoke else (250, 2000, 20000)
plan_s = {}
for n in plan_sizes:
    d = os.path.join(work, f"plan{n}")
    subprocess.run([py, os.path.join(src, "bench/scale/make_plan_inputs.py"), src, d, str(n)], check=True, env=env)
    argv = [envbisect, "run", f"{d}/good.json", f"{d}/bad.json", "--recipe", f"{d}/recipe.json", "--wheels",
            f"{d}/wheels", "--uv-cache", f"{d}/no-uv-cache", "--store", f"{d}/store", "--dry-run"]
    plan_s[n] = statistics.median(timed(argv) for _ in range(3))
    report(f"plan_s_{n}", plan_s[n])
    shutil.rmtree(d, ignore_errors=True)
xs = [math.log(n) for n in plan_sizes]
ys = [math.log(plan_s[n]) for n in plan_sizes]
mx, my = statistics.mean(xs), statistics.mean(ys)
report("plan_exponent", sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs), "{:.2f}")

# --- 2. Torch-scale wheels, deflated as real wheels are. --------------------------------------------
wheels = os.path.join(work, "wheels")
os.makedirs(wheels)
MODULE = '''"""Generated module {i}."""
import math


class Layer{i}:
    """A layer with a few methods, as a framework module has."""

    def __init__(self, width={w}):
        self.width = width
        self.weights = [math.sin(k) for k in range(width)]

    def forward(self, values):
        return [v * w + {i} for v, w in zip(values, self.weights)]

    def describe(self):
        return f"Layer{i}(width={{self.width}}, total={{sum(self.weights):.3f}})"


def helper_{i}(a, b=2, *rest, **options):
    if a > b:
        return [x for x in rest if x % 2] + sorted(options)
    while b > a:
        b -= 1
    return {{"a": a, "b": b, "rest": rest}}
'''


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(name, version, files):
    """A py3-none-any wheel holding `files` (archive name -> bytes), deflated, with a hashed RECORD."""
    info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: bench-scale\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = "".join(f"{path},{record_hash(data)},{len(data)}\n" for path, data in sorted(files.items()))
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    path = os.path.join(wheels, f"{name}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for arcname, data in sorted(files.items()):
            zf.writestr(arcname, data)
    return f"{name}=={version}"


def blob(megabytes, seed):
    """Half random, half zeros per MiB: deflates to about half, as shared objects do."""
    rng = hashlib.sha256(seed.encode()).digest()
    return b"".join(os.urandom(1 << 19) + rng * (1 << 14) for _ in range(megabytes))


big_modules, big_blobs, blob_mb = (300, 2, 1) if smoke else (5000, 8, 24)
cuda_wheels, cuda_mb = (1, 1) if smoke else (3, 32)
small_packages, small_modules = (5, 10) if smoke else (60, 40)
reqs = []
files = {}
imports = []
for i in range(big_modules):
    sub = f"sub{i // 100}"
    files[f"torchlike/{sub}/__init__.py"] = b""
    files[f"torchlike/{sub}/mod{i}.py"] = MODULE.format(i=i, w=i % 50 + 1).encode()
    imports.append(f"from torchlike.{sub} import mod{i}\n")
files["torchlike/__init__.py"] = "".join(imports).encode()
for b in range(big_blobs):
    files[f"torchlike/lib/libtorchlike_{b}.so"] = blob(blob_mb, f"torch{b}")
reqs.append(write_wheel("torchlike", "2.11.0", files))
for c in range(cuda_wheels):
    reqs.append(write_wheel(f"nvidia_like_{c}", "12.8.0", {f"nvidia_like_{c}/__init__.py": b"",
                                                           f"nvidia_like_{c}/lib/libcuda_{c}.so": blob(cuda_mb, f"cuda{c}"),
                                                           f"nvidia_like_{c}/lib/libextra_{c}.so": blob(cuda_mb, f"x{c}")}))
for p in range(small_packages):
    reqs.append(write_wheel(f"purepkg{p}", "1.0", {f"purepkg{p}/m{k}.py": MODULE.format(i=k, w=3).encode()
                                                   for k in range(small_modules)}))
reqs_file = os.path.join(work, "reqs.txt")
with open(reqs_file, "w") as fh:
    fh.write("\n".join(reqs) + "\n")
wheel_list = sorted(os.path.join(wheels, f) for f in os.listdir(wheels))
unpacked_mb = sum(sum(i.file_size for i in zipfile.ZipFile(w).infolist()) for w in wheel_list) / 1e6
file_count = sum(len(zipfile.ZipFile(w).infolist()) for w in wheel_list)
print(f"fixture: {len(wheel_list)} wheels, {file_count} files, {unpacked_mb:.0f} MB unpacked, "
      f"{sum(os.path.getsize(w) for w in wheel_list) / 1e6:.0f} MB of wheels; {os.cpu_count()} cores", flush=True)


def materialize(store, prefix, reps, *extra):
    """Materialize reqs `reps` times in one process; return the whole process's seconds and each rep's."""
    start = time.perf_counter()
    out = subprocess.run([driver, "materialize", store, py, wheels, reqs_file, prefix, str(reps), *extra],
                         check=True, env=env, capture_output=True, text=True).stdout
    return time.perf_counter() - start, [float(line.split()[1]) for line in out.splitlines()
                                         if line.startswith("materialize")]


def serial_unzip(dest):
    start = time.perf_counter()
    for w in wheel_list:
        subprocess.run(["unzip", "-q", "-o", w, "-d", dest], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def pip_install(env_dir, *flags):
    start = time.perf_counter()
    subprocess.run([py, "-m", "venv", "--without-pip", env_dir], check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run([py, "-m", "pip", "--isolated", "--python", os.path.join(env_dir, "bin", "python"), "install",
                    "-q", "--no-index", "--no-deps", *flags, "--find-links", wheels, *reqs],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def first_import(env_dir):
    return timed([os.path.join(env_dir, "bin", "python"), "-c", "import torchlike"])


# --- 3. Cold: a fresh store in a fresh process vs serial unzip of the same wheels (interleaved). ----
reps = 1 if smoke else 3
unzip_s, cold_s = [], []
for r in range(reps):
    unzip_s.append(serial_unzip(fresh(os.path.join(work, "unzip"))))
    fresh(os.path.join(work, "store-nopyc"))
    cold_s.append(materialize(os.path.join(work, "store-nopyc"), fresh(os.path.join(work, f"cold{r}")), 1,
                              "no-bytecode")[0])
    shutil.rmtree(os.path.join(work, f"cold{r}.1"), ignore_errors=True)
print(f"serial unzip: {statistics.median(unzip_s):.2f} s {unzip_s}; cold store, no bytecode: "
      f"{statistics.median(cold_s):.2f} s {cold_s}", flush=True)
report("cold_vs_unzip", statistics.median(cold_s) / statistics.median(unzip_s), "{:.2f}")
shutil.rmtree(os.path.join(work, "unzip"), ignore_errors=True)

# --- 4. Cold with bytecode vs pip with its .pyc step (one each: the slowest part). ------------------
pip_pyc_env = os.path.join(work, "pip-pyc")
pip_s = pip_install(pip_pyc_env)
cold_pyc_s, _ = materialize(os.path.join(work, "store"), os.path.join(work, "fill"), 1)
print(f"pip install with .pyc: {pip_s:.2f} s; cold store with bytecode: {cold_pyc_s:.2f} s", flush=True)
report("cold_pyc_vs_pip_pyc", cold_pyc_s / pip_s, "{:.2f}")

# --- 5. Warm: candidates from the filled store vs cp -al of a finished candidate. -------------------
_, warm = materialize(os.path.join(work, "store"), os.path.join(work, "warm"), 6)
warm_s = statistics.median(warm[1:])
cp_s = statistics.median(timed(["cp", "-al", os.path.join(work, "warm.1"), fresh(os.path.join(work, f"cpal{i}"))])
                         for i in range(5))
print(f"warm candidate: {warm_s * 1000:.1f} ms (median of {len(warm) - 1}); cp -al: {cp_s * 1000:.1f} ms", flush=True)
report("warm_vs_cp_al", warm_s / cp_s, "{:.2f}")

# --- 6. First import of the big package: fresh candidates (with and without the store's .pyc) vs
# fresh pip-installed envs with .pyc, each imported once. Everything is built first and written back
# (sync), then the three kinds are imported in turn, round by round, so background writeback and
# drift hit each alike.
_, _ = materialize(os.path.join(work, "store-nopyc"), os.path.join(work, "nopyc"), 3, "no-bytecode")
pip_envs = [pip_pyc_env] + [os.path.join(work, f"pip-pyc{i}") for i in range(2, 4)]
for pip_env in pip_envs[1:]:
    pip_install(pip_env)
os.sync()
ours, no_pyc, pip_first = [], [], []
for i in range(3):
    ours.append(first_import(os.path.join(work, f"warm.{2 + i % max(1, min(3, len(warm) - 1))}")))
    pip_first.append(first_import(pip_envs[i]))
    no_pyc.append(first_import(os.path.join(work, f"nopyc.{1 + i}")))
print(f"first import of torchlike: fresh candidate {statistics.median(ours):.3f} s {ours}, pip env with .pyc "
      f"{statistics.median(pip_first):.3f} s {pip_first}, candidate without .pyc {statistics.median(no_pyc):.3f} s",
      flush=True)
report("first_import_vs_pip_pyc", statistics.median(ours) / statistics.median(pip_first), "{:.2f}")
report("first_import_no_pyc_vs_pip_pyc", statistics.median(no_pyc) / statistics.median(pip_first), "{:.2f}")
shutil.rmtree(work, ignore_errors=True)
