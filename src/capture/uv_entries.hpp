#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "capture/lock_parts.hpp"

// The entries of a uv.lock: each [[package]] with its source, hashes and wheels (uv_lock.cpp reads
// which of them a selection installs).
namespace envbisect::lock_parts {

// One [[package]] entry of a uv.lock.
struct UvEntry {
  const toml::table* table;
  std::string name;          // normalised (PEP 503)
  std::string version;
  std::string where;         // its place in the file, for messages ("/package/12")
  std::string source_kind;   // registry, url, git, editable, virtual, directory, path ("" when not given)
  std::string source_value;
};

// Return a source table as one comparable line ("git=URL;"); "" for none.
std::string source_text(const toml::table* source);

// Return the strings of a TOML array; other items and a missing array give none.
std::vector<std::string> string_array(const toml::array* array);

// Return the lock's [[package]] entries, each with its normalised name, version, source and place.
// Throw Error naming `label` for a file that is not a uv.lock.
std::vector<UvEntry> uv_entries(const toml::table& lock, const std::string& label);

// Return whether `entry` is built from a local folder (editable, virtual, directory, or a path that
// is no wheel or sdist file).
bool is_local(const UvEntry& entry);

// Return `tool.uv.default-groups` of the pyproject.toml at `folder` ("." for the lock's own), read
// through `options.read_beside`: its list, or every group of `all` for "all"; uv's default, ["dev"],
// when the file or the field is absent (with a note for a missing file). Throw Error for bad TOML.
std::vector<std::string> default_groups(const LockOptions& options, const std::string& folder,
                                        const std::vector<std::string>& all, const std::string& label,
                                        std::vector<std::string>& notes);

// Split a uv git source ("https://github.com/o/r?rev=main#0123abcd…") into a repo. Throw Error naming
// `label` when it names no commit.
LockedRepo git_repo(const UvEntry& entry, const std::string& label);

// Return every sha256 the lock lists for `entry` (wheels, sdist), sorted and unique.
std::vector<std::string> entry_hashes(const UvEntry& entry, const std::string& label);

// Return the wheels `entry` offers: each one's file name (from its url, path or filename) and sha256.
std::vector<OfferedWheel> uv_wheels(const UvEntry& entry, const std::string& label);

}  // namespace envbisect::lock_parts
