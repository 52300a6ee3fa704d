#include "env/resolve.hpp"

#include <functional>

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

std::vector<std::set<std::string>> pin_groups(const std::map<std::string, DistMetadata>& set) {
  std::map<std::string, std::string> parent;
  for (const auto& [name, meta] : set) {
    parent[name] = name;
  }
  std::function<std::string(const std::string&)> find = [&](const std::string& x) {
    return parent[x] == x ? x : parent[x] = find(parent[x]);
  };
  for (const auto& [name, meta] : set) {
    for (const Requirement& req : meta.requires_dist) {
      if (set.count(req.name) == 0 || req.marker.find("extra") != std::string::npos) {
        continue;
      }
      for (const Specifier& spec : req.specifiers) {
        if (spec.op == "==" || spec.op == "===") {
          parent[find(name)] = find(req.name);
        }
      }
    }
  }
  std::map<std::string, std::set<std::string>> groups;
  for (const auto& [name, meta] : set) {
    groups[find(name)].insert(name);
  }
  std::vector<std::set<std::string>> out;
  for (auto& [root, members] : groups) {
    if (members.size() > 1) {
      out.push_back(std::move(members));
    }
  }
  return out;
}

}  // namespace envbisect
