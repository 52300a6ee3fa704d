#pragma once

#include <string>
#include <vector>

namespace envbisect {

// One unpacked wheel in uv's cache: `archive-v0/<id>/` holds the package files and its dist-info.
struct UvArchive {
  std::string dir;        // the archive directory (cache/archive-v0/<id>)
  std::string dist_info;  // the dist-info folder name inside it ("fauxtorch-2.11.0+cu128.dist-info")
  std::string name;       // PEP 503 normalised, from METADATA
  std::string version;    // exactly as METADATA says, local label included
  std::vector<std::string> tags;  // the WHEEL file's Tag lines ("cp311-cp311-manylinux_2_17_x86_64"), in order
};

// Return the uv cache directory to search by default: $UV_CACHE_DIR, else $XDG_CACHE_HOME/uv, else
// ~/.cache/uv ("" when none of them can be formed).
std::string default_uv_cache_dir();

// Return the unpacked wheels in the uv cache at `cache_dir` whose dist-info folder names the
// distribution `name` (PEP 503 compared; every distribution when `name` is empty), version and name
// read from their METADATA and tags from their WHEEL file. Archives without exactly one top-level dist-info (uv's cached tool
// environments) are not wheels and are left out. A missing cache gives an empty list; the archives
// come in the order of their folder names.
std::vector<UvArchive> scan_uv_cache(const std::string& cache_dir, const std::string& name = "");

}  // namespace envbisect
