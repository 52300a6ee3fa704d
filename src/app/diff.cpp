#include "app/diff.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "app/inputs.hpp"
#include "core/delta.hpp"
#include "report/delta_table.hpp"

namespace envbisect {

ExitCode run_diff(const DiffOptions& options, std::ostream& out) {
  // Load both states first; a bad file stops here with every problem listed.
  EnvState good = load_state_file(options.good_path);
  EnvState bad = load_state_file(options.bad_path);
  resolve_present_repo_refs(good);  // two refs naming one commit are no difference
  resolve_present_repo_refs(bad);
  std::vector<Delta> deltas = diff_states(good, bad);

  // Print, as data or as a table.
  if (options.json) {
    nlohmann::json doc = {{"good", options.good_path}, {"bad", options.bad_path}, {"deltas", nlohmann::json::array()}};
    for (const Delta& delta : deltas) {
      doc["deltas"].push_back(delta_to_json(delta));
    }
    out << doc.dump(2) << "\n";
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
