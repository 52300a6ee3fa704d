#!/usr/bin/env python3
"""Build small, valid, byte-reproducible pure-Python wheels (stdlib only).

Used by the test fixtures: no PyPI here, so every package a benchmark environment needs is
built locally from sources kept in the repository.

Library:
    build_wheel(name, version, files, out_dir, requires=(), summary="") -> Path
    collect_dir(src_dir) -> dict[str, bytes]
    wheel_filename(name, version) -> str
CLI:
    make_wheel.py --name fauxtorch --version 2.11.0+cu128 --src DIR --out DIR
                  [--requires 'fauxtorch==2.11.0' ...] [--add ARCNAME=FILE ...] [--summary TEXT]

Determinism: entries are sorted, every entry gets the same timestamp (1980-01-01), the same
permissions and ZIP_STORED (no dependence on the zlib version), so the same inputs give
byte-identical wheels on any machine. An existing identical file is left untouched (its mtime
too), which keeps make-style callers idempotent.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import io
import os
import re
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Iterable, Mapping

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)
_SKIP_DIRS = {"__pycache__", ".git", ".build"}
_SKIP_SUFFIXES = (".pyc", ".pyo")
_VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[a-z0-9]+(\.[a-z0-9]+)*)?$")
_NAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")


def normalize_name(name: str) -> str:
    """Returns the PEP 503 normalised distribution name (lower case, runs of -_. become -)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _escaped_name(name: str) -> str:
    # Wheel file names and .dist-info folders use the name with '-' replaced by '_'.
    return re.sub(r"[-_.]+", "_", name).lower()


def wheel_filename(name: str, version: str) -> str:
    """Returns the file name of a pure-Python wheel, e.g. fauxtorch-2.11.0+cu128-py3-none-any.whl."""
    return f"{_escaped_name(name)}-{version}-py3-none-any.whl"


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def collect_dir(src_dir: str | os.PathLike) -> dict[str, bytes]:
    """Reads every file under src_dir (skipping caches) into {posix relative path: bytes}."""
    root = Path(src_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"source directory not found: {root}")
    files: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for fname in sorted(filenames):
            if fname.endswith(_SKIP_SUFFIXES):
                continue
            path = Path(dirpath) / fname
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def _metadata(name: str, version: str, requires: Iterable[str], summary: str) -> bytes:
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if summary:
        lines.append(f"Summary: {summary}")
    lines += [f"Requires-Dist: {req}" for req in requires]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _wheel_file() -> bytes:
    return b"Wheel-Version: 1.0\nGenerator: envbisect-make_wheel 1\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def wheel_bytes(name: str, version: str, files: Mapping[str, bytes | str],
                requires: Iterable[str] = (), summary: str = "") -> bytes:
    """Returns the bytes of the wheel holding files plus its dist-info (deterministic)."""
    if not _NAME_RE.match(name):
        raise ValueError(f"invalid distribution name: {name!r}")
    if not _VERSION_RE.match(version):
        raise ValueError(f"invalid or non-normalised version: {version!r}")
    dist_info = f"{_escaped_name(name)}-{version}.dist-info"
    entries: dict[str, bytes] = {}
    for arcname, data in files.items():
        arcname = arcname.replace(os.sep, "/").lstrip("/")
        if arcname.startswith(dist_info + "/") or ".." in arcname.split("/"):
            raise ValueError(f"refusing file path in wheel: {arcname!r}")
        entries[arcname] = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    entries[f"{dist_info}/METADATA"] = _metadata(name, version, list(requires), summary)
    entries[f"{dist_info}/WHEEL"] = _wheel_file()
    record_name = f"{dist_info}/RECORD"
    record_lines = [f"{arc},{_record_hash(data)},{len(data)}" for arc, data in sorted(entries.items())]
    record_lines.append(f"{record_name},,")
    entries[record_name] = ("\n".join(record_lines) + "\n").encode("utf-8")

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        # RECORD last, as wheel tools write it; all others sorted.
        order = sorted(a for a in entries if a != record_name) + [record_name]
        for arc in order:
            info = zipfile.ZipInfo(arc, date_time=_FIXED_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            zf.writestr(info, entries[arc])
    return buf.getvalue()


def build_wheel(name: str, version: str, files: Mapping[str, bytes | str], out_dir: str | os.PathLike,
                requires: Iterable[str] = (), summary: str = "") -> Path:
    """Writes the wheel into out_dir (atomically; untouched if already identical) and returns its path."""
    data = wheel_bytes(name, version, files, requires, summary)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / wheel_filename(name, version)
    if target.is_file() and target.read_bytes() == data:
        return target
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".whl", dir=out)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--src", help="directory whose contents become the wheel's top level")
    parser.add_argument("--add", action="append", default=[], metavar="ARCNAME=FILE",
                        help="add (or replace) one file at ARCNAME")
    parser.add_argument("--requires", action="append", default=[], metavar="REQ")
    parser.add_argument("--summary", default="")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    files: dict[str, bytes] = collect_dir(args.src) if args.src else {}
    for spec in args.add:
        arcname, sep, path = spec.partition("=")
        if not sep or not arcname:
            parser.error(f"--add wants ARCNAME=FILE, got {spec!r}")
        files[arcname] = Path(path).read_bytes()
    if not files:
        parser.error("nothing to package: give --src or --add")
    try:
        print(build_wheel(args.name, args.version, files, args.out, args.requires, args.summary))
    except (OSError, ValueError) as err:
        print(f"make_wheel: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
