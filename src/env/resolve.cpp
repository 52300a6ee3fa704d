#include "env/resolve.hpp"

namespace envbisect {

std::vector<std::string> unmet_requirements(const std::map<std::string, DistMetadata>& set, const MarkerEnv& env,
                                            std::vector<std::string>* ignored) {
  std::vector<std::string> lines;
  for (const auto& [name, meta] : set) {
    for (const Requirement& req : meta.requires_dist) {
      const MarkerResult marker = evaluate_marker(req.marker, env);
      if (marker == MarkerResult::unknown && ignored != nullptr) {
        ignored->push_back(name + " " + meta.version + ": " + req.text + " (marker not evaluated)");
      }
      if (marker != MarkerResult::applies) {
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
