#!/usr/bin/env python3
"""Copy a uv.lock and the pyproject.toml files `uv export --frozen` reads out of a git repository's
history into tests/uv_oracle/locks/NAME/REV/, and write the export cases for it to cases.txt.

usage: collect.py GIT_DIR NAME REV [REV ...]   (run from tests/uv_oracle)
"""
import os
import subprocess
import sys
import tomllib


def show(git_dir, rev, path):
    result = subprocess.run(["git", "--git-dir", git_dir, "show", f"{rev}:{path}"], capture_output=True)
    return result.stdout if result.returncode == 0 else None


def main():
    git_dir, name, revs = sys.argv[1], sys.argv[2], sys.argv[3:]
    cases = []
    for rev in revs:
        commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", rev], capture_output=True,
                                text=True, check=True).stdout.strip()
        short = commit[:12]
        out = os.path.join("locks", name, short)
        lock_bytes = show(git_dir, commit, "uv.lock")
        lock = tomllib.loads(lock_bytes.decode())
        files = {"uv.lock": lock_bytes}
        # The root pyproject.toml and every local package's: workspace discovery reads them.
        paths = {"."}
        for package in lock.get("package", []):
            source = package.get("source", {})
            for kind in ("editable", "virtual", "directory"):
                if kind in source and not source[kind].startswith(("/", "..")):
                    paths.add(os.path.normpath(source[kind]))
        for path in sorted(paths):
            text = show(git_dir, commit, os.path.join(path, "pyproject.toml") if path != "." else "pyproject.toml")
            if text is not None:
                files[os.path.join(path, "pyproject.toml") if path != "." else "pyproject.toml"] = text
        for rel, data in files.items():
            os.makedirs(os.path.dirname(os.path.join(out, rel)) or out, exist_ok=True)
            with open(os.path.join(out, rel), "wb") as f:
                f.write(data)
        root = tomllib.loads(files["pyproject.toml"].decode())
        project = root.get("project", {})
        extras = sorted(project.get("optional-dependencies", {}))
        groups = sorted(root.get("dependency-groups", {}))
        members = sorted(p["name"] for p in lock.get("package", [])
                         if ("editable" in p.get("source", {}) or "virtual" in p.get("source", {}))
                         and p["name"] != project.get("name"))
        workspace = len(lock.get("manifest", {}).get("members", [])) > 1
        flags = [("default", ""), ("no-dev", "--no-dev"), ("all-groups", "--all-groups"),
                 ("no-default-groups", "--no-default-groups"), ("all-extras", "--all-extras"),
                 ("all-extras-all-groups", "--all-extras --all-groups")]
        if workspace:
            flags += [("all-packages", "--all-packages"), ("all-packages-all-groups", "--all-packages --all-groups")]
            for member in members[:3]:
                flags.append((f"package-{member}", f"--package {member}"))
        for extra in extras[:6]:
            flags.append((f"extra-{extra}", f"--extra {extra}"))
        if len(extras) >= 2:
            flags.append((f"extra-{extras[0]}-{extras[1]}", f"--extra {extras[0]} --extra {extras[1]}"))
        for group in groups[:5]:
            flags.append((f"group-{group}", f"--group {group}"))
            flags.append((f"only-group-{group}", f"--only-group {group}"))
        for case, flag in flags:
            cases.append(f"{name} {short} {case} {flag}".rstrip())
        print(name, short, len(files), "files", len(flags), "cases", file=sys.stderr)
    with open("cases.txt", "a") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
