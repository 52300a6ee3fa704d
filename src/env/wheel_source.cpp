#include "env/wheel_source.hpp"

#include <dirent.h>

#include <algorithm>

#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "env/requirement.hpp"
#include "env/uv_cache.hpp"

namespace envbisect {

namespace {

// Return the dot-separated parts of a compressed tag set ("py2.py3" -> {"py2", "py3"}).
std::vector<std::string> split_dots(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('.', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    parts.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// Return the normalised form of a version text, or the text itself when it is not PEP 440.
std::string normalised_version(std::string_view text) {
  const auto v = Version::parse(text);
  return v ? v->to_string() : std::string(text);
}

}  // namespace

std::string describe(const Distribution& dist) {
  if (dist.kind == SourceKind::wheel) {
    return "wheel " + dist.path;
  }
  return "uv cache archive " + dist.path + " (" + dist.dist_info + ")";
}

std::vector<Distribution> list_distributions(const WheelSources& sources, std::string_view name) {
  std::vector<Distribution> found;
  const std::string wanted = normalise_dist_name(name);
  for (const std::string& dir : sources.wheel_dirs) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      continue;
    }
    std::vector<std::string> files;
    while (const dirent* e = ::readdir(d)) {
      files.emplace_back(e->d_name);
    }
    ::closedir(d);
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      const auto parsed = parse_wheel_name(file);
      if (!parsed || parsed->name != wanted) {
        continue;
      }
      Distribution dist;
      dist.name = parsed->name;
      dist.version = parsed->version_text;
      dist.kind = SourceKind::wheel;
      dist.path = dir + "/" + file;
      dist.tags = parsed->python_tag + "-" + parsed->abi_tag + "-" + parsed->platform_tag;
      found.push_back(std::move(dist));
    }
  }
  for (const std::string& cache : sources.uv_caches) {
    for (UvArchive& archive : scan_uv_cache(cache, wanted)) {
      Distribution dist;
      dist.name = archive.name;
      dist.version = archive.version;
      dist.kind = SourceKind::uv_archive;
      dist.path = archive.dir;
      dist.dist_info = archive.dist_info;
      found.push_back(std::move(dist));
    }
  }
  return found;
}

bool wheel_tags_compatible(std::string_view tags, std::string_view python_version) {
  const std::size_t first = tags.find('-');
  const std::size_t second = first == std::string_view::npos ? first : tags.find('-', first + 1);
  if (second == std::string_view::npos) {
    return false;
  }
  std::string nodot;
  for (const char c : python_version) {
    if (c != '.') {
      nodot += c;
    }
  }
  const std::string major = nodot.substr(0, 1);
  bool python_ok = false;
  for (const std::string& tag : split_dots(tags.substr(0, first))) {
    python_ok = python_ok || nodot.empty() || tag == "py" + major || tag == "py" + nodot || tag == "cp" + nodot ||
                (tag.rfind("cp" + major, 0) == 0 && tags.find("abi3") != std::string_view::npos);
  }
  bool abi_ok = false;
  for (const std::string& tag : split_dots(tags.substr(first + 1, second - first - 1))) {
    abi_ok = abi_ok || tag == "none" || tag == "abi3" || nodot.empty() || tag.rfind("cp" + nodot, 0) == 0;
  }
  bool platform_ok = false;
  for (const std::string& tag : split_dots(tags.substr(second + 1))) {
    platform_ok = platform_ok || tag == "any" || tag == "linux_x86_64" ||
                  ((tag.rfind("manylinux", 0) == 0 || tag.rfind("musllinux", 0) == 0) &&
                   tag.size() > 6 && tag.compare(tag.size() - 6, 6, "x86_64") == 0);
  }
  return python_ok && abi_ok && platform_ok;
}

std::optional<Distribution> find_distribution(const WheelSources& sources, std::string_view name,
                                              std::string_view version, std::string_view python_version) {
  const std::string wanted = normalised_version(version);
  for (Distribution& dist : list_distributions(sources, name)) {
    if (normalised_version(dist.version) != wanted) {
      continue;
    }
    if (dist.kind == SourceKind::wheel && !wheel_tags_compatible(dist.tags, python_version)) {
      continue;
    }
    return std::move(dist);
  }
  return std::nullopt;
}

}  // namespace envbisect
