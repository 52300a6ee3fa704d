#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "capture/lockfile.hpp"
#include "core/marker.hpp"

// Pieces the lock readers (lockfile.cpp, uv_lock.cpp) share.
namespace envbisect::lock_parts {

// Throw Error (exit 2) "LABEL: WHERE: WHAT".
[[noreturn]] void fail(const std::string& label, const std::string& where, const std::string& what);

// Return whether `marker` holds for `target`; throw Error naming the file and place when it cannot be read.
bool marker_holds(const std::string& marker, const MarkerEnvironment& target, const std::string& label,
                  const std::string& where);

// Return the file name at the end of a URL or path ("…/torch-2.11.0%2Bcu128-cp312-….whl#sha256=…"), decoded.
std::string file_name_of(const std::string& url);

// Return the hex of "sha256:<hex>" in lower case, "" for other algorithms; throw Error for a bad sha256.
std::string sha256_of(const std::string& hash, const std::string& label, const std::string& where);

// Throw Error when `version` is not PEP 440.
void check_version(const std::string& version, const std::string& label, const std::string& where);

// Return the string at `node`, "" when it is absent or not a string.
std::string get_string(const toml::node_view<const toml::node>& node);

// A wheel a lock offers for a package.
struct OfferedWheel {
  std::string file;
  std::string sha256;
};

// Whether a lock offers a package's sdist besides its wheels.
enum class Sdist { offered, none };

// Return whether the lock's package table `package` offers an sdist (has an `sdist` key).
Sdist sdist_in(const toml::table& package);

// Choose the wheel of `wheels` that fits `target` best into `package`; with none fitting, note that
// the sdist is taken when `sdist` is offered, else throw Error listing each wheel and why, with a hint
// naming a Python version some wheel fits.
void choose_wheel(LockedPackage& package, const std::vector<OfferedWheel>& wheels, Sdist sdist,
                  const MarkerEnvironment& target, const std::string& label, const std::string& where,
                  std::vector<std::string>& notes);

// Read the uv.lock `lock` for `target` with uv's semantics (docs/INPUTS.md): roots, groups, extras,
// conflict markers. Throw Error (exit 2) naming the label and place for malformed input, a flag naming
// what the lock lacks, or extras and groups the lock declares in conflict.
LockRead read_uv_lock(const toml::table& lock, const std::string& label, const MarkerEnvironment& target,
                      const LockOptions& options);

// Sort `read`'s packages and repos by name; throw Error naming `label` when a package is there twice.
void finish_read(LockRead& read, const std::string& label);

}  // namespace envbisect::lock_parts
