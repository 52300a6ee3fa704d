#include "app/commands/repro.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/measure/evaluate.hpp"
#include "app/inputs/load.hpp"
#include "app/run/guard.hpp"
#include "core/delta.hpp"
#include "exec/runner.hpp"
#include "stats/quantity.hpp"
#include "store/journal.hpp"
#include "store/run_folder.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"
#include "util/words.hpp"

namespace envbisect {

using nlohmann::json;

ExitCode run_repro(const std::string& run_dir, const std::string& wanted, std::ostream& out) {
  // The inputs the run started with: they must not have changed, or the candidate is another one.
  check_run_folder_trust(run_dir);
  const std::string run_file = run_dir + "/run.json";
  if (!path_exists(run_file)) {
    throw Error(run_dir + ": not a run directory (no run.json)", ExitCode::bad_input);
  }
  const json doc = json::parse(read_run_path(run_file), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw Error(run_file + ": malformed run description", ExitCode::bad_input);
  }
  for (const char* key : {"good", "bad", "recipe"}) {
    const std::string path = doc.value(key, "");
    if (!path_exists(path) || sha256_hex(read_file(path)) != doc.value(std::string(key) + "_sha256", "")) {
      throw Error(path + ": changed or missing since the run started; its candidates cannot be rebuilt",
                  ExitCode::bad_input);
    }
  }
  RunSetup setup;
  setup.good = load_state_file(doc.value("good", ""));
  setup.bad = load_state_file(doc.value("bad", ""));
  setup.recipe = load_recipe_file(doc.value("recipe", ""),
                                  doc.value("deterministic", false) ? Deterministic::yes : Deterministic::no);
  setup.recipe_hash = sha256_hex(read_file(doc.value("recipe", "")));
  setup.deltas = diff_states(setup.good, setup.bad);
  setup.wheel_dirs = doc.value("wheels", std::vector<std::string>{});
  setup.store = StoreOptions{doc.value("store", ""), doc.value("uv_caches", std::vector<std::string>{})};
  setup.builder = doc.value("builder", "store") == "installer" ? Builder::installer : Builder::store;
  setup.index_url = doc.value("index_url", "");
  setup.run_dir = absolute_path(run_dir, ".") + "/repro";

  // Which candidate: an anchor by name, else the journaled attempt whose candidate hash starts so.
  std::vector<std::size_t> applied;
  std::string hash;
  if (wanted == "bad") {
    for (std::size_t i = 0; i < setup.deltas.size(); ++i) {
      applied.push_back(i);
    }
  } else if (wanted != "good") {
    for (const json& record : read_run_journal(run_dir, CutTornTail::no, out)) {
      if (record.value("type", "") == "attempt" && starts_with(record.value("candidate", ""), wanted)) {
        hash = record.value("candidate", "");
        applied = record.value("applied", std::vector<std::size_t>{});
        break;
      }
    }
    if (hash.empty() || wanted.size() < 4) {
      throw Error(run_dir + ": no candidate " + wanted + " in the journal (use good, bad, or a candidate id of at "
                  "least 4 digits from the report)", ExitCode::bad_input);
    }
  }
  // RUN/repro must be a folder of the run's own, never a link that would take the writes elsewhere.
  own_subfolder(absolute_path(run_dir, "."), "repro");
  check_run_folder_trust(setup.run_dir);
  ::unlinkat(AT_FDCWD, (setup.run_dir + "/journal.jsonl").c_str(), 0);  // a link is removed, never followed
  Journal journal(setup.run_dir + "/journal.jsonl");
  LocalRunner runner;
  Evaluator evaluator(setup, runner, journal, {});
  const Candidate candidate = evaluator.candidate(applied);
  if (!hash.empty() && candidate.hash != hash) {
    throw Error("candidate " + wanted + " is an axis point or a probe (good plus " + std::to_string(applied.size()) +
                    " differences at another value); repro rebuilds the anchors and the search's sets of differences",
                ExitCode::bad_input);
  }
  // The anchors by their names; any other candidate as what it is: good plus some of the differences.
  const std::string total = counted(static_cast<long long>(setup.deltas.size()), "difference");
  out << "candidate " << candidate.hash.substr(0, 16) << ": "
      << (wanted == "good"  ? "the good anchor (the good state as it is)"
          : wanted == "bad" ? "the bad anchor (the good state with all " + total + ", that is the bad state)"
                            : "good with " + std::to_string(applied.size()) + " of the " + total)
      << "\n";
  const RunResult result = evaluator.measure(candidate, 1).front();

  // The journal's attempt record holds the command exactly as it ran.
  json attempt;
  for (const json& record : read_journal(setup.run_dir + "/journal.jsonl").records) {
    if (record.value("type", "") == "attempt") {
      attempt = record;
    }
  }
  if (attempt.contains("argv")) {
    std::vector<std::string> line = {"env", "-i", "--"};  // "--": a name starting "-S" is no option
    for (const auto& [name, value] : attempt["env"].items()) {
      line.push_back(name + "=" + value.get<std::string>());
    }
    for (const std::string& arg : redact_argv(attempt["argv"].get<std::vector<std::string>>())) {
      line.push_back(arg);
    }
    out << "command: " << display_argv({"cd", attempt.value("cwd", "")}) << " && " << display_argv(line) << "\n";
  }
  if (result.status == RunStatus::ok) {
    out << "result: ok"
        << (result.metric ? ", " + setup.recipe.metric + " " + stats::with_unit(*result.metric, setup.recipe.unit) : "")
        << " (stdout: " << escape_control(result.stdout_path) << ")\n";
    return ExitCode::ok;
  }
  // The diagnosis quotes the benchmark's own output: shown escaped, never as raw terminal bytes.
  out << "result: " << to_string(result.status) << ": " << escape_control(result.diagnosis) << "\n";
  return ExitCode::inconclusive;
}

}  // namespace envbisect
