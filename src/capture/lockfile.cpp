#include "capture/lockfile.hpp"

#include "capture/lock_parts.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "core/installer_packages.hpp"
#include "core/state.hpp"
#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "core/wheel_tags.hpp"
#include "env/requirement.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

using namespace lock_parts;

// Return whether any of `markers` holds for `target` (none given: true).
bool markers_hold(const toml::array* markers, const MarkerEnvironment& target, const std::string& label,
                  const std::string& where) {
  if (markers == nullptr || markers->empty()) {
    return true;
  }
  for (const toml::node& marker : *markers) {
    if (marker_holds(marker.value_or(std::string()), target, label, where)) {
      return true;
    }
  }
  return false;
}

// Split "git+https://host/repo@REV#egg=name&subdirectory=dir" (pip's VCS URL) into a repo.
LockedRepo vcs_repo(const std::string& name, const std::string& url) {
  LockedRepo repo;
  repo.name = name;
  repo.kind = "git";
  std::string rest = url.rfind("git+", 0) == 0 ? url.substr(4) : url;
  std::size_t fragment = rest.find('#');
  if (fragment != std::string::npos) {
    std::string params = rest.substr(fragment + 1);
    rest = rest.substr(0, fragment);
    std::size_t at = params.find("subdirectory=");
    if (at != std::string::npos) {
      repo.subdirectory = params.substr(at + 13, params.find('&', at) - (at + 13));
    }
  }
  std::size_t scheme = rest.find("://");
  std::size_t at = rest.rfind('@');
  if (at != std::string::npos && (scheme == std::string::npos || at > rest.find('/', scheme + 3))) {
    repo.commit = rest.substr(at + 1);
    rest = rest.substr(0, at);
  }
  repo.url = rest;
  return repo;
}

// ---- pylock.toml (PEP 751) -----------------------------------------------------------------------

LockRead read_pylock(const toml::table& lock, const std::string& label, const MarkerEnvironment& target) {
  LockRead read;
  if (!lock.contains("lock-version")) {
    fail(label, "/lock-version", "missing (is this a PEP 751 pylock.toml?)");
  }
  // PEP 751: a tool must refuse a lock-version whose major version it does not support (1).
  const std::string lock_version = lock["lock-version"].value<std::string>().value_or("");
  if (lock_version != "1" && lock_version.rfind("1.", 0) != 0) {
    fail(label, "/lock-version", "'" + lock_version + "'; this envbisect reads PEP 751 lock-version 1.x");
  }
  const toml::array* packages = lock["packages"].as_array();
  if (packages == nullptr) {
    fail(label, "/packages", "no [[packages]] entries");
  }
  if (const toml::array* environments = lock["environments"].as_array()) {
    if (!markers_hold(environments, target, label, "/environments")) {
      fail(label, "/environments", "the lock is for other environments than CPython " +
                                       target.variables.at("python_version") + " on Linux");
    }
  }
  for (std::size_t i = 0; i < packages->size(); ++i) {
    const std::string where = "/packages/" + std::to_string(i);
    const toml::table* table = (*packages)[i].as_table();
    if (table == nullptr) {
      fail(label, where, "expected a table");
    }
    LockedPackage package{normalize_package_name(get_string((*table)["name"])), get_string((*table)["version"]), "", "", {}};
    if (package.name.empty()) {
      fail(label, where + "/name", "missing");
    }
    if (!marker_holds(get_string((*table)["marker"]), target, label, where + "/marker")) {
      read.notes.push_back(package.name + ": left out, its marker does not hold for this target");
      continue;
    }
    // A VCS checkout or a local folder is built from source: a repo of the state, not a build.
    if (const toml::table* vcs = (*table)["vcs"].as_table()) {
      LockedRepo repo;
      repo.name = package.name;
      repo.kind = get_string((*vcs)["type"]);
      repo.url = get_string((*vcs)["url"]).empty() ? get_string((*vcs)["path"]) : get_string((*vcs)["url"]);
      repo.commit = get_string((*vcs)["commit-id"]);
      repo.subdirectory = get_string((*vcs)["subdirectory"]);
      if (repo.kind != "git") {
        fail(label, where + "/vcs/type", package.name + ": a " + repo.kind + " checkout; envbisect builds git repositories only");
      }
      if (repo.commit.empty()) {
        fail(label, where + "/vcs/commit-id", package.name + ": missing (PEP 751 requires the commit)");
      }
      read.repos.push_back(repo);
      continue;
    }
    if (const toml::table* directory = (*table)["directory"].as_table()) {
      LockedRepo repo;
      repo.name = package.name;
      repo.path = get_string((*directory)["path"]);
      // The lock's own folder is the project itself (uv export writes it so).
      repo.kind = repo.path == "." ? "project" : (*directory)["editable"].value_or(false) ? "editable" : "directory";
      read.repos.push_back(repo);
      continue;
    }
    if (package.version.empty()) {
      fail(label, where + "/version", package.name + " has no version and no vcs or directory source: a state needs an exact build");
    }
    check_version(package.version, label, where + "/version");
    std::vector<OfferedWheel> wheels;
    if (const toml::table* archive = (*table)["archive"].as_table()) {
      // An archive is one file: a wheel pins that wheel, an sdist the version (built at install).
      const std::string file = file_name_of(get_string((*archive)["url"]).empty() ? get_string((*archive)["path"])
                                                                                  : get_string((*archive)["url"]));
      std::string hex;
      if (const toml::table* hashes = (*archive)["hashes"].as_table()) {
        if (!get_string((*hashes)["sha256"]).empty()) {
          hex = sha256_of("sha256:" + get_string((*hashes)["sha256"]), label, where + "/archive/hashes/sha256");
          package.hashes.push_back(hex);
        }
      }
      if (file.size() > 4 && file.substr(file.size() - 4) == ".whl") {
        wheels.push_back({file, hex});
      } else {
        read.notes.push_back(package.name + " " + package.version + ": an sdist archive (" + file + "), pinned by version");
      }
    }
    if (const toml::table* sdist = (*table)["sdist"].as_table()) {
      if (const toml::table* hashes = (*sdist)["hashes"].as_table()) {
        if (!get_string((*hashes)["sha256"]).empty()) {
          package.hashes.push_back(sha256_of("sha256:" + get_string((*hashes)["sha256"]), label, where + "/sdist/hashes/sha256"));
        }
      }
    }
    if (const toml::array* offered = (*table)["wheels"].as_array()) {
      for (std::size_t k = 0; k < offered->size(); ++k) {
        const toml::table* wheel = (*offered)[k].as_table();
        const std::string at = where + "/wheels/" + std::to_string(k);
        if (wheel == nullptr) {
          fail(label, at, "expected a table");
        }
        std::string file = get_string((*wheel)["name"]);
        if (file.empty()) {
          file = file_name_of(get_string((*wheel)["url"]).empty() ? get_string((*wheel)["path"]) : get_string((*wheel)["url"]));
        }
        std::string hash;
        if (const toml::table* hashes = (*wheel)["hashes"].as_table()) {
          std::string hex = get_string((*hashes)["sha256"]);
          if (!hex.empty()) {
            hash = sha256_of("sha256:" + hex, label, at + "/hashes/sha256");
            package.hashes.push_back(hash);
          }
        }
        wheels.push_back({file, hash});
      }
    }
    choose_wheel(package, wheels, sdist_in(*table), target, label, where, read.notes);
    std::sort(package.hashes.begin(), package.hashes.end());
    read.packages.push_back(package);
  }
  return read;
}

// ---- requirements.txt, pip freeze ----------------------------------------------------------------

// Read one `-e TARGET` / `--editable TARGET` line into `read`: a git commit or a local folder, a repo of
// the state; the project itself is left out with a note. Throw Error naming `label` and `where` for a
// target that is neither.
void read_editable_line(const std::string& line, const std::string& label, const std::string& where,
                        const MarkerEnvironment& target, LockRead& read) {
  // An editable install is built from source: a git commit or a local folder, a repo of the state.
  std::string target_text = trim(line.substr(line.rfind("--editable", 0) == 0 ? 10 : 2));
  if (!target_text.empty() && target_text[0] == '=') {
    target_text = trim(target_text.substr(1));
  }
  if (std::size_t semicolon = target_text.find(';'); semicolon != std::string::npos) {
    const std::string marker = target_text.substr(semicolon + 1);
    target_text = trim(target_text.substr(0, semicolon));
    if (!marker_holds(marker, target, label, where)) {
      read.notes.push_back(where + ": " + target_text + " left out, its marker does not hold for this target");
      return;
    }
  }
  if (target_text.rfind("git+", 0) == 0) {
    std::size_t egg = target_text.find("egg=");
    if (egg == std::string::npos) {
      fail(label, where, "'" + line + "' names no #egg=NAME: the repo needs the package's name");
    }
    LockedRepo repo = vcs_repo(normalize_package_name(target_text.substr(egg + 4, target_text.find('&', egg) - (egg + 4))), target_text);
    if (repo.commit.empty()) {
      fail(label, where, repo.name + " from '" + target_text + "' names no commit (@SHA): a state needs an exact build");
    }
    read.repos.push_back(repo);
  } else if (target_text.find("://") != std::string::npos && target_text.rfind("file://", 0) != 0) {
    fail(label, where, "'" + line + "': an editable install from " + target_text + " is neither git nor a local folder");
  } else {
    std::string path = target_text.rfind("file://", 0) == 0 ? target_text.substr(7) : target_text;
    while (path.size() > 1 && path.back() == '/') {
      path.pop_back();
    }
    std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    if (base.empty() || base == ".") {
      read.notes.push_back(where + ": " + line + ": the project itself, left out (what the job runs, not an installed build)");
      return;
    }
    LockedRepo repo;
    repo.name = normalize_package_name(base);
    repo.kind = "editable";
    repo.path = path.rfind("./", 0) == 0 ? path.substr(2) : path;
    read.repos.push_back(repo);
  }
}

// Keep every sha256 of `hashes` (sha256:HEX, one per file: wheels and sdist) on `package`; with one,
// the state pins that file, with several the wheel taken must have one of them. Throw Error naming `label` and `where` for a malformed hash.
void keep_hashes(const std::vector<std::string>& hashes, const std::string& label, const std::string& where,
                 LockedPackage& package) {
  std::vector<std::string> sha256s;
  for (const std::string& hash : hashes) {
    std::string hex = sha256_of(hash, label, where);
    if (!hex.empty()) {
      sha256s.push_back(hex);
    }
  }
  std::sort(sha256s.begin(), sha256s.end());
  sha256s.erase(std::unique(sha256s.begin(), sha256s.end()), sha256s.end());
  package.hashes = sha256s;
  if (sha256s.size() == 1) {
    package.sha256 = sha256s.front();
  }
}

LockRead read_requirements(const std::string& text, const std::string& label, const MarkerEnvironment& target) {
  LockRead read;
  std::istringstream in(text);
  std::string physical;
  std::string logical;
  int line_number = 0;
  int first_line = 0;
  std::set<std::string> seen;
  while (std::getline(in, physical)) {
    ++line_number;
    if (line_number == 1 && physical.rfind("\xEF\xBB\xBF", 0) == 0) {
      physical.erase(0, 3);  // a byte-order mark, as Windows editors write it; pip reads past it too
    }
    if (!is_valid_utf8(physical)) {
      fail(label, "line " + std::to_string(line_number), "not UTF-8 text");
    }
    if (logical.empty()) {
      first_line = line_number;
    }
    // Comments start at '#' at the line's start or after whitespace ("#sha256=" in a URL stays).
    std::size_t hash_mark = physical.find(" #");
    if (physical.rfind("#", 0) == 0) {
      physical.clear();
    } else if (hash_mark != std::string::npos) {
      physical.erase(hash_mark);
    }
    std::string piece = trim(physical);
    if (!piece.empty() && piece.back() == '\\') {
      logical += piece.substr(0, piece.size() - 1) + " ";
      continue;
    }
    logical += piece;
    std::string line = trim(logical);
    logical.clear();
    const std::string where = "line " + std::to_string(first_line);
    if (line.empty()) {
      continue;
    }
    if (line[0] == '-') {
      if (line.rfind("-e", 0) == 0 || line.rfind("--editable", 0) == 0) {
        read_editable_line(line, label, where, target, read);
        continue;
      }
      if (line.rfind("-r", 0) == 0 || line.rfind("-c", 0) == 0 || line.rfind("--requirement", 0) == 0 ||
          line.rfind("--constraint", 0) == 0) {
        fail(label, where, "includes another file ('" + line + "'); make a state from each file or from a merged freeze");
      }
      read.notes.push_back(where + ": option ignored: " + line);
      continue;
    }
    // Split off the marker and the --hash options.
    std::vector<std::string> hashes;
    std::size_t option = line.find(" --");
    std::string options = option == std::string::npos ? "" : line.substr(option);
    std::string requirement = trim(option == std::string::npos ? line : line.substr(0, option));
    std::istringstream words(options);
    for (std::string word; words >> word;) {
      if (word.rfind("--hash=", 0) == 0) {
        hashes.push_back(word.substr(7));
      } else if (word == "--hash") {
        std::string value;
        words >> value;
        hashes.push_back(value);
      }
    }
    std::string marker;
    std::size_t semicolon = requirement.find(';');
    if (semicolon != std::string::npos) {
      marker = requirement.substr(semicolon + 1);
      requirement = trim(requirement.substr(0, semicolon));
    }
    LockedPackage package;
    std::size_t at = requirement.find(" @ ");
    std::size_t pin = requirement.find("==");
    if (at != std::string::npos) {
      // `name @ file:///…/name-1.0+cu128-cp312-….whl` (pip freeze of a local wheel install).
      package.name = normalize_package_name(trim(requirement.substr(0, at)));
      const std::string url = trim(requirement.substr(at + 3));
      if (url.rfind("git+", 0) == 0) {
        // `name @ git+URL@SHA`: built from that commit, a repo of the state.
        LockedRepo repo = vcs_repo(package.name, url);
        if (repo.commit.empty()) {
          fail(label, where, package.name + " from '" + url + "' names no commit (@SHA): a state needs an exact build");
        }
        if (!marker_holds(marker, target, label, where)) {
          read.notes.push_back(where + ": " + package.name + " left out, its marker does not hold for this target");
        } else {
          read.repos.push_back(repo);
        }
        continue;
      }
      if (std::size_t fragment = url.find("#sha256="); fragment != std::string::npos) {
        hashes.push_back("sha256:" + url.substr(fragment + 8, 64));  // what freeze writes for a hashed file URL
      }
      std::string file = file_name_of(url);
      std::optional<WheelName> wheel = parse_wheel_name(file);
      if (!wheel) {
        fail(label, where, package.name + " comes from '" + trim(requirement.substr(at + 3)) +
                               "', not a wheel: a state needs an exact build");
      }
      package.version = wheel->version_text;
      package.wheel = file;
    } else if (pin != std::string::npos) {
      package.name = normalize_package_name(trim(requirement.substr(0, pin)));
      std::string version = trim(requirement.substr(pin + (requirement.compare(pin, 3, "===") == 0 ? 3 : 2)));
      if (version.find_first_of(",<>!~*") != std::string::npos) {
        fail(label, where, "'" + requirement + "' is not one exact version");
      }
      package.version = version;
    } else {
      fail(label, where, "'" + requirement + "' is not pinned with ==: a state needs an exact build");
    }
    std::size_t bracket = package.name.find('[');
    if (bracket != std::string::npos) {
      package.name = package.name.substr(0, bracket);  // extras are what made it installed, not its build
    }
    if (package.name.empty()) {
      fail(label, where, "no package name in '" + line + "'");
    }
    check_version(package.version, label, where);
    if (!marker_holds(marker, target, label, where)) {
      read.notes.push_back(where + ": " + package.name + " left out, its marker does not hold for this target");
      continue;
    }
    if (!seen.insert(package.name).second) {
      fail(label, where, package.name + " is pinned twice");
    }
    keep_hashes(hashes, label, where, package);
    // The rule capture applies to pip, setuptools and wheel; a freeze does not say what needs them.
    if (const std::optional<std::string> why = installer_package_left_out(package.name, NeedsKnown::no, {})) {
      read.notes.push_back(where + ": " + package.name + " " + package.version + ": " + *why);
      continue;
    }
    if (const std::optional<std::string> note = installer_package_kept_note(package.name, label)) {
      read.notes.push_back(where + ": " + *note);
    }
    read.packages.push_back(package);
  }
  if (!logical.empty()) {
    fail(label, "line " + std::to_string(first_line), "ends with a line continuation");
  }
  return read;
}

}  // namespace

namespace lock_parts {

void finish_read(LockRead& read, const std::string& label) {
  std::sort(read.repos.begin(), read.repos.end(), [](const LockedRepo& a, const LockedRepo& b) { return a.name < b.name; });
  std::sort(read.packages.begin(), read.packages.end(),
            [](const LockedPackage& a, const LockedPackage& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < read.packages.size(); ++i) {
    if (read.packages[i].name == read.packages[i - 1].name) {
      fail(label, read.packages[i].name, "two builds for one target (" + read.packages[i - 1].version + " and " +
                                             read.packages[i].version + ")");
    }
  }
}

}  // namespace lock_parts

LockFormat lock_format_of(const std::string& file_name) {
  std::string base = file_name.substr(file_name.find_last_of('/') == std::string::npos ? 0 : file_name.find_last_of('/') + 1);
  if (base == "uv.lock") {
    return LockFormat::uv_lock;
  }
  if (base == "pylock.toml" || (base.rfind("pylock.", 0) == 0 && base.size() > 5 && base.substr(base.size() - 5) == ".toml")) {
    return LockFormat::pylock;
  }
  return LockFormat::requirements;
}

LockRead read_lock(LockFormat format, const std::string& text, const std::string& label, const MarkerEnvironment& target,
                   const LockOptions& options) {
  LockRead read;
  if (format == LockFormat::requirements) {
    read = read_requirements(text, label, target);
  } else {
    toml::table table;
    try {
      table = toml::parse(text, label);
    } catch (const toml::parse_error& error) {
      fail(label, "line " + std::to_string(error.source().begin.line) + ", column " +
                      std::to_string(error.source().begin.column),
           "malformed TOML: " + std::string(error.description()));
    }
    read = format == LockFormat::uv_lock ? read_uv_lock(table, label, target, options) : read_pylock(table, label, target);
  }
  finish_read(read, label);
  return read;
}

std::string default_python_of(LockFormat format, const std::string& text) {
  if (format == LockFormat::requirements) {
    return "";
  }
  std::string spec;
  try {
    toml::table table = toml::parse(text);
    spec = table["requires-python"].value_or(std::string());
  } catch (const toml::parse_error&) {
    return "";  // read_lock names the place
  }
  std::optional<Requirement> requirement = parse_requirement("python " + spec);
  if (spec.empty() || !requirement) {
    return "";
  }
  // The lowest CPython 3.N (and, where the bound needs one, its lowest patch release) the lock admits.
  for (int minor = 6; minor <= 20; ++minor) {
    for (int patch = 0; patch <= 40; ++patch) {
      const std::string full = "3." + std::to_string(minor) + "." + std::to_string(patch);
      std::optional<Version> version = Version::parse(full);
      if (version && satisfies(*version, *requirement)) {
        return patch == 0 ? "3." + std::to_string(minor) : full;
      }
    }
  }
  return "";
}

}  // namespace envbisect
