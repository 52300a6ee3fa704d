// scan_uv_cache on a uv cache that a real uv (0.11.15) filled on the GPU machine
// (reports/2026-12-01-h200-uv/; its metadata only: dist-info folders, wheels-v6 pointers and CACHEDIR.TAG —
// the unpacked package files are the fixture's own, in fixtures/incidents/dflash-cu130/packages/):
// every build is found by name, version and label.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "env/uv_cache.hpp"
#include "source_dir.hpp"

using namespace envbisect;

namespace {

const std::string k_cache = std::string(ENVBISECT_SOURCE_DIR) + "/tests/unit/data/uv-cache-0.11.15";

std::vector<std::string> versions_of(const std::vector<UvArchive>& archives) {
  std::vector<std::string> versions;
  for (const UvArchive& archive : archives) {
    versions.push_back(archive.version);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

}  // namespace

TEST_CASE("uv cache written by uv 0.11.15: every fauxtorch build, local labels kept", "[env][uv_cache]") {
  const std::vector<UvArchive> archives = scan_uv_cache(k_cache, "fauxtorch");
  CHECK(versions_of(archives) ==
        std::vector<std::string>{"2.10.0+cu128", "2.11.0+cu128", "2.11.0+cu130", "2.12.0+cu130"});
  for (const UvArchive& archive : archives) {
    CHECK(archive.name == "fauxtorch");
    CHECK(archive.dist_info == "fauxtorch-" + archive.version + ".dist-info");
    CHECK(archive.dir.rfind(k_cache + "/archive-v0/", 0) == 0);
  }
}

TEST_CASE("uv cache written by uv 0.11.15: names compare as PEP 503, all distributions listed", "[env][uv_cache]") {
  CHECK(versions_of(scan_uv_cache(k_cache, "FauxTransformers")) ==
        std::vector<std::string>{"5.6.0", "5.7.0", "5.8.1"});
  CHECK(scan_uv_cache(k_cache).size() == 8);
  CHECK(scan_uv_cache(k_cache, "fauxvision").empty());
  CHECK(scan_uv_cache(k_cache + "/no-such-cache", "fauxtorch").empty());
}

TEST_CASE("uv cache archives come in the order of their folder names, not the directory's", "[env][uv_cache]") {
  // Two archives of one version (a rebuilt wheel): the first listed is the one a run takes, so the
  // order may not depend on how the filesystem happens to list the folder.
  const std::vector<UvArchive> archives = scan_uv_cache(k_cache);
  REQUIRE(archives.size() == 8);
  CHECK(std::is_sorted(archives.begin(), archives.end(),
                       [](const UvArchive& a, const UvArchive& b) { return a.dir < b.dir; }));
}
