#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace envbisect {

// One installed distribution: a PEP 440 version (with its local label) and, optionally, the wheel.
struct PackagePin {
  std::string version;             // as written, e.g. "2.11.0+cu128"
  std::optional<std::string> wheel;   // a wheel file name or path the pin must come from
  std::optional<std::string> sha256;  // the wheel's sha256, hex
  std::vector<std::string> hashes{};  // or: the sha256s of a lock's files of this build (wheels, sdist), one of
                                      // which the wheel taken must have; sorted lower-case hex, never with sha256
  bool operator==(const PackagePin&) const = default;
};

// A source repository at one commit.
struct RepoPin {
  std::string path;    // local path (relative paths resolved against the state file's folder)
  std::string url;     // optional remote, informational
  std::string commit;  // as parsed: a commit id, tag, branch or revision; once resolved, the full commit id
  std::string ref{};   // once resolved: the text the state gave when it was not the full id; else empty
  std::string subdirectory{};  // the package's folder inside the repository (a lock's `subdirectory`); "" its root
  bool operator==(const RepoPin&) const = default;
};

// One compile cache: its role (inductor, triton, ...) and state ("cold", "warm" or a snapshot path).
struct CacheState {
  std::string role;
  std::string state;
  bool operator==(const CacheState&) const = default;
};

// The GPU split: which device indices run the target model and which the drafter.
struct GpuSplit {
  std::vector<int> target;
  std::vector<int> drafter;
  bool operator==(const GpuSplit&) const = default;
};

// The python interpreter a candidate's environment is made from.
struct PythonSpec {
  std::string version;      // e.g. "3.11"; empty when not pinned
  std::string interpreter;  // path or command name; empty means "python3"
  bool use_as_is = false;   // "venv": "none": run the interpreter itself, with what it has installed
  bool operator==(const PythonSpec&) const = default;
};

// The container base a candidate runs on (with --isolation): a rootfs folder or an image, and the
// Debian packages captured in it, so OS-level differences show (and move) as one delta.
struct ContainerBase {
  std::string base;                              // rootfs folder or image name; empty: none named
  std::map<std::string, std::string> packages;   // Debian package -> version, as dpkg-query lists them
  bool operator==(const ContainerBase&) const = default;
};

// A whole environment state, format v1 (docs/STATE.md). Maps keep names sorted, so diffs are stable.
struct EnvState {
  int format = 1;
  std::string name;
  std::string description;
  std::string base_dir;  // folder of the file it was loaded from; relative paths resolve against it
  PythonSpec python;
  std::map<std::string, PackagePin> packages;  // keys are PEP 503 normalised names
  std::map<std::string, RepoPin> repos;
  std::map<std::string, CacheState> caches;
  std::map<std::string, std::int64_t> threads;
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> data;  // values kept as text: "902087"
  GpuSplit gpus;
  ContainerBase container;
  // What the state does not know (k_unknowable_fields): compared and run, such a field takes the other
  // state's value. A state made from a lock or freeze knows its packages and repos, not the machine.
  std::set<std::string> unknown;
  bool operator==(const EnvState&) const = default;
};

// The fields a state may list as unknown, as a diff names them.
inline const std::set<std::string> k_unknowable_fields = {"python/version", "python/interpreter", "caches", "threads",
                                                           "env", "data", "gpus", "container"};

// Return the PEP 503 normalised form of a distribution name ("Foo_Bar.baz" -> "foo-bar-baz").
std::string normalize_package_name(std::string_view name);

// Return whether `name` is a PEP 508 distribution name: ASCII letters and digits, with . _ - inside.
bool is_valid_package_name(const std::string& name);

// Parse a state document. `source` names the file in messages. Collect every problem and throw one
// Error listing them all (each with file, JSON pointer and what was expected); exit code bad_input.
EnvState parse_state(const std::string& text, const std::string& source);

// Return the state as a JSON document in format v1 (inverse of parse_state, base_dir omitted).
nlohmann::json state_to_json(const EnvState& state);

}  // namespace envbisect
