#include "env/uv_cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "env/requirement.hpp"
#include "util/fs.hpp"

namespace envbisect {

std::string default_uv_cache_dir() {
  if (const char* v = std::getenv("UV_CACHE_DIR"); v != nullptr && *v != '\0') {
    return v;
  }
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v != nullptr && *v != '\0') {
    return std::string(v) + "/uv";
  }
  if (const char* v = std::getenv("HOME"); v != nullptr && *v != '\0') {
    return std::string(v) + "/.cache/uv";
  }
  return "";
}

std::vector<UvArchive> scan_uv_cache(const std::string& cache_dir, const std::string& name) {
  std::vector<UvArchive> found;
  const std::string wanted = normalize_package_name(name);
  const std::string archive_root = cache_dir + "/archive-v0";
  // In name order (list_dir sorts), not the directory's: of two archives of one version the first
  // found is taken, and that must be the same one on every machine and every run.
  std::vector<std::string> ids = list_dir(archive_root);
  for (const std::string& id : ids) {
    const std::string dir = archive_root + "/" + id;
    std::vector<std::string> dist_infos;
    for (const std::string& entry : list_dir(dir)) {
      if (entry.ends_with(".dist-info")) {
        dist_infos.push_back(entry);
      }
    }
    if (dist_infos.size() != 1) {
      continue;
    }
    // The folder is "<escaped name>-<version>.dist-info"; filter on the name before reading METADATA.
    const std::string& info = dist_infos.front();
    const std::string stem = info.substr(0, info.size() - std::string(".dist-info").size());
    const std::size_t dash = stem.find('-');
    if (dash == std::string::npos || (!wanted.empty() && normalize_package_name(stem.substr(0, dash)) != wanted)) {
      continue;
    }
    std::ifstream in(dir + "/" + info + "/METADATA", std::ios::binary);
    if (!in) {
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    const DistMetadata meta = parse_metadata(text.str());
    if (meta.name.empty() || meta.version.empty()) {
      continue;
    }
    // The WHEEL file says which interpreters and platforms the unpacked wheel was built for.
    std::vector<std::string> tags;
    std::ifstream wheel(dir + "/" + info + "/WHEEL", std::ios::binary);
    for (std::string line; std::getline(wheel, line);) {
      if (line.rfind("Tag:", 0) == 0) {
        const std::size_t start = line.find_first_not_of(" \t", 4);
        const std::size_t end = line.find_last_not_of(" \t\r");
        if (start != std::string::npos && end >= start) {
          tags.push_back(line.substr(start, end - start + 1));
        }
      }
    }
    found.push_back({dir, info, meta.name, meta.version, std::move(tags)});
  }
  return found;
}

}  // namespace envbisect
