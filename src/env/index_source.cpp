#include "env/index_source.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "core/marker.hpp"
#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "core/wheel_tags.hpp"
#include "env/requirement.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace fs = std::filesystem;

namespace {

std::string normalised_version(std::string_view text) {
  const auto v = Version::parse(text);
  return v ? v->to_string() : std::string(text);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Return the distribution name an sdist file name starts with, normalised ("" when it is not one).
bool is_sdist_of(const std::string& filename, const std::string& name, const std::string& version) {
  for (const char* suffix : {".tar.gz", ".zip", ".tar.bz2"}) {
    const std::string s(suffix);
    if (filename.size() > s.size() && filename.compare(filename.size() - s.size(), s.size(), s) == 0) {
      const std::string stem = filename.substr(0, filename.size() - s.size());
      const std::size_t dash = stem.rfind('-');
      return dash != std::string::npos && normalize_package_name(stem.substr(0, dash)) == name &&
             normalised_version(stem.substr(dash + 1)) == version;
    }
  }
  return false;
}

}  // namespace

IndexChoice choose_index_file(const std::vector<IndexFile>& files, std::string_view name, std::string_view version,
                              std::string_view python_version, const WheelPin& pin) {
  const std::string wanted_name = normalize_package_name(name);
  const std::string wanted = normalised_version(version);
  const std::string label = std::string(name) + "==" + std::string(version);
  // No version: any interpreter, but the platform still counts (no musllinux, no glibc past the target's).
  const MarkerEnvironment environment =
      python_version.empty() ? MarkerEnvironment{} : linux_marker_environment(std::string(python_version));
  IndexChoice choice;
  long best = -1;
  std::vector<std::string> offered;
  std::vector<std::string> misfits;
  bool sdist = false;
  for (const IndexFile& file : files) {
    const auto wheel = parse_wheel_name(file.filename);
    if (!wheel) {
      sdist = sdist || is_sdist_of(file.filename, wanted_name, wanted);
      continue;
    }
    if (wheel->name != wanted_name) {
      continue;
    }
    if (normalised_version(wheel->version_text) != wanted) {
      offered.push_back(wheel->version_text);
      continue;
    }
    if (!pin.wheel.empty() && base_name(pin.wheel) != file.filename) {
      misfits.push_back(file.filename + ": not the pinned file " + base_name(pin.wheel));
      continue;
    }
    if (pin.pins_bytes() && !file.sha256.empty() && !pin.accepts_sha256(file.sha256)) {
      misfits.push_back(file.filename + ": the index gives sha256 " + file.sha256 + ", the state pins " +
                        (pin.sha256.empty() ? "one of " + join(pin.hashes, ", ") : ascii_lower(pin.sha256)));
      continue;
    }
    const long score = wheel_tag_score(*wheel, environment);
    if (score < 0) {
      misfits.push_back(file.filename + ": " + wheel_misfit_reason(*wheel, environment));
      continue;
    }
    if (score > best) {
      best = score;
      choice.found = true;
      choice.file = file;
      choice.others.clear();
    } else if (score == best && file.url != choice.file.url &&
               (file.sha256.empty() || file.sha256 != choice.file.sha256)) {
      choice.others.push_back(display_url(file.url));
    }
  }
  if (choice.found) {
    return choice;
  }
  if (!misfits.empty()) {
    choice.reason = label + ": no wheel fits CPython " + (python_version.empty() ? "(any)" : std::string(python_version)) +
                    " on Linux x86_64: " + join(misfits, "; ");
  } else if (sdist) {
    choice.reason = label + ": the index has only a source distribution, no wheel";
  } else {
    std::vector<std::string> unique;
    for (const std::string& v : offered) {
      if (std::find(unique.begin(), unique.end(), v) == unique.end()) {
        unique.push_back(v);
      }
    }
    choice.reason = label + ": not on the index" +
                    (unique.empty() ? " (no wheel of " + wanted_name + " at all)" : " (versions listed: " + join(unique, ", ") + ")");
  }
  return choice;
}

std::vector<IndexVersion> index_versions_between(const std::vector<IndexFile>& files, std::string_view name,
                                                 std::string_view good, std::string_view bad,
                                                 std::string_view python_version) {
  const auto good_version = Version::parse(good);
  const auto bad_version = Version::parse(bad);
  if (!good_version || !bad_version || good_version->public_version() == bad_version->public_version()) {
    return {};
  }
  const bool upgrade = *good_version < *bad_version;
  const Version& low = upgrade ? *good_version : *bad_version;
  const Version& high = upgrade ? *bad_version : *good_version;
  // Every build strictly between, grouped by public version.
  std::map<std::string, std::vector<Version>> builds;
  std::vector<Version> publics;
  const std::string wanted_name = normalize_package_name(name);
  for (const IndexFile& file : files) {
    const auto wheel = parse_wheel_name(file.filename);
    if (!wheel || wheel->name != wanted_name || wheel->version.public_version() == low.public_version() ||
        wheel->version.public_version() == high.public_version() || wheel->version < low || high < wheel->version) {
      continue;
    }
    std::vector<Version>& same = builds[wheel->version.public_version()];
    if (same.empty()) {
      publics.push_back(*Version::parse(wheel->version.public_version()));
    }
    if (std::find(same.begin(), same.end(), wheel->version) == same.end()) {
      same.push_back(wheel->version);
    }
  }
  std::sort(publics.begin(), publics.end());
  if (!upgrade) {
    std::reverse(publics.begin(), publics.end());
  }
  std::vector<IndexVersion> out;
  for (const Version& public_version : publics) {
    const std::vector<Version>& same = builds[public_version.to_string()];
    std::vector<const Version*> order;
    for (const std::string& label : {bad_version->local(), good_version->local(), std::string()}) {
      for (const Version& build : same) {
        if (build.local() == label && std::find(order.begin(), order.end(), &build) == order.end()) {
          order.push_back(&build);
        }
      }
    }
    for (const Version& build : same) {
      if (std::find(order.begin(), order.end(), &build) == order.end()) {
        order.push_back(&build);
      }
    }
    // The preferred build that has a wheel for the interpreter.
    for (const Version* build : order) {
      const IndexChoice choice = choose_index_file(files, name, build->to_string(), python_version, WheelPin{});
      if (choice.found) {
        out.push_back({build->to_string(), choice.file});
        break;
      }
    }
  }
  return out;
}

PackageIndex::PackageIndex(IndexSettings settings, PageFetcher fetch)
    : m_settings(std::move(settings)), m_fetch(std::move(fetch)) {
  if (!m_fetch) {
    const HttpLimits limits = m_settings.limits;
    m_fetch = [limits](const std::string& url) { return http_get_page(url, limits); };
  }
}

std::optional<std::vector<IndexFile>> PackageIndex::page_files(const std::string& url) {
  const std::string shown = display_url(url);
  const HttpPage page = m_fetch(url);
  if (page.status == 404) {
    return std::nullopt;
  }
  if (page.status < 200 || page.status >= 300) {
    throw Error(shown + ": the index answered HTTP " + std::to_string(page.status), ExitCode::bad_input);
  }
  const std::string base = page.url.empty() ? url : page.url;
  return page_format(page.content_type) == PageFormat::pep691_json ? parse_simple_json(page.body, base, shown)
                                                             : parse_simple_html(page.body, base, shown);
}

const std::vector<IndexFile>& PackageIndex::files(const std::string& name) {
  const std::string key = normalize_package_name(name);
  if (const auto known = m_by_name.find(key); known != m_by_name.end()) {
    return known->second;
  }
  std::vector<IndexFile> all;
  for (const std::string& index : m_settings.index_urls) {
    // A 404 on a project page: this index does not have the project (another may).
    for (IndexFile& file : page_files(project_page_url(index, key)).value_or(std::vector<IndexFile>{})) {
      all.push_back(std::move(file));
    }
  }
  for (const std::string& page : m_settings.find_links_urls) {
    auto listed = m_find_links.find(page);
    if (listed == m_find_links.end()) {
      std::optional<std::vector<IndexFile>> files = page_files(page);
      if (!files) {
        throw Error(display_url(page) + ": the find-links page answered HTTP 404", ExitCode::bad_input);
      }
      listed = m_find_links.emplace(page, std::move(*files)).first;
    }
    for (const IndexFile& file : listed->second) {
      const auto wheel = parse_wheel_name(file.filename);
      if (wheel && wheel->name == key) {
        all.push_back(file);
      }
    }
  }
  return m_by_name.emplace(key, std::move(all)).first->second;
}

std::vector<std::string> PackageIndex::pages_for(const std::string& name) const {
  std::vector<std::string> pages;
  for (const std::string& index : m_settings.index_urls) {
    pages.push_back(display_url(project_page_url(index, name)));
  }
  for (const std::string& page : m_settings.find_links_urls) {
    pages.push_back(display_url(page));
  }
  return pages;
}

std::size_t sweep_partial_downloads(const std::string& downloads_dir) {
  std::size_t removed = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(downloads_dir, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it.depth() > 1 || !it->is_regular_file(error)) {
      continue;
    }
    // ".NAME.tmpPID-N": the writer's pid; a live writer (another envbisect) keeps its file.
    const std::string name = it->path().filename().string();
    const std::size_t tmp = name.rfind(".tmp");
    if (name.empty() || name[0] != '.' || tmp == std::string::npos) {
      continue;
    }
    const std::string pid_text = name.substr(tmp + 4, name.find('-', tmp) - tmp - 4);
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 9) {
      continue;
    }
    const auto pid = static_cast<pid_t>(std::stol(pid_text));
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
      fs::remove(it->path(), error);
      removed += error ? 0 : 1;
      error.clear();
    }
  }
  return removed;
}

std::string download_index_file(const IndexFile& file, const std::string& expected_sha256,
                                const std::string& downloads_dir, const HttpLimits& limits) {
  const std::string expected = ascii_lower(expected_sha256);
  // Named by content when a hash is known, so the same wheel from two indexes is one download.
  const std::string dir = downloads_dir + "/" +
                          (expected.empty() ? "url-" + sha256_hex(display_url(file.url)).substr(0, 40) : "sha256-" + expected);
  const std::string path = dir + "/" + file.filename;
  if (path_exists(path)) {
    return path;  // complete: only a verified download is renamed into place
  }
  if (file.filename.empty() || file.filename.find('/') != std::string::npos || file.filename[0] == '.') {
    throw Error(file.page + ": " + display_url(file.url) + ": not a file name a download may take", ExitCode::bad_input);
  }
  // What a killed envbisect left half-downloaded is removed before anything new is fetched.
  static std::once_flag swept;
  std::call_once(swept, [&downloads_dir] { sweep_partial_downloads(downloads_dir); });
  make_dirs(dir);
  static std::atomic<unsigned> counter{0};
  const std::string temp =
      dir + "/." + file.filename + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  std::string got;
  try {
    got = http_download(file.url, temp, limits);
  } catch (...) {
    // Every way out of a download (an error, Ctrl-C, no memory) leaves no partial file behind.
    std::remove(temp.c_str());
    ::rmdir(dir.c_str());
    throw;
  }
  if (!expected.empty() && got != expected) {
    std::remove(temp.c_str());
    ::rmdir(dir.c_str());
    throw Error(file.filename + " from " + display_url(file.url) + ": sha256 mismatch: expected " + expected + ", got " +
                    got + " (nothing kept)",
                ExitCode::bad_input);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw Error(path + ": cannot move the download into place", ExitCode::environment);
  }
  return path;
}

}  // namespace envbisect
