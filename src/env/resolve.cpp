#include "env/resolve.hpp"

namespace envbisect {

std::vector<std::string> unmet_requirements(const std::map<std::string, DistMetadata>& set, const MarkerEnvironment& env,
                                            std::vector<std::string>* ignored) {
  std::vector<std::string> lines;
  for (const auto& [name, meta] : set) {
    for (const Requirement& req : meta.requires_dist) {
      const std::optional<bool> applies = marker_holds(req.marker, env);
      if (!applies && ignored != nullptr) {
        ignored->push_back(name + " " + meta.version + ": " + req.text + " (marker not evaluated)");
      }
      if (!applies.value_or(false)) {
        continue;
      }
      const std::string who = name + " " + meta.version + " requires " + req.text;
      const auto dep = set.find(req.name);
      if (dep == set.end()) {
        lines.push_back(who + ", which the candidate lacks");
        continue;
      }
      const auto version = Version::parse(dep->second.version);
      if (!version || !satisfies(*version, req)) {
        lines.push_back(who + ", but the candidate has " + dep->first + " " + dep->second.version);
      }
    }
  }
  return lines;
}

}  // namespace envbisect
