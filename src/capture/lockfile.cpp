#include "capture/lockfile.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "core/state.hpp"
#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "core/wheel_tags.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

[[noreturn]] void fail(const std::string& label, const std::string& where, const std::string& what) {
  throw Error(label + ": " + where + ": " + what, ExitCode::bad_input);
}

// Return whether `marker` holds for `target`; a marker that cannot be read is bad input naming the
// file and the place (the marker parser knows neither).
bool marker_holds(const std::string& marker, const MarkerEnvironment& target, const std::string& label,
                  const std::string& where) {
  try {
    return evaluate_marker(marker, target);
  } catch (const Error& error) {
    fail(label, where, error.what());
  }
}

// The file name at the end of a URL or path ("…/torch-2.11.0%2Bcu128-cp312-….whl#sha256=…").
std::string file_name_of(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  std::size_t slash = path.find_last_of('/');
  return percent_decode(slash == std::string::npos ? path : path.substr(slash + 1));
}

bool is_hex64(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// "sha256:abc…" -> "abc…"; other algorithms give "".
std::string sha256_of(const std::string& hash, const std::string& label, const std::string& where) {
  const std::string prefix = "sha256:";
  if (hash.rfind(prefix, 0) != 0) {
    return "";
  }
  std::string hex = hash.substr(prefix.size());
  std::transform(hex.begin(), hex.end(), hex.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!is_hex64(hex)) {
    fail(label, where, "expected sha256:<64 hex digits>, got '" + hash + "'");
  }
  return hex;
}

void check_version(const std::string& version, const std::string& label, const std::string& where) {
  if (!Version::parse(version)) {
    fail(label, where, "'" + version + "' is not a PEP 440 version");
  }
}

// A wheel a lock offers for a package.
struct OfferedWheel {
  std::string file;
  std::string sha256;
};

// Choose the wheel that fits `target` best; throw listing why none fits when wheels exist but none does.
void choose_wheel(LockedPackage& package, const std::vector<OfferedWheel>& wheels, bool has_sdist,
                  const MarkerEnvironment& target, const std::string& label, const std::string& where,
                  std::vector<std::string>& notes) {
  long best = -1;
  std::string why;
  for (const OfferedWheel& wheel : wheels) {
    std::optional<WheelName> name = parse_wheel_name(wheel.file);
    if (!name) {
      fail(label, where, "'" + wheel.file + "' is not a wheel file name");
    }
    long score = wheel_tag_score(*name, target);
    if (score > best) {
      best = score;
      package.wheel = wheel.file;
      package.sha256 = wheel.sha256;
    } else if (score < 0) {
      why += "\n  " + wheel.file + ": " + wheel_misfit_reason(*name, target);
    }
  }
  if (best >= 0 && wheels.size() > 1) {
    notes.push_back(package.name + " " + package.version + ": chose " + package.wheel + " of " +
                    std::to_string(wheels.size()) + " wheels");
  }
  if (best < 0 && !wheels.empty()) {
    if (has_sdist) {
      notes.push_back(package.name + " " + package.version + ": no wheel fits the target, only the sdist (not pinned)");
      return;
    }
    fail(label, where, "no wheel of " + package.name + " " + package.version + " fits CPython " +
                           target.variables.at("python_version") + " on Linux " +
                           target.variables.at("platform_machine") + ":" + why);
  }
}

std::string get_string(const toml::node_view<const toml::node>& node) {
  std::optional<std::string> value = node.value<std::string>();
  return value ? *value : std::string();
}

// ---- uv.lock -------------------------------------------------------------------------------------

struct UvEntry {
  const toml::table* table;
  std::string name;
  std::string version;
  std::string where;
};

bool markers_hold(const toml::array* markers, const MarkerEnvironment& target) {
  if (markers == nullptr || markers->empty()) {
    return true;
  }
  for (const toml::node& marker : *markers) {
    if (evaluate_marker(marker.value_or(std::string()), target)) {
      return true;
    }
  }
  return false;
}

bool is_project_root(const toml::table& package) {
  const toml::table* source = package["source"].as_table();
  return source != nullptr && (source->contains("editable") || source->contains("virtual"));
}

// Return the lock's [[package]] entries, each with its normalised name, version and place.
std::vector<UvEntry> uv_entries(const toml::table& lock, const std::string& label) {
  const toml::array* packages = lock["package"].as_array();
  if (packages == nullptr) {
    fail(label, "/package", "no [[package]] entries (is this a uv.lock?)");
  }
  std::vector<UvEntry> entries;
  entries.reserve(packages->size());
  for (std::size_t i = 0; i < packages->size(); ++i) {
    const std::string where = "/package/" + std::to_string(i);
    const toml::table* table = (*packages)[i].as_table();
    if (table == nullptr) {
      fail(label, where, "expected a table");
    }
    UvEntry entry{table, normalize_package_name(get_string((*table)["name"])), get_string((*table)["version"]), where};
    if (entry.name.empty()) {
      fail(label, where + "/name", "missing");
    }
    entries.push_back(entry);
  }
  return entries;
}

// The entries of a uv.lock that a target installs: the closure of dependency lists (markers
// evaluated for the target, extras followed, a name with several resolutions taken where its
// resolution markers hold).
class UvClosure {
public:
  UvClosure(const std::vector<UvEntry>& entries, const std::string& label, const MarkerEnvironment& target)
      : m_label(label), m_target(target) {
    for (const UvEntry& entry : entries) {
      m_by_name.emplace(entry.name, &entry);
    }
  }

  // Take in the dependencies listed at `dependencies` (at `where` in the lock), and theirs.
  void follow_all(const toml::array* dependencies, const std::string& where) {
    follow(dependencies, where);
    while (!m_queue.empty()) {
      const UvEntry* entry = m_queue.back();
      m_queue.pop_back();
      follow((*entry->table)["dependencies"].as_array(), entry->where + "/dependencies");
    }
  }

  // Return the entries taken in so far.
  std::set<const UvEntry*>& included() { return m_included; }

private:
  // Return the entry of `name` a dependency means: its version when given, else the one whose
  // resolution markers hold for the target.
  const UvEntry* resolve(const std::string& name, const std::string& version, const std::string& where) const {
    auto [first, last] = m_by_name.equal_range(name);
    const UvEntry* chosen = nullptr;
    for (auto it = first; it != last; ++it) {
      if (!version.empty() && it->second->version != version) {
        continue;
      }
      if (!markers_hold((*it->second->table)["resolution-markers"].as_array(), m_target) && std::next(first) != last) {
        continue;
      }
      chosen = it->second;
    }
    if (chosen == nullptr) {
      fail(m_label, where, "depends on " + name + (version.empty() ? "" : " " + version) +
                               ", which the lock does not hold for this target");
    }
    return chosen;
  }

  // Take in `dependency` (a table with name, version and marker) when its marker holds.
  const UvEntry* take(const toml::table& dependency, const std::string& where) {
    if (!evaluate_marker(get_string(dependency["marker"]), m_target)) {
      return nullptr;
    }
    const UvEntry* entry =
        resolve(normalize_package_name(get_string(dependency["name"])), get_string(dependency["version"]), where);
    if (m_included.insert(entry).second) {
      m_queue.push_back(entry);
    }
    return entry;
  }

  // Follow one dependency list; `extra` entries name optional dependency groups of the target package.
  void follow(const toml::array* dependencies, const std::string& where) {
    if (dependencies == nullptr) {
      return;
    }
    for (std::size_t j = 0; j < dependencies->size(); ++j) {
      const toml::table* dependency = (*dependencies)[j].as_table();
      const std::string at = where + "/" + std::to_string(j);
      if (dependency == nullptr) {
        fail(m_label, at, "expected a table");
      }
      const UvEntry* entry = take(*dependency, at);
      const toml::array* extras = (*dependency)["extra"].as_array();
      const toml::table* optional = entry != nullptr ? (*entry->table)["optional-dependencies"].as_table() : nullptr;
      if (extras == nullptr || optional == nullptr) {
        continue;
      }
      for (const toml::node& extra : *extras) {
        const std::string group = extra.value_or(std::string());
        if (const toml::array* members = (*optional)[group].as_array()) {
          // Members of an extra go through the same marker test as plain dependencies.
          for (const toml::node& member : *members) {
            if (const toml::table* m = member.as_table()) {
              take(*m, entry->where + "/optional-dependencies/" + group);
            }
          }
        }
      }
    }
  }

  const std::string& m_label;
  const MarkerEnvironment& m_target;
  std::multimap<std::string, const UvEntry*> m_by_name;
  std::set<const UvEntry*> m_included;
  std::vector<const UvEntry*> m_queue;
};

// Return the wheels `entry` offers: each one's file name (from its url, path or filename) and sha256.
std::vector<OfferedWheel> uv_wheels(const UvEntry& entry, const std::string& label) {
  std::vector<OfferedWheel> wheels;
  if (const toml::array* offered = (*entry.table)["wheels"].as_array()) {
    for (std::size_t k = 0; k < offered->size(); ++k) {
      const toml::table* wheel = (*offered)[k].as_table();
      const std::string at = entry.where + "/wheels/" + std::to_string(k);
      if (wheel == nullptr) {
        fail(label, at, "expected a table");
      }
      std::string url = get_string((*wheel)["url"]);
      if (url.empty()) {
        url = get_string((*wheel)["path"]);
      }
      if (url.empty()) {
        url = get_string((*wheel)["filename"]);
      }
      wheels.push_back({file_name_of(url), sha256_of(get_string((*wheel)["hash"]), label, at + "/hash")});
    }
  }
  return wheels;
}

LockRead read_uv_lock(const toml::table& lock, const std::string& label, const MarkerEnvironment& target) {
  LockRead read;
  // uv writes `version = 1` and refuses a lock of a version it does not know; so does this reader,
  // whose meaning of the fields is version 1's.
  const std::optional<std::int64_t> version = lock["version"].value<std::int64_t>();
  if (!version || *version != 1) {
    fail(label, "/version", lock.contains("version") ? "uv.lock version " + (version ? std::to_string(*version) : "'?'") +
                                                           "; this envbisect reads version 1"
                                                     : "missing (uv writes version = 1)");
  }
  const std::vector<UvEntry> entries = uv_entries(lock, label);
  std::vector<const UvEntry*> roots;
  for (const UvEntry& entry : entries) {
    if (is_project_root(*entry.table)) {
      roots.push_back(&entry);
    }
  }
  UvClosure closure(entries, label, target);
  if (roots.empty()) {
    // A lock without a project (e.g. a tool's): every package that holds for the target.
    for (const UvEntry& entry : entries) {
      if (markers_hold((*entry.table)["resolution-markers"].as_array(), target)) {
        closure.included().insert(&entry);
      }
    }
    read.notes.push_back("no project root in the lock: every package whose resolution markers hold is taken");
  }
  for (const UvEntry* root : roots) {
    closure.follow_all((*root->table)["dependencies"].as_array(), root->where + "/dependencies");
    // Development groups are installed by `uv sync` by default; the job ran with them.
    if (const toml::table* groups = (*root->table)["dev-dependencies"].as_table()) {
      for (const auto& [group, members] : *groups) {
        closure.follow_all(members.as_array(), root->where + "/dev-dependencies/" + std::string(group.str()));
      }
    }
  }
  for (const UvEntry* root : roots) {
    closure.included().erase(root);  // the project itself is what the job runs, not an installed build
  }
  for (const UvEntry& entry : entries) {
    if (closure.included().count(&entry) == 0) {
      continue;
    }
    if (entry.version.empty()) {
      fail(label, entry.where + "/version", entry.name + " has no version (a path or git source?): a state needs an exact build");
    }
    check_version(entry.version, label, entry.where + "/version");
    LockedPackage package{entry.name, entry.version, "", ""};
    choose_wheel(package, uv_wheels(entry, label), (*entry.table).contains("sdist"), target, label, entry.where,
                 read.notes);
    read.packages.push_back(package);
  }
  const std::size_t left_out = entries.size() - roots.size() - read.packages.size();
  if (left_out > 0 && !roots.empty()) {
    read.notes.push_back(std::to_string(left_out) + " lock entr" + (left_out == 1 ? "y" : "ies") +
                         " not installed for this target (markers, other resolutions, unused extras)");
  }
  return read;
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
    if (!markers_hold(environments, target)) {
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
    LockedPackage package{normalize_package_name(get_string((*table)["name"])), get_string((*table)["version"]), "", ""};
    if (package.name.empty()) {
      fail(label, where + "/name", "missing");
    }
    if (!marker_holds(get_string((*table)["marker"]), target, label, where + "/marker")) {
      read.notes.push_back(package.name + ": left out, its marker does not hold for this target");
      continue;
    }
    if (package.version.empty()) {
      fail(label, where + "/version", package.name + " has no version (a path or VCS source?): a state needs an exact build");
    }
    check_version(package.version, label, where + "/version");
    std::vector<OfferedWheel> wheels;
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
          }
        }
        wheels.push_back({file, hash});
      }
    }
    choose_wheel(package, wheels, table->contains("sdist"), target, label, where, read.notes);
    read.packages.push_back(package);
  }
  return read;
}

// ---- requirements.txt, pip freeze ----------------------------------------------------------------

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
        read.notes.push_back(where + ": editable install left out (a repo, not a build): " + line);
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
      std::string file = file_name_of(trim(requirement.substr(at + 3)));
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
    std::vector<std::string> sha256s;
    for (const std::string& hash : hashes) {
      std::string hex = sha256_of(hash, label, where);
      if (!hex.empty()) {
        sha256s.push_back(hex);
      }
    }
    if (sha256s.size() == 1) {
      package.sha256 = sha256s.front();
    } else if (sha256s.size() > 1) {
      read.notes.push_back(where + ": " + package.name + " lists " + std::to_string(sha256s.size()) +
                           " hashes (one per wheel); the state pins the version only");
    }
    read.packages.push_back(package);
  }
  if (!logical.empty()) {
    fail(label, "line " + std::to_string(first_line), "ends with a line continuation");
  }
  return read;
}

}  // namespace

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

LockRead read_lock(LockFormat format, const std::string& text, const std::string& label, const MarkerEnvironment& target) {
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
    read = format == LockFormat::uv_lock ? read_uv_lock(table, label, target) : read_pylock(table, label, target);
  }
  std::sort(read.packages.begin(), read.packages.end(),
            [](const LockedPackage& a, const LockedPackage& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < read.packages.size(); ++i) {
    if (read.packages[i].name == read.packages[i - 1].name) {
      fail(label, read.packages[i].name, "two builds for one target (" + read.packages[i - 1].version + " and " +
                                             read.packages[i].version + ")");
    }
  }
  return read;
}

}  // namespace envbisect
