#include "app/commands/diff.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "app/inputs/load.hpp"
#include "core/delta.hpp"
#include "report/delta_table.hpp"
#include "util/strings.hpp"

namespace envbisect {

ExitCode run_diff(const DiffOptions& options, std::ostream& out) {
  // Load both states first; a bad file stops here with every problem listed.
  EnvState good = load_state_file(options.good_path);
  EnvState bad = load_state_file(options.bad_path);
  const auto good_repos_as_written = good.repos;  // what resolving may change: the repos' commits
  const auto bad_repos_as_written = bad.repos;
  const std::set<std::string> good_unresolved = resolve_present_repo_refs(good);  // two refs naming one commit
  const std::set<std::string> bad_unresolved = resolve_present_repo_refs(bad);    // are no difference
  // A ref resolved on one side only cannot be compared with the other side's text ("v1" against the id
  // v1 names): both are compared as written, and the side whose repository was not found is named.
  for (auto& [name, repo] : good.repos) {
    const auto other = bad.repos.find(name);
    if (other == bad.repos.end() || good_unresolved.count(name) == bad_unresolved.count(name)) {
      continue;
    }
    const bool good_missing = good_unresolved.count(name) > 0;
    const std::string& path = good_missing ? options.good_path : options.bad_path;
    const RepoPin& missing = good_missing ? good_repos_as_written.at(name) : bad_repos_as_written.at(name);
    std::cerr << "envbisect: warning: " << path << ": /repos/" << pointer_token(name) << ": " << missing.path
              << (std::filesystem::is_directory(missing.path) ? " lacks " + missing.commit : std::string(" is not a directory"))
              << "; both sides compared as written\n";
    repo = good_repos_as_written.at(name);
    other->second = bad_repos_as_written.at(name);
  }
  // A field one state does not know (a lock's state knows no caches) is no difference: say so.
  for (const auto& [state, other, path, other_path] :
       {std::tuple{&good, &bad, options.good_path, options.bad_path}, std::tuple{&bad, &good, options.bad_path, options.good_path}}) {
    const std::vector<std::string> taken = taken_from_other(*state, *other);
    if (!taken.empty()) {
      std::cerr << "envbisect: note: " << escape_control(path) << " does not know " << join(taken, ", ") << "; compared as in "
                << escape_control(other_path) << "\n";
    }
  }
  std::vector<Delta> deltas = diff_states(good, bad);

  // Print, as data or as a table.
  if (options.json) {
    nlohmann::json doc = {{"good", options.good_path}, {"bad", options.bad_path}, {"deltas", nlohmann::json::array()}};
    for (const Delta& delta : deltas) {
      doc["deltas"].push_back(delta_to_json(delta));
    }
    out << doc.dump(2, ' ', true) << "\n";  // ASCII only: a C1 control in a value stays \u009b
  } else if (deltas.empty()) {
    out << "The states are identical: " << options.good_path << " and " << options.bad_path
        << " describe the same environment.\n";
  } else {
    out << render_delta_table(deltas);
    out << deltas.size() << (deltas.size() == 1 ? " difference" : " differences") << " between " << options.good_path
        << " (good) and " << options.bad_path << " (bad).\n";
  }
  return options.exit_code && !deltas.empty() ? ExitCode::inconclusive : ExitCode::ok;
}

}  // namespace envbisect
