#include "app/run/plan/units.hpp"

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

#include "core/version.hpp"
#include "env/wheel_source.hpp"
#include "util/error.hpp"

namespace envbisect {

namespace {

// Return the changed packages: normalised name -> index of its delta.
std::map<std::string, std::size_t> package_deltas(const std::vector<Delta>& deltas) {
  std::map<std::string, std::size_t> out;
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    if (deltas[i].dimension == Dimension::packages) {
      out[deltas[i].name] = i;
    }
  }
  return out;
}

// Return the metadata of the packages `names` of `state` that the sources hold.
std::map<std::string, DistMetadata> read_metadata(const EnvState& state, const std::map<std::string, std::size_t>& names,
                                                  const WheelSources& sources) {
  std::map<std::string, DistMetadata> out;
  for (const auto& [name, delta] : names) {
    const auto pin = state.packages.find(name);
    if (pin == state.packages.end()) {
      continue;
    }
    try {
      std::optional<Distribution> dist = find_distribution(sources, name, pin->second.version, state.python.version);
      if (!dist) {
        continue;
      }
      out[name] = read_distribution_metadata(*dist);
    } catch (const Error& error) {
      spdlog::warn("{} {}: metadata not readable, it moves alone: {}", name, pin->second.version, error.what());
    }
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::size_t>> units_from_metadata(const std::vector<Delta>& deltas, const EnvState& good,
                                                          const EnvState& bad, const EndsMetadata& metadata) {
  // Union-find over delta indices; pinned package pairs are joined.
  std::vector<std::size_t> parent(deltas.size());
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    parent[i] = i;
  }
  auto find = [&](std::size_t i) {
    while (parent[i] != i) {
      i = parent[i] = parent[parent[i]];
    }
    return i;
  };
  // X and Y move together when X at one end requires a Y that Y's version at the other end does not
  // satisfy: moving X alone would be unresolvable. (`==2.11.0` is met by +cu128 and +cu130 alike.)
  const std::map<std::string, std::size_t> package_delta = package_deltas(deltas);
  const EnvState* others[2] = {&bad, &good};
  const std::map<std::string, DistMetadata>* ends[2] = {&metadata.good, &metadata.bad};
  for (int end = 0; end < 2; ++end) {
    const EnvState& other = *others[end];
    for (const auto& [name, delta_index] : package_delta) {
      auto meta = ends[end]->find(name);
      if (meta == ends[end]->end()) {
        continue;
      }
      for (const Requirement& requirement : meta->second.requires_dist) {
        auto target = package_delta.find(requirement.name);
        if (target == package_delta.end() || target->first == name || !requirement.marker.empty()) {
          continue;
        }
        auto pin = other.packages.find(requirement.name);
        std::optional<Version> version = pin == other.packages.end() ? std::nullopt : Version::parse(pin->second.version);
        if (!version || !satisfies(*version, requirement)) {
          parent[find(target->second)] = find(delta_index);
        }
      }
    }
  }
  std::map<std::size_t, std::vector<std::size_t>> by_root;
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    by_root[find(i)].push_back(i);
  }
  std::vector<std::vector<std::size_t>> units;
  for (auto& [root, members] : by_root) {
    units.push_back(members);
  }
  std::sort(units.begin(), units.end());
  return units;
}

std::vector<std::vector<std::size_t>> plan_units(const std::vector<Delta>& deltas, const EnvState& good,
                                                 const EnvState& bad, const std::vector<std::string>& wheel_dirs,
                                                 const std::vector<std::string>& uv_caches) {
  // Only the changed packages' requirements can join two deltas: their metadata is all we read.
  EndsMetadata metadata;
  const std::map<std::string, std::size_t> package_delta = package_deltas(deltas);
  if (package_delta.size() >= 2 && !(wheel_dirs.empty() && uv_caches.empty())) {
    const WheelSources sources = index_sources(WheelSources{wheel_dirs, uv_caches});
    metadata.good = read_metadata(good, package_delta, sources);
    metadata.bad = read_metadata(bad, package_delta, sources);
  }
  return units_from_metadata(deltas, good, bad, metadata);
}

std::vector<std::size_t> rename_partners(const std::vector<Delta>& deltas,
                                         const std::vector<std::vector<std::size_t>>& units,
                                         const std::vector<std::size_t>& unit_set) {
  // Which kinds of package change the set holds: an addition looks for a removal, and the other way.
  auto is_package = [&](std::size_t index, bool added) {
    const Delta& delta = deltas[index];
    return delta.dimension == Dimension::packages && (added ? !delta.good && delta.bad : delta.good && !delta.bad);
  };
  bool adds = false;
  bool removes = false;
  for (std::size_t unit : unit_set) {
    for (std::size_t index : units[unit]) {
      adds = adds || is_package(index, true);
      removes = removes || is_package(index, false);
    }
  }
  std::vector<std::size_t> out;
  for (std::size_t unit = 0; unit < units.size(); ++unit) {
    const bool member = std::binary_search(unit_set.begin(), unit_set.end(), unit);
    const bool other_half = std::any_of(units[unit].begin(), units[unit].end(), [&](std::size_t index) {
      return (adds && is_package(index, false)) || (removes && is_package(index, true));
    });
    if (!member && other_half) {
      out.push_back(unit);
    }
  }
  return out;
}

}  // namespace envbisect
