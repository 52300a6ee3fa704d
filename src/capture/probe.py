# envbisect capture probe: run by the target interpreter as `python -c THIS_FILE CONFIG_JSON`.
# Prints one JSON document on stdout describing what this interpreter and this machine hold.
# Standard library only; every section fails soft (an "error" field) so a capture never dies here.
import hashlib
import json
import os
import platform
import re
import socket
import subprocess
import sys
import time

CONFIG = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
# A `-c` script gets the working directory on sys.path: a stray *.dist-info there is no package.
sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_text(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def packages():
    import importlib.metadata as metadata
    seen = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if not name:
            continue
        key = normalize(name)
        path = str(getattr(dist, "_path", ""))
        if key in seen:
            seen[key].setdefault("shadowed", []).append(path)
            continue
        entry = {"name": name, "version": dist.version, "dist_info": path}
        try:
            entry["mtime"] = os.stat(path).st_mtime
        except OSError:
            entry["mtime"] = None
        installer = dist.read_text("INSTALLER")
        entry["installer"] = installer.strip() if installer else None
        direct_url = dist.read_text("direct_url.json")
        try:
            entry["direct_url"] = json.loads(direct_url) if direct_url else None
        except ValueError:
            entry["direct_url"] = {"unparsed": direct_url}
        record = os.path.join(path, "RECORD")
        entry["record_sha256"] = file_sha256(record) if os.path.isfile(record) else None
        entry["requested"] = os.path.isfile(os.path.join(path, "REQUESTED"))
        # The names it needs whatever extras are asked for (an installer's own packages stay out
        # of the state unless something installed needs them).
        needs = []
        for requirement in dist.requires or []:
            if "extra" in requirement.partition(";")[2]:
                continue
            match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
            if match:
                needs.append(normalize(match.group(1)))
        entry["requires"] = needs
        seen[key] = entry
    return seen


def torch_facts():
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        return None
    facts = {}
    try:
        import torch
    except Exception as error:  # a broken torch is a fact worth recording
        return {"import_error": "%s: %s" % (type(error).__name__, error)}
    facts["version"] = str(torch.__version__)
    facts["git_version"] = getattr(torch.version, "git_version", None)
    facts["cuda"] = getattr(torch.version, "cuda", None)
    facts["hip"] = getattr(torch.version, "hip", None)
    for key, call in (("cudnn", lambda: torch.backends.cudnn.version()),
                      ("nccl", lambda: ".".join(str(p) for p in torch.cuda.nccl.version())),
                      ("cuda_available", lambda: torch.cuda.is_available())):
        try:
            facts[key] = call()
        except Exception as error:
            facts[key] = None
            facts.setdefault("errors", {})[key] = "%s: %s" % (type(error).__name__, error)
    try:
        import triton
        facts["triton"] = str(triton.__version__)
    except Exception:
        facts["triton"] = None
    # Inductor settings that change the code torch.compile generates or whether caches are used.
    inductor = {}
    try:
        from torch._inductor import config as ic
        for name in ("max_autotune", "max_autotune_gemm", "max_autotune_pointwise", "coordinate_descent_tuning",
                     "freezing", "fx_graph_cache", "fx_graph_remote_cache", "autotune_local_cache",
                     "force_disable_caches", "compile_threads", "epilogue_fusion", "pattern_matcher",
                     "triton.cudagraphs", "triton.unique_kernel_names", "cpp.threads", "cpp_wrapper",
                     "benchmark_kernel", "fallback_random"):
            obj = ic
            try:
                for part in name.split("."):
                    obj = getattr(obj, part)
            except AttributeError:
                continue
            if isinstance(obj, (bool, int, float, str)) or obj is None:
                inductor[name] = obj
    except Exception as error:
        inductor["error"] = "%s: %s" % (type(error).__name__, error)
    facts["inductor"] = inductor
    return facts


def scan_dir(path):
    """Files under path: count, bytes, oldest/newest mtime, a content hash over (relative path, sha256)."""
    out = {"path": path, "exists": os.path.isdir(path), "entries": 0, "bytes": 0,
           "oldest": None, "newest": None, "content_sha256": None}
    if not out["exists"]:
        return out
    listing = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            try:
                info = os.lstat(full)
            except OSError:
                continue
            if not os.path.isfile(full) or os.path.islink(full):
                continue
            rel = os.path.relpath(full, path)
            try:
                digest = file_sha256(full)
            except OSError:
                digest = "unreadable"
            listing.append((rel, digest))
            out["entries"] += 1
            out["bytes"] += info.st_size
            out["oldest"] = info.st_mtime if out["oldest"] is None else min(out["oldest"], info.st_mtime)
            out["newest"] = info.st_mtime if out["newest"] is None else max(out["newest"], info.st_mtime)
    whole = hashlib.sha256()
    for rel, digest in sorted(listing):
        whole.update(("%s\0%s\n" % (rel, digest)).encode("utf-8", "surrogateescape"))
    out["content_sha256"] = whole.hexdigest()
    return out


def default_cache_dirs():
    import getpass
    import tempfile
    try:
        user = getpass.getuser()
    except Exception:
        user = "unknown"
    inductor = os.environ.get("TORCHINDUCTOR_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "torchinductor_" + user)
    triton_home = os.environ.get("TRITON_HOME") or os.path.expanduser("~")
    triton = os.environ.get("TRITON_CACHE_DIR") or os.path.join(triton_home, ".triton", "cache")
    return {"inductor": inductor, "triton": triton}


def list_entries(path, suffix=None):
    """Immediate entries of path with their mtimes (files and folders), sorted by name."""
    out = []
    try:
        names = sorted(os.listdir(path))
    except OSError as error:
        return {"path": path, "error": str(error), "entries": []}
    for name in names:
        if suffix and not name.endswith(suffix):
            continue
        try:
            out.append({"name": name, "mtime": os.stat(os.path.join(path, name)).st_mtime})
        except OSError:
            continue
    return {"path": path, "entries": out}


def uv_cache(path):
    """Unpacked wheels in uv's cache: archive-v0/<key>/<name>-<version>.dist-info."""
    if not path:
        base = os.environ.get("UV_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "uv")
        if not os.path.isdir(base):
            return None
        path = base
    out = {"path": path, "exists": os.path.isdir(path), "dist_infos": []}
    archive = os.path.join(path, "archive-v0")
    try:
        keys = sorted(os.listdir(archive))
    except OSError:
        return out
    for key in keys:
        folder = os.path.join(archive, key)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info"):
                full = os.path.join(folder, name)
                try:
                    mtime = os.stat(full).st_mtime
                except OSError:
                    mtime = None
                out["dist_infos"].append({"name": name, "path": full, "mtime": mtime})
    return out


def gpus():
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if folder and os.access(os.path.join(folder, "nvidia-smi"), os.X_OK):
            break
    else:
        return None
    fields = ["index", "name", "uuid", "driver_version", "memory.total", "pci.bus_id"]
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              timeout=30, universal_newlines=True)
    except Exception as error:
        return {"error": "%s: %s" % (type(error).__name__, error)}
    if done.returncode != 0:
        return {"error": "nvidia-smi exited %d: %s" % (done.returncode, done.stderr.strip()[-500:])}
    rows = []
    for line in done.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == len(fields):
            row = dict(zip(fields, parts))
            row["index"] = int(row["index"]) if row["index"].isdigit() else row["index"]
            rows.append(row)
    return {"devices": rows}


def git_repos(paths):
    """HEAD, branch and dirty files through the git CLI (used when envbisect cannot read the disk itself)."""
    out = {}
    for name, path in sorted(paths.items()):
        entry = {"path": path}
        try:
            def git(*args):
                return subprocess.run(["git", "-C", path] + list(args), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                      universal_newlines=True, timeout=60)
            head = git("rev-parse", "--verify", "HEAD")
            if head.returncode != 0:
                entry["error"] = head.stderr.strip()
            else:
                entry["head"] = head.stdout.strip()
                branch = git("symbolic-ref", "--quiet", "--short", "HEAD")
                entry["branch"] = branch.stdout.strip() if branch.returncode == 0 else None
                url = git("config", "--get", "remote.origin.url")
                entry["url"] = url.stdout.strip() if url.returncode == 0 else None
                status = git("status", "--porcelain=v1", "-z", "--untracked-files=all")
                items = [s for s in status.stdout.split("\0") if s]
                dirty, skip = [], False
                for item in items:
                    if skip:
                        skip = False
                        continue
                    if item[:1] in ("R", "C"):
                        skip = True  # a rename's second record is the old path
                    dirty.append(item[3:])
                entry["dirty"] = sorted(set(dirty))
        except Exception as error:
            entry["error"] = "%s: %s" % (type(error).__name__, error)
        out[name] = entry
    return out


def section(result, key, call):
    try:
        result[key] = call()
    except Exception as error:
        result[key] = {"error": "%s: %s" % (type(error).__name__, error)}


def main():
    result = {"probe": 1}
    now = time.time()
    result["time"] = now
    result["python"] = {
        "executable": sys.executable, "version": platform.python_version(),
        "implementation": platform.python_implementation(), "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "base_executable": getattr(sys, "_base_executable", sys.executable),
        "in_venv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),
    }
    try:
        affinity = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        affinity = None
    result["host"] = {"hostname": socket.gethostname(), "platform": platform.platform(),
                      "cpu_count": os.cpu_count(), "affinity": affinity}
    prefixes = tuple(CONFIG.get("env_prefixes", []))
    names = set(CONFIG.get("env_names", []))
    result["env"] = {k: v for k, v in sorted(os.environ.items()) if k.startswith(prefixes) or k in names}
    section(result, "packages", packages)
    if CONFIG.get("torch", True):
        section(result, "torch", torch_facts)
    dirs = default_cache_dirs()
    result["caches"] = {}
    for name, path in sorted(dirs.items()):
        section(result["caches"], name, lambda p=path: scan_dir(p))
    section(result, "gpus", gpus)
    if CONFIG.get("git_repos"):
        section(result, "repos", lambda: git_repos(CONFIG["git_repos"]))
    if CONFIG.get("checkpoints"):
        section(result, "checkpoints", lambda: list_entries(CONFIG["checkpoints"]))
    if CONFIG.get("timeline"):
        section(result, "uv_cache", lambda: uv_cache(CONFIG.get("uv_cache")))
        result["wheel_dirs"] = [list_entries(d, ".whl") for d in CONFIG.get("wheel_dirs", [])]
    sys.stdout.write(json.dumps(result, sort_keys=True) + "\n")


main()
