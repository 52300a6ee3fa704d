#include "env/wheel_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/marker.hpp"
#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "core/wheel_tags.hpp"
#include "env/requirement.hpp"
#include "env/unzip.hpp"
#include "env/uv_cache.hpp"
#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

// Return the normalised form of a version text, or the text itself when it is not PEP 440.
std::string normalised_version(std::string_view text) {
  const auto v = Version::parse(text);
  return v ? v->to_string() : std::string(text);
}

// Return the SHA-256 of a file's bytes.
std::string hash_file(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
  }
  Sha256 digest;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
    }
    if (n == 0) {
      break;
    }
    digest.update(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  return digest.hex_digest();
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Return the build tag of the wheel file at `path` ("" when it has none).
std::string build_tag_of(const std::string& path) {
  const auto parsed = parse_wheel_name(base_name(path));
  return parsed ? parsed->build : std::string();
}

// Return whether build tag `a` sorts before `b` as PEP 427 orders them: no tag first, then by the
// leading number, then by the rest as text.
bool build_tag_less(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) {
    return a.empty() && !b.empty();
  }
  auto split = [](const std::string& tag) {
    std::size_t digits = 0;
    while (digits < tag.size() && tag[digits] >= '0' && tag[digits] <= '9') {
      ++digits;
    }
    std::string number = tag.substr(0, digits);
    number.erase(0, std::min(number.find_first_not_of('0'), number.size()));
    return std::pair<std::string, std::string>(number, tag.substr(digits));
  };
  const auto [a_number, a_rest] = split(a);
  const auto [b_number, b_rest] = split(b);
  if (a_number.size() != b_number.size()) {
    return a_number.size() < b_number.size();  // numbers of any length, compared without overflow
  }
  return a_number != b_number ? a_number < b_number : a_rest < b_rest;
}

}  // namespace

bool WheelPin::accepts_sha256(const std::string& hex) const {
  const std::string lower = ascii_lower(hex);
  if (!sha256.empty()) {
    return lower == ascii_lower(sha256);
  }
  return hashes.empty() || std::find(hashes.begin(), hashes.end(), lower) != hashes.end();
}

std::string wheel_sha256(const std::string& path, const std::string& index_dir) {
  if (index_dir.empty()) {
    return hash_file(path);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
  }
  // A rebuilt file gets a new mtime (and usually inode), so its identity points to a new index entry.
  const std::string identity = absolute_path(path, ".") + "\n" + std::to_string(st.st_size) + "\n" +
                               std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "\n" +
                               std::to_string(st.st_ino) + "\n" + std::to_string(st.st_ctim.tv_sec) + "." +
                               std::to_string(st.st_ctim.tv_nsec);
  const std::string index = index_dir + "/" + sha256_hex(identity).substr(0, 32);
  std::string hash = read_file_or_empty(index);
  if (hash.size() == 64) {
    ::utimensat(AT_FDCWD, index.c_str(), nullptr, 0);  // used now: gc keeps it
    return hash;
  }
  hash = hash_file(path);
  try {
    make_dirs(index_dir);
    write_file_atomic(index, hash);
  } catch (const Error&) {
    // A read-only index only costs hashing again.
  }
  return hash;
}

std::string describe(const Distribution& dist) {
  if (dist.kind == SourceKind::wheel) {
    return "wheel " + dist.path;
  }
  return "uv cache archive " + dist.path + " (" + dist.dist_info + ")";
}

namespace {

// Return the builds in `sources` named `wanted` (normalised), or every build when `wanted` is empty.
std::vector<Distribution> scan_sources(const WheelSources& sources, const std::string& wanted) {
  std::vector<Distribution> found;
  for (const std::string& dir : sources.wheel_dirs) {
    for (const std::string& file : list_dir(dir)) {
      const auto parsed = parse_wheel_name(file);
      if (!parsed || (!wanted.empty() && parsed->name != wanted)) {
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
      dist.tags = join(archive.tags, " ");
      found.push_back(std::move(dist));
    }
  }
  return found;
}

}  // namespace

WheelSources index_sources(WheelSources sources) {
  auto listing = std::make_shared<SourceListing>();
  sources.listing = nullptr;
  for (Distribution& dist : scan_sources(sources, "")) {
    // A uv archive is found by its dist-info folder's name, as scan_uv_cache filters it.
    std::string key = dist.name;
    if (dist.kind == SourceKind::uv_archive) {
      key = normalize_package_name(dist.dist_info.substr(0, dist.dist_info.find('-')));
    }
    (*listing)[key].push_back(std::move(dist));
  }
  sources.listing = std::move(listing);
  return sources;
}

std::vector<Distribution> list_distributions(const WheelSources& sources, std::string_view name) {
  const std::string wanted = normalize_package_name(name);
  if (wanted.empty()) {
    return {};
  }
  if (sources.listing) {
    const auto it = sources.listing->find(wanted);
    return it == sources.listing->end() ? std::vector<Distribution>{} : it->second;
  }
  return scan_sources(sources, wanted);
}

namespace {

// Return the environment wheels are matched against: CPython `python_version` on Linux x86_64 with the
// glibc every other wheel choice assumes (MarkerEnvironment's); any interpreter when the version is "".
MarkerEnvironment target_environment(std::string_view python_version) {
  if (python_version.empty()) {
    return MarkerEnvironment{};
  }
  try {
    return linux_marker_environment(std::string(python_version));
  } catch (const Error&) {
    throw Error("Python version '" + std::string(python_version) +
                    "': expected N.N or N.N.N to choose among the wheels of a version",
                ExitCode::bad_input);
  }
}

// Return the tag triples a build carries: a wheel's from its file name, a uv archive's from its WHEEL file.
std::vector<WheelName> tag_triples(const Distribution& dist) {
  std::vector<WheelName> triples;
  std::size_t start = 0;
  while (start < dist.tags.size()) {
    std::size_t end = dist.tags.find(' ', start);
    end = end == std::string::npos ? dist.tags.size() : end;
    const std::string triple = dist.tags.substr(start, end - start);
    start = end + 1;
    const std::size_t first = triple.find('-');
    const std::size_t second = first == std::string::npos ? first : triple.find('-', first + 1);
    if (second == std::string::npos) {
      continue;
    }
    WheelName name;
    name.python_tag = triple.substr(0, first);
    name.abi_tag = triple.substr(first + 1, second - first - 1);
    name.platform_tag = triple.substr(second + 1);
    triples.push_back(std::move(name));
  }
  return triples;
}

// Return how pip and uv would rank `dist` for `target` (wheel_tag_score; -1: they would not install
// it). A uv archive whose WHEEL file names no tag ranks lowest but is kept: uv itself unpacked it.
long fit_score(const Distribution& dist, const MarkerEnvironment& target) {
  const std::vector<WheelName> triples = tag_triples(dist);
  if (triples.empty()) {
    return dist.kind == SourceKind::uv_archive && dist.tags.empty() ? 0 : -1;
  }
  long best = -1;
  for (const WheelName& triple : triples) {
    best = std::max(best, wheel_tag_score(triple, target));
  }
  return best;
}

// Return why `dist` does not fit `target`: the first triple's reason ("" when it fits).
std::string misfit_of(const Distribution& dist, const MarkerEnvironment& target) {
  if (fit_score(dist, target) >= 0) {
    return "";
  }
  const std::vector<WheelName> triples = tag_triples(dist);
  return triples.empty() ? "its tags '" + dist.tags + "' cannot be read" : wheel_misfit_reason(triples.front(), target);
}

}  // namespace

std::optional<Distribution> find_distribution(const WheelSources& sources, std::string_view name,
                                              std::string_view version, std::string_view python_version,
                                              const WheelPin& pin, const std::string& index_dir) {
  const std::string wanted = normalised_version(version);
  const MarkerEnvironment target = target_environment(python_version);
  std::vector<Distribution> found = list_distributions(sources, name);
  // A pin naming an existing wheel file by its path makes that file a source too (after the folders).
  if (!pin.wheel.empty() && pin.wheel.front() == '/' && ::access(pin.wheel.c_str(), R_OK) == 0) {
    if (const auto parsed = parse_wheel_name(base_name(pin.wheel)); parsed && parsed->name == normalize_package_name(name)) {
      Distribution dist;
      dist.name = parsed->name;
      dist.version = parsed->version_text;
      dist.path = pin.wheel;
      dist.tags = parsed->python_tag + "-" + parsed->abi_tag + "-" + parsed->platform_tag;
      found.push_back(std::move(dist));
    }
  }
  std::optional<Distribution> chosen;
  long chosen_score = -1;
  for (Distribution& dist : found) {
    if (normalised_version(dist.version) != wanted) {
      continue;
    }
    // A build pip or uv would refuse on this interpreter is never this state's build, even alone.
    const long score = fit_score(dist, target);
    if (score < 0) {
      continue;
    }
    if (!pin.empty()) {
      // The pin chooses the file: only a wheel with that name and those bytes is this build.
      if (dist.kind != SourceKind::wheel || (!pin.wheel.empty() && base_name(pin.wheel) != base_name(dist.path))) {
        continue;
      }
      if (pin.pins_bytes() && !pin.accepts_sha256(wheel_sha256(dist.path, index_dir))) {
        continue;
      }
    }
    // Wheel folders before uv caches; then the tags pip and uv prefer (a platform build over `any`, the
    // newest manylinux that fits); then, PEP 427, the highest build tag ("p-2.0-10-..." over
    // "p-2.0-9-...", either over none), as pip's candidate order takes them; then the first found.
    const bool better =
        !chosen || (dist.kind == SourceKind::wheel && chosen->kind == SourceKind::uv_archive) ||
        (dist.kind == chosen->kind &&
         (score > chosen_score ||
          (score == chosen_score && dist.kind == SourceKind::wheel &&
           build_tag_less(build_tag_of(chosen->path), build_tag_of(dist.path)))));
    if (better) {
      chosen = std::move(dist);
      chosen_score = score;
    }
  }
  return chosen;
}

DistMetadata read_distribution_metadata(const Distribution& dist) {
  if (dist.kind == SourceKind::wheel) {
    return parse_metadata(read_wheel_metadata(dist.path));
  }
  return parse_metadata(read_file(dist.path + "/" + dist.dist_info + "/METADATA"));
}

std::vector<std::string> other_builds(const WheelSources& sources, const Distribution& chosen,
                                      std::string_view python_version, const std::string& index_dir) {
  std::vector<std::string> others;
  const std::string wanted = normalised_version(chosen.version);
  const MarkerEnvironment target = target_environment(python_version);
  const long chosen_score = fit_score(chosen, target);
  std::string chosen_content;
  for (const Distribution& dist : list_distributions(sources, chosen.name)) {
    // Only a build that ties with the chosen one on its tags could be meant: pip and uv never take a
    // lower-ranked one while it is there (a musllinux wheel next to py3-none-any is no rival).
    if (dist.path == chosen.path || dist.kind != chosen.kind || normalised_version(dist.version) != wanted ||
        fit_score(dist, target) != chosen_score) {
      continue;
    }
    // Only other bytes make another build: a copy of the same wheel in a second folder is the same one.
    if (dist.kind == SourceKind::wheel) {
      if (chosen_content.empty()) {
        chosen_content = wheel_sha256(chosen.path, index_dir);
      }
      if (wheel_sha256(dist.path, index_dir) == chosen_content) {
        continue;
      }
    } else {
      if (chosen_content.empty()) {
        chosen_content = read_file_or_empty(chosen.path + "/" + chosen.dist_info + "/RECORD");
      }
      if (read_file_or_empty(dist.path + "/" + dist.dist_info + "/RECORD") == chosen_content) {
        continue;
      }
    }
    others.push_back(dist.path);
  }
  return others;
}

std::vector<std::string> misfit_builds(const WheelSources& sources, std::string_view name, std::string_view version,
                                       std::string_view python_version) {
  const std::string wanted = normalised_version(version);
  const MarkerEnvironment target = target_environment(python_version);
  std::vector<std::string> misfits;
  for (const Distribution& dist : list_distributions(sources, name)) {
    if (normalised_version(dist.version) != wanted) {
      continue;
    }
    if (const std::string why = misfit_of(dist, target); !why.empty()) {
      misfits.push_back(dist.path + " (tags " + dist.tags + "): " + why);
    }
  }
  return misfits;
}

std::vector<std::string> unreadable_wheel_files(const WheelSources& sources, std::string_view name) {
  const std::string wanted = normalize_package_name(std::string(name));
  std::vector<std::string> found;
  for (const std::string& dir : sources.wheel_dirs) {
    for (const std::string& file : list_dir(dir)) {
      if (!file.ends_with(".whl") || parse_wheel_name(file)) {
        continue;
      }
      // Whose file is it? The text before the first "-" (or before "%2D", an encoded one).
      const std::string decoded = percent_decode(file);
      const std::string stem = decoded.substr(0, decoded.find('-'));
      if (normalize_package_name(stem) != wanted) {
        continue;
      }
      const std::string path = dir + "/" + file;
      if (decoded != file && parse_wheel_name(decoded)) {
        found.push_back(path + ": its name is URL-encoded (as saved from a download URL); rename it to " + decoded);
      } else {
        found.push_back(path + ": not a valid wheel file name (PEP 427: name-version[-build]-python-abi-platform.whl, " +
                        "a PEP 440 version)");
      }
    }
  }
  return found;
}

std::string describe_missing_pin(const WheelSources& sources, std::string_view name, std::string_view version,
                                 const WheelPin& pin, std::string_view python_version) {
  std::string text = std::string(name) + "==" + std::string(version);
  if (!pin.wheel.empty()) {
    text += " from wheel " + pin.wheel;
  }
  if (!pin.sha256.empty()) {
    text += " with sha256 " + ascii_lower(pin.sha256);
  } else if (!pin.hashes.empty()) {
    text += " with a sha256 of " + join(pin.hashes, ", ");
  }
  text += sources.wheel_dirs.empty() ? std::string(": no such file: no wheel folder was given (--wheels)")
                                     : ": no such file in the wheel folders (" + join(sources.wheel_dirs, ", ") + ")";
  if (!sources.uv_caches.empty()) {
    text += " (uv caches " + join(sources.uv_caches, ", ") + " keep no wheel files to check a pin against)";
  }
  std::vector<std::string> seen;
  for (const Distribution& dist : list_distributions(sources, name)) {
    if (dist.kind == SourceKind::wheel && normalised_version(dist.version) == normalised_version(version)) {
      seen.push_back(base_name(dist.path) + " sha256 " + wheel_sha256(dist.path));
    }
  }
  if (!seen.empty()) {
    text += "; found " + join(seen, ", ");
  }
  if (const std::vector<std::string> misfits = misfit_builds(sources, name, version, python_version); !misfits.empty()) {
    text += "; not installable into CPython " + (python_version.empty() ? std::string("(any)") : std::string(python_version)) +
            ": " + join(misfits, "; ");
  }
  if (const std::vector<std::string> unreadable = unreadable_wheel_files(sources, name); !unreadable.empty()) {
    text += "; not read: " + join(unreadable, "; ");
  }
  return text;
}

}  // namespace envbisect
