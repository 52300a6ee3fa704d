#include "matrix/cells.hpp"

#include <algorithm>
#include <set>

#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect::matrix {

namespace {

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-' || c == '+' || c == '=' || c == ',';
}

// Return a stable, file-system safe name for the assignment; unsafe characters make it carry a hash
// of the exact text, so two cells never share a folder.
std::string cell_id(const Assignment& assignment) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : assignment) {
    parts.push_back(name + "=" + value);
  }
  std::string raw = join(parts, ",");
  std::string safe = raw;
  std::replace_if(safe.begin(), safe.end(), [](char c) { return !safe_char(c); }, '_');
  if (safe != raw) {
    safe += "-" + sha256_hex(raw).substr(0, 8);
  }
  return safe;
}

bool matches(const Assignment& cell, const Assignment& rule) {
  for (const auto& [name, value] : rule) {
    auto found = cell.find(name);
    if (found == cell.end() || found->second != value) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<Cell> expand_cells(const MatrixSpec& spec) {
  // The product of the axes, odometer order: the last axis changes fastest.
  std::vector<Assignment> product = {Assignment{}};
  for (const AxisSpec& axis : spec.axes) {
    std::vector<Assignment> next;
    for (const Assignment& partial : product) {
      for (const std::string& value : axis.values) {
        Assignment grown = partial;
        grown[axis.name] = value;
        next.push_back(grown);
      }
    }
    product = std::move(next);
  }
  std::vector<Cell> cells;
  std::set<Assignment> seen;
  for (const Assignment& assignment : product) {
    bool excluded = std::any_of(spec.exclude.begin(), spec.exclude.end(),
                                [&](const Assignment& rule) { return matches(assignment, rule); });
    if (!excluded && seen.insert(assignment).second) {
      cells.push_back({cell_id(assignment), assignment});
    }
  }
  // Includes come after excludes: an include is a cell the user asked for by name.
  for (const Assignment& assignment : spec.include) {
    if (seen.insert(assignment).second) {
      cells.push_back({cell_id(assignment), assignment});
    }
  }
  return cells;
}

std::vector<std::string> latest_packages(const std::vector<Cell>& cells) {
  std::set<std::string> names;
  for (const Cell& cell : cells) {
    for (const auto& [name, value] : cell.assignment) {
      if (starts_with(name, "packages.") && value == "latest") {
        names.insert(normalize_package_name(name.substr(9)));
      }
    }
  }
  return {names.begin(), names.end()};
}

EnvState cell_state(const EnvState& base, const Cell& cell, const std::map<std::string, std::string>& latest) {
  EnvState state = base;
  state.name = cell.id;
  state.description = "matrix cell " + cell.id;
  for (const auto& [name, value] : cell.assignment) {
    std::size_t dot = name.find('.');
    std::string dimension = name.substr(0, dot);
    std::string key = name.substr(dot + 1);
    if (dimension == "packages") {
      key = normalize_package_name(key);
      std::string version = value;
      if (value == "latest") {
        auto found = latest.find(key);
        if (found == latest.end()) {
          throw Error("matrix cell " + cell.id + ": no wheel of '" + key + "' in the wheel folders, so \"latest\" means nothing",
                      ExitCode::bad_input);
        }
        version = found->second;
      }
      // The cell names a version; a wheel file or hash pinned by the base belongs to another version.
      state.packages[key] = PackagePin{version, std::nullopt, std::nullopt};
    } else if (dimension == "caches") {
      CacheState cache = state.caches.count(key) != 0 ? state.caches[key] : CacheState{key, ""};
      cache.state = value;
      state.caches[key] = cache;
    } else if (dimension == "threads") {
      try {
        state.threads[key] = std::stoll(value);
      } catch (const std::exception&) {
        throw Error("matrix cell " + cell.id + ": threads." + key + " = '" + value + "' is not a number", ExitCode::bad_input);
      }
    } else if (dimension == "env") {
      state.env[key] = value;
    } else if (dimension == "data") {
      state.data[key] = value;
    }
  }
  return state;
}

}  // namespace envbisect::matrix
