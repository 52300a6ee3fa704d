// uv as the oracle: for every real uv.lock of tests/uv_oracle (16 public repositories, two revisions
// each) and every flag combination of cases.txt, envbisect's reading of the lock for CPython on Linux
// x86_64 holds the same packages (name, version, every sha256), git commits and local folders as
// `uv export --frozen` (uv 0.11.15) wrote for it, evaluated for the same target; where uv refused
// (conflicting extras, a group the project lacks), envbisect refuses too. Between a lock's two
// revisions, the differences are uv's differences. tests/uv_oracle/README.md says how the exports
// were made.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "capture/lock_parts.hpp"
#include "capture/lockfile.hpp"
#include "core/version.hpp"
#include "util/error.hpp"

using namespace envbisect;

namespace {

namespace fs = std::filesystem;

const fs::path k_dir = ENVBISECT_UV_ORACLE_DIR;  // the fixtures unpacked at build time

std::optional<std::string> slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Case {
  std::string name;
  std::string rev;
  std::string id;
  std::vector<std::string> flags;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  std::istringstream in(slurp(k_dir / "cases.txt").value_or(""));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    Case c;
    words >> c.name >> c.rev >> c.id;
    for (std::string word; words >> word;) {
      c.flags.push_back(word);
    }
    if (!c.id.empty()) {
      all.push_back(c);
    }
  }
  return all;
}

// uv's flags as the `state` command reads them.
UvSelection selection_of(const std::vector<std::string>& flags) {
  UvSelection uv;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const std::string& flag = flags[i];
    const std::string value = i + 1 < flags.size() ? flags[i + 1] : "";
    if (flag == "--all-packages") {
      uv.all_packages = true;
    } else if (flag == "--all-extras") {
      uv.all_extras = true;
    } else if (flag == "--all-groups") {
      uv.all_groups = true;
    } else if (flag == "--no-dev") {
      uv.no_dev = true;
    } else if (flag == "--no-default-groups") {
      uv.no_default_groups = true;
    } else if (flag == "--package") {
      uv.packages.push_back(value), ++i;
    } else if (flag == "--extra") {
      uv.extras.push_back(value), ++i;
    } else if (flag == "--group") {
      uv.groups.push_back(value), ++i;
    } else if (flag == "--only-group") {
      uv.only_groups.push_back(value), ++i;
    } else {
      FAIL("cases.txt: unknown flag " << flag);
    }
  }
  return uv;
}

// One side's installed set: "name version hash,hash,…" per package, "git name url commit" per git
// source and "path FOLDER" per local folder.
std::set<std::string> items_of(const LockRead& read) {
  std::set<std::string> items;
  for (const LockedPackage& p : read.packages) {
    std::string hashes;
    for (const std::string& h : p.hashes) {
      hashes += h.substr(0, 16) + ",";
    }
    // Versions compared normalised, as states compare them ("cxx11abiTRUE" in a wheel's name is the
    // lock's "cxx11abitrue").
    items.insert(p.name + " " + Version::parse(p.version).value().to_string() + " " + hashes);
  }
  for (const LockedRepo& r : read.repos) {
    if (r.kind == "git") {
      items.insert("git " + r.name + " " + r.url + " " + r.commit + " " + r.subdirectory);
    } else {
      items.insert("path " + (r.path.rfind("./", 0) == 0 ? r.path.substr(2) : r.path));
    }
  }
  return items;
}

// uv's export read for the target: the requirements reader evaluates its markers; `-e .` (the
// project itself, which the requirements reader leaves out) is added as the folder ".".
std::set<std::string> uv_items(const std::string& text, const std::string& label, const MarkerEnvironment& target) {
  std::set<std::string> items = items_of(read_lock(LockFormat::requirements, text, label, target));
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line == "-e ." || (line.rfind("-e . ;", 0) == 0 && evaluate_marker(line.substr(6), target))) {
      items.insert("path .");
    }
  }
  return items;
}

std::string show(const std::set<std::string>& items) {
  std::string text;
  for (const std::string& item : items) {
    text += "  " + item + "\n";
  }
  return text;
}

std::map<std::string, std::string> keyed(const std::set<std::string>& items) {
  std::map<std::string, std::string> by_key;
  for (const std::string& item : items) {
    std::size_t space = item.find(' ');
    std::string key = item.substr(0, space);
    if (key == "git") {
      key = item.substr(0, item.find(' ', space + 1));
    }
    by_key[key] = item;
  }
  return by_key;
}

// The differences between two sets, keyed by package: "name: old -> new".
std::set<std::string> diff_of(const std::set<std::string>& good, const std::set<std::string>& bad) {
  std::map<std::string, std::string> a = keyed(good);
  std::map<std::string, std::string> b = keyed(bad);
  std::set<std::string> deltas;
  for (const auto& [key, item] : a) {
    auto other = b.find(key);
    if (other == b.end()) {
      deltas.insert("- " + item);
    } else if (other->second != item) {
      deltas.insert("~ " + item + " -> " + other->second);
    }
  }
  for (const auto& [key, item] : b) {
    if (a.count(key) == 0) {
      deltas.insert("+ " + item);
    }
  }
  return deltas;
}

}  // namespace

TEST_CASE("uv.lock read as uv export reads it: every real lock, revision and flag combination", "[capture][uv_oracle]") {
  std::vector<Case> all = cases();
  REQUIRE(all.size() > 500);
#ifdef ENVBISECT_SANITIZED
  // Under the sanitizers every sixth lock, with all its revisions and flag combinations: the same
  // reading code on a sample of the real locks, in seconds instead of six minutes.
  {
    std::map<std::string, std::size_t> index_of_lock;
    for (const Case& c : all) {
      index_of_lock.emplace(c.name, index_of_lock.size());
    }
    std::erase_if(all, [&](const Case& c) { return index_of_lock.at(c.name) % 6 != 0; });
    REQUIRE(all.size() > 50);
  }
#endif
  std::map<std::pair<std::string, std::string>, std::vector<std::set<std::string>>> ours_by_rev;
  std::map<std::pair<std::string, std::string>, std::vector<std::set<std::string>>> uvs_by_rev;
  std::set<std::string> locks;
  std::map<std::string, toml::table> tables;
  int equal = 0;
  int refused_both = 0;
  int uv_only_refused = 0;
  int two_builds = 0;
  int hinted = 0;
  for (const Case& c : all) {
    const fs::path folder = k_dir / "locks" / c.name / c.rev;
    const fs::path expected = k_dir / "expected" / c.name / c.rev;
    const std::string label = c.name + "/" + c.rev + " " + c.id;
    INFO(label);
    const std::string lock = slurp(folder / "uv.lock").value();
    // Each lock is parsed once (the files are up to 1.7 MB); read_lock parses the same text.
    auto parsed = tables.find(folder.string());
    if (parsed == tables.end()) {
      parsed = tables.emplace(folder.string(), toml::parse(lock)).first;
    }
    const toml::table& table = parsed->second;
    auto read_ours = [&](const MarkerEnvironment& target, const LockOptions& options) {
      LockRead read = lock_parts::read_uv_lock(table, label, target, options);
      lock_parts::finish_read(read, label);
      return read;
    };
    locks.insert(c.name + "/" + c.rev);
    LockOptions options;
    options.uv = selection_of(c.flags);
    options.read_beside = [&](const std::string& relative) { return slurp(folder / relative); };
    // The target: the lock's lowest Python, or the one envbisect's error names when no wheel fits it
    // (as a user would follow `hint: --python 3.11`).
    std::string python = default_python_of(LockFormat::uv_lock, lock);
    std::optional<LockRead> first;
    std::string first_error;
    try {
      first = read_ours(linux_marker_environment(python), options);
    } catch (const Error& error) {
      first_error = error.what();
      if (std::size_t hint = first_error.find("hint: --python "); hint != std::string::npos) {
        python = first_error.substr(hint + 15, first_error.find_first_of("\n ", hint + 15) - (hint + 15));
        first_error.clear();
        ++hinted;
      }
    }
    const MarkerEnvironment target = linux_marker_environment(python);
    auto read_target = [&]() {
      if (first) {
        return *first;
      }
      if (!first_error.empty()) {
        throw Error(first_error, ExitCode::bad_input);
      }
      return read_ours(target, options);
    };
    const int uv_rc = std::stoi(slurp(expected / (c.id + ".rc")).value());
    if (uv_rc != 0) {
      // uv refused this selection; so must envbisect, unless it is one of the refusals noted below.
      bool refused = false;
      try {
        read_target();
      } catch (const Error&) {
        refused = true;
      }
      const std::string why = slurp(expected / (c.id + ".err")).value_or("");
      if (refused) {
        ++refused_both;
      } else {
        ++uv_only_refused;
      }
      INFO(c.name << " " << c.rev << " " << c.id << ": uv refused (" << why << "), envbisect read it");
      CHECK(refused);
      continue;
    }
    // Where uv's export names two builds of one package for the target (NeMo RL's --package
    // megatron-bridge: transformers 5.5.4 and 5.8.1, no markers), no state can hold both: envbisect
    // must refuse it as the export's reading refuses it.
    std::string ours_error;
    std::string uv_error;
    std::set<std::string> envbisect;
    std::set<std::string> uv;
    try {
      envbisect = items_of(read_target());
    } catch (const Error& error) {
      ours_error = error.what();
    }
    try {
      uv = uv_items(slurp(expected / (c.id + ".txt")).value(), label + " (uv export)", target);
    } catch (const Error& error) {
      uv_error = error.what();
    }
    INFO("envbisect: " << ours_error << "\nuv export read: " << uv_error);
    CHECK(ours_error.empty() == uv_error.empty());
    if (!ours_error.empty() || !uv_error.empty()) {
      two_builds += ours_error.find("two builds") != std::string::npos && uv_error.find("pinned twice") != std::string::npos;
      continue;
    }
    std::set<std::string> only_ours;
    std::set<std::string> only_uv;
    std::set_difference(envbisect.begin(), envbisect.end(), uv.begin(), uv.end(), std::inserter(only_ours, only_ours.end()));
    std::set_difference(uv.begin(), uv.end(), envbisect.begin(), envbisect.end(), std::inserter(only_uv, only_uv.end()));
    INFO("only envbisect:\n" << show(only_ours) << "only uv export:\n" << show(only_uv));
    CHECK(only_ours.empty());
    CHECK(only_uv.empty());
    if (only_ours.empty() && only_uv.empty()) {
      ++equal;
    }
    ours_by_rev[{c.name, c.id}].push_back(envbisect);
    uvs_by_rev[{c.name, c.id}].push_back(uv);
  }
  // Between the two revisions of a lock, for each selection both could read: the same differences.
  int diffs = 0;
  int deltas = 0;
  for (const auto& [key, sets] : ours_by_rev) {
    const auto& uv_sets = uvs_by_rev[key];
    if (sets.size() != 2) {
      continue;
    }
    INFO(key.first << " " << key.second);
    const std::set<std::string> our_diff = diff_of(sets[0], sets[1]);
    CHECK(our_diff == diff_of(uv_sets[0], uv_sets[1]));
    ++diffs;
    deltas += static_cast<int>(our_diff.size());
  }
  std::cout << "uv oracle: " << locks.size() << " locks (lock x revision), " << all.size() << " cases: " << equal
            << " equal to uv export, " << refused_both << " refused by both, " << uv_only_refused
            << " refused by uv only, " << two_builds << " with two builds of one package in both; " << hinted
            << " read for the Python the error's hint named; " << diffs << " revision diffs equal to uv's (" << deltas << " deltas)\n";
}

namespace {

// The lock x revisions of cases.txt that have a `default` case, in order.
std::vector<std::pair<std::string, std::string>> default_locks() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Case& c : cases()) {
    if (c.id == "default") {
      out.emplace_back(c.name, c.rev);
    }
  }
  return out;
}

// Whether the environment asks for uv's pylock.toml exports to be there (ENVBISECT_UV_PYLOCK=1).
bool pylock_required() {
  const char* value = std::getenv("ENVBISECT_UV_PYLOCK");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace

// uv's pylock.toml exports (tests/uv_oracle/export_pylock.sh) are written on a machine with uv; until
// they are in expected.tar.xz this case fails when ENVBISECT_UV_PYLOCK=1 asks for them, naming each.
TEST_CASE("uv pylock.toml exports are present for every lock and revision (ENVBISECT_UV_PYLOCK=1)", "[capture][uv_oracle][uv_pylock]") {
  const auto locks = default_locks();
  REQUIRE(locks.size() >= 30);
  std::vector<std::string> missing;
  for (const auto& [name, rev] : locks) {
    if (!fs::exists(k_dir / "expected" / name / rev / "pylock.rc")) {
      missing.push_back(name + "/" + rev);
    }
  }
  std::cout << "uv pylock oracle: " << locks.size() - missing.size() << " of " << locks.size()
            << " pylock.toml exports present" << (missing.empty() ? "" : " (tests/uv_oracle/export_pylock.sh writes them)") << "\n";
  std::string names;
  for (const std::string& lock : missing) {
    names += lock + " ";
  }
  INFO("missing: " << names);
  if (pylock_required() || missing.size() < locks.size()) {
    CHECK(missing.empty());  // asked for, or some there: then every one, none half-exported
  } else {
    WARN("no uv pylock.toml export yet: the pylock oracle compares nothing (ENVBISECT_UV_PYLOCK=1 makes this a failure)");
  }
}

// Every pylock.toml uv wrote is read as uv's requirements export of the same lock (the `default` case):
// the same packages, versions and every sha256, git commits and folders, for the same target.
TEST_CASE("pylock.toml read as uv export reads the same lock: every uv pylock export present", "[capture][uv_oracle][uv_pylock]") {
  int compared = 0;
  int refused_both = 0;
  int present = 0;
  for (const auto& [name, rev] : default_locks()) {
    const fs::path expected = k_dir / "expected" / name / rev;
    const std::optional<std::string> rc_text = slurp(expected / "pylock.rc");
    if (!rc_text) {
      continue;  // counted by the case above
    }
    ++present;
    const std::string label = name + "/" + rev + " pylock.toml";
    INFO(label << "\nuv: " << slurp(expected / "pylock.err").value_or(""));
    const int uv_rc = std::stoi(*rc_text);
    CHECK(uv_rc == std::stoi(slurp(expected / "default.rc").value()));
    if (uv_rc != 0) {
      ++refused_both;
      continue;
    }
    const std::string pylock = slurp(expected / "pylock.toml").value();
    const std::string requirements = slurp(expected / "default.txt").value();
    // The target as the uv.lock check takes it: the lock's lowest Python, or the one a refusal's hint names.
    std::string python = default_python_of(LockFormat::uv_lock, slurp(k_dir / "locks" / name / rev / "uv.lock").value());
    std::set<std::string> ours;
    std::string error;
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        ours = items_of(read_lock(LockFormat::pylock, pylock, label, linux_marker_environment(python)));
        error.clear();
        break;
      } catch (const Error& e) {
        error = e.what();
        const std::size_t hint = error.find("hint: --python ");
        if (hint == std::string::npos) {
          break;
        }
        python = error.substr(hint + 15, error.find_first_of("\n ", hint + 15) - (hint + 15));
      }
    }
    INFO("envbisect: " << error);
    REQUIRE(error.empty());
    const std::set<std::string> uv = uv_items(requirements, label + " (uv export)", linux_marker_environment(python));
    std::set<std::string> only_ours;
    std::set<std::string> only_uv;
    std::set_difference(ours.begin(), ours.end(), uv.begin(), uv.end(), std::inserter(only_ours, only_ours.end()));
    std::set_difference(uv.begin(), uv.end(), ours.begin(), ours.end(), std::inserter(only_uv, only_uv.end()));
    INFO("only envbisect's pylock reading:\n" << show(only_ours) << "only uv's requirements export:\n" << show(only_uv));
    CHECK(only_ours.empty());
    CHECK(only_uv.empty());
    ++compared;
  }
  CHECK(compared + refused_both == present);
  std::cout << "uv pylock oracle: " << present << " pylock.toml exports: " << compared << " read as uv's requirements export, "
            << refused_both << " refused by uv\n";
}
