#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "env/requirement.hpp"

namespace envbisect {

// What a distribution is stored as where it was found.
enum class SourceKind { wheel, uv_archive };

// One exact build of a distribution, found in a source.
struct Distribution {
  std::string name;       // PEP 503 normalised
  std::string version;    // as written by the source (file name or METADATA), local label included
  SourceKind kind = SourceKind::wheel;
  std::string path;       // the .whl file, or the uv archive directory
  std::string dist_info;  // uv archives: the dist-info folder name; wheels: ""
  std::string tags;       // wheels: "py3-none-any"; uv archives: their WHEEL file's tags, space-separated ("" when none)
};

// Every build in a set of sources, by PEP 503 name, each list in list_distributions' order.
using SourceListing = std::unordered_map<std::string, std::vector<Distribution>>;

// Where distributions come from, searched in this order; never an index.
struct WheelSources {
  std::vector<std::string> wheel_dirs;  // folders of .whl files
  std::vector<std::string> uv_caches;   // uv cache roots (their archive-v0 holds unpacked wheels)
  // When set (index_sources), what the folders and caches held when it was read: a lookup is then a
  // hash probe, not a scan of every folder, so a plan over N packages costs O(N), not O(N^2).
  std::shared_ptr<const SourceListing> listing = nullptr;
};

// Return `sources` with their listing read now, every folder and cache read once.
WheelSources index_sources(WheelSources sources);

// Return "wheel PATH" or "uv cache archive PATH (DIST-INFO)" for messages.
std::string describe(const Distribution& dist);

// Return every build of `name` (PEP 503 compared) in the sources, wheel folders first, in the
// order found. Missing folders give nothing.
std::vector<Distribution> list_distributions(const WheelSources& sources, std::string_view name);

// What a state pins beyond the version: the wheel file (a file name, or a path) and its sha256.
struct WheelPin {
  std::string wheel;                // "" when not pinned
  std::string sha256;               // hex, "" when not pinned
  std::vector<std::string> hashes{};  // or: the sha256s (lower-case hex) one of which the file must have
  bool empty() const { return wheel.empty() && sha256.empty() && hashes.empty(); }
  // Return whether a file whose sha256 is `hex` may be this pin's build (any file when no hash is pinned).
  bool accepts_sha256(const std::string& hex) const;
  // Return whether the pin names the file's bytes: a sha256 or hashes.
  bool pins_bytes() const { return !sha256.empty() || !hashes.empty(); }
};

// Return the sha256 (lower-case hex) of the file at `path`. When `index_dir` is given, remember it
// there by the file's identity (path, size, mtime, inode) so that a 2 GB wheel is hashed once.
// Throw Error (bad_input) naming the file when it cannot be read.
std::string wheel_sha256(const std::string& path, const std::string& index_dir = "");

// Return the build of `name` whose version equals `version` exactly (PEP 440 normalised, local label
// included: "2.11.0+cu128" never matches "2.11.0+cu130" nor "2.11.0") that pip and uv would install
// into a standard CPython `python_version` ("3.11"; "" accepts every interpreter, the platform still
// counts) on Linux x86_64 with glibc 2.36 (wheel_tag_score): never a musllinux wheel, a manylinux one
// needing a newer glibc, another interpreter's, or a debug or free-threaded ABI; a uv archive by its
// WHEEL file's tags. Of those: wheel folders win over uv caches, then the tags pip and uv prefer
// (cpXY ABI over abi3 over none, a platform build over `any`, the newest manylinux that fits), then
// the highest build tag (PEP 427), then the first found. With a `pin`, only a wheel file can match:
// one named like pin.wheel (an existing absolute path is a source itself) and whose content hashes to
// pin.sha256; hashes are remembered in `index_dir` when given. Throw Error (bad_input) when
// `python_version` is not N.N or N.N.N.
std::optional<Distribution> find_distribution(const WheelSources& sources, std::string_view name,
                                              std::string_view version, std::string_view python_version,
                                              const WheelPin& pin = WheelPin{}, const std::string& index_dir = "");

// Return the METADATA of `dist`, read where it lies: from the wheel's central directory (nothing is
// unpacked) or the uv archive's dist-info folder. Throw Error when it cannot be read.
DistMetadata read_distribution_metadata(const Distribution& dist);

// Return the paths of the other builds find_distribution could have meant by `chosen`'s name and
// version for `python_version`: those that tie with `chosen` on their tags (a build that ranks lower
// is never taken while `chosen` is there) and hold other bytes: wheel files (when `chosen` is one) or
// uv archives with another RECORD (when it is one); copies of the same bytes are not listed. Hashes are
// remembered in `index_dir` when given.
std::vector<std::string> other_builds(const WheelSources& sources, const Distribution& chosen,
                                      std::string_view python_version, const std::string& index_dir = "");

// Return, for each build of `name`==`version` (PEP 440 compared) in the sources that
// find_distribution refuses for `python_version`, "PATH (tags TAGS): why" (wheel_misfit_reason), in
// list_distributions' order: for the messages that say a build was not found.
std::vector<std::string> misfit_builds(const WheelSources& sources, std::string_view name, std::string_view version,
                                       std::string_view python_version);

// Return the message for a pinned build that find_distribution did not find for `python_version`: the
// package, the version, the wheel file name and sha256 wanted, every folder and cache looked in, and
// the files of that version that CPython `python_version` cannot install, with why (misfit_builds).
std::string describe_missing_pin(const WheelSources& sources, std::string_view name, std::string_view version,
                                 const WheelPin& pin, std::string_view python_version);

// Return, for each file in the wheel folders that names itself a wheel of `name` but cannot be read as
// one, the file and why ("…/torch-2.11.0%2Bcu128-cp312-….whl: its name is URL-encoded (as saved from
// a download URL); rename it to torch-2.11.0+cu128-cp312-….whl"). Such files are never used: pip and
// uv refuse them too, and a name is not guessed. For the messages that say a build was not found.
std::vector<std::string> unreadable_wheel_files(const WheelSources& sources, std::string_view name);

}  // namespace envbisect
