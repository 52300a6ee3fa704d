#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// Where distributions come from, searched in this order; never an index.
struct WheelSources {
  std::vector<std::string> wheel_dirs;  // folders of .whl files
  std::vector<std::string> uv_caches;   // uv cache roots (their archive-v0 holds unpacked wheels)
};

// What a distribution is stored as where it was found.
enum class SourceKind { wheel, uv_archive };

// One exact build of a distribution, found in a source.
struct Distribution {
  std::string name;       // PEP 503 normalised
  std::string version;    // as written by the source (file name or METADATA), local label included
  SourceKind kind = SourceKind::wheel;
  std::string path;       // the .whl file, or the uv archive directory
  std::string dist_info;  // uv archives: the dist-info folder name; wheels: ""
  std::string tags;       // wheels: "py3-none-any"; uv archives: ""
};

// Return "wheel PATH" or "uv cache archive PATH (DIST-INFO)" for messages.
std::string describe(const Distribution& dist);

// Return every build of `name` (PEP 503 compared) in the sources, wheel folders first, in the
// order found. Missing folders give nothing.
std::vector<Distribution> list_distributions(const WheelSources& sources, std::string_view name);

// Return whether a wheel's tags ("cp311-cp311-manylinux_2_28_x86_64") can be installed into CPython
// `python_version` ("3.11") on Linux x86_64; an empty version accepts every python tag.
bool wheel_tags_compatible(std::string_view tags, std::string_view python_version);

// Return the build of `name` whose version equals `version` exactly (PEP 440 normalised, local label
// included: "2.11.0+cu128" never matches "2.11.0+cu130" nor "2.11.0") and that suits
// `python_version`; wheel folders win over uv caches, then the first found.
std::optional<Distribution> find_distribution(const WheelSources& sources, std::string_view name,
                                              std::string_view version, std::string_view python_version);

}  // namespace envbisect
