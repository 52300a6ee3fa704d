#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/marker.hpp"

namespace envbisect {

// The formats a state can be made from (docs/INPUTS.md).
enum class LockFormat { uv_lock, pylock, requirements };

// One exact build a lock names for the target interpreter.
struct LockedPackage {
  std::string name;     // PEP 503 normalised
  std::string version;  // as the lock writes it, local label included ("2.11.0+cu128")
  std::string wheel;    // the wheel file chosen for the target, "" when the lock names none
  std::string sha256;   // that wheel's sha256 (hex), "" when the lock gives none
  std::vector<std::string> hashes;  // every sha256 the lock lists for this build (all wheels, the sdist), sorted
};

// A package a lock builds from source rather than pinning a build: a git commit or a local folder.
struct LockedRepo {
  std::string name;          // PEP 503 normalised
  std::string url;           // git: the repository's URL ("https://github.com/pytorch/torchtitan"); "" for a folder
  std::string commit;        // git: the full commit id the lock pins; "" for a folder
  std::string subdirectory;  // git: the package's folder inside the repository, "" for its root
  std::string path;          // a folder: as the lock writes it, relative to the lock's folder ("deps/verifiers")
  std::string kind;          // "git", "editable", "directory", "path", or "project": a root uv installs (the project itself)
};

// uv's choice of what a uv.lock installs, flags named as `uv sync` / `uv export` name them.
struct UvSelection {
  std::vector<std::string> packages;     // --package: these workspace members are the roots
  bool all_packages = false;             // --all-packages: every workspace member is a root
  std::vector<std::string> extras;       // --extra
  bool all_extras = false;               // --all-extras
  std::vector<std::string> no_extras;    // --no-extra (with --all-extras)
  std::vector<std::string> groups;       // --group
  std::vector<std::string> only_groups;  // --only-group: these groups, not the roots' own dependencies
  std::vector<std::string> no_groups;    // --no-group
  bool no_default_groups = false;        // --no-default-groups
  bool all_groups = false;               // --all-groups
  bool no_dev = false;                   // --no-dev
  bool only_dev = false;                 // --only-dev
};

// How to read a lock beyond its text.
struct LockOptions {
  UvSelection uv;
  // Return the text of a file beside the lock (a path relative to its folder: "pyproject.toml",
  // "packages/a/pyproject.toml"), nullopt when there is none. uv.lock reads the projects'
  // `tool.uv.default-groups` there; unset: no file is read.
  std::function<std::optional<std::string>(const std::string&)> read_beside;
};

// What a lock says for one target: its packages, sorted by name, and what was chosen or left out.
struct LockRead {
  std::vector<LockedPackage> packages;
  std::vector<LockedRepo> repos;   // git and local sources, sorted by name
  std::vector<std::string> notes;  // one line each: markers that left a package out, wheels chosen, ...
  std::string selection;           // uv.lock: the roots, groups and extras taken ("roots a; groups dev; extras gpu")
};

// Return the format of the lock file called `file_name`: uv.lock, pylock.toml / pylock.NAME.toml, or
// requirements (requirements.txt, constraints, `pip freeze` / `uv pip freeze` output: anything else).
LockFormat lock_format_of(const std::string& file_name);

// Read the exact builds `text` (a lock of `format`) names for `target`: markers are evaluated, the
// wheel that fits the interpreter and platform is chosen with its hash. `label` names the input in
// messages ("uv.lock at v1.4"). Throw Error (exit 2) naming the label and the place for malformed
// input, an entry without an exact version, or a package none of whose wheels fits the target.
LockRead read_lock(LockFormat format, const std::string& text, const std::string& label, const MarkerEnvironment& target,
                   const LockOptions& options = {});

// Return the Python version ("3.12") a lock is read for when none is given: the lowest 3.N its
// `requires-python` admits (uv.lock, pylock.toml); "" when it states none (requirements) or is not TOML.
std::string default_python_of(LockFormat format, const std::string& text);


}  // namespace envbisect
