#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run.hpp"
#include "app/run_execute.hpp"
#include "app/run_guard.hpp"
#include "store/run_lock.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace envbisect {

using nlohmann::json;

// Compare a replay's decisions and result with the journal's last session; 0 when identical.
ExitCode compare_replay(const std::vector<json>& previous, const std::vector<json>& decisions, const json& result,
                        const std::string& run_dir) {
  std::vector<json> recorded;
  json recorded_result;
  for (const json& record : previous) {
    if (record.value("type", "") == "start") {
      recorded.clear();  // a resumed session recomputed everything before it: keep the last session's
    } else if (record.value("type", "") == "decision") {
      recorded.push_back(record);
    } else if (record.value("type", "") == "result") {
      recorded_result = record["result"];
    }
  }
  std::size_t same = 0;
  while (same < recorded.size() && same < decisions.size() && recorded[same]["label"] == decisions[same]["label"] &&
         recorded[same]["verdict"] == decisions[same]["verdict"]) {
    ++same;
  }
  bool identical = same == recorded.size() && same == decisions.size();
  bool same_cause = !recorded_result.is_null() && recorded_result["cause"] == result["cause"] &&
                    recorded_result["verified"] == result["verified"];
  std::cout << "replay: " << decisions.size() << " decisions recomputed from " << run_dir << "/journal.jsonl without "
            << "running anything; " << same << " of " << recorded.size() << " recorded decisions match in order"
            << (recorded_result.is_null() ? "; the journal holds no result (the run did not finish)" : "")
            << (same_cause ? "; same cause and verification" : "") << "\n";
  if (!identical || !same_cause) {
    if (same < recorded.size() && same < decisions.size()) {
      std::cout << "first difference at decision " << same + 1 << ": journal " << recorded[same]["verdict"] << " "
                << recorded[same]["applied"] << ", replay " << decisions[same]["verdict"] << " "
                << decisions[same]["applied"] << "\n";
    }
    return ExitCode::inconclusive;
  }
  return ExitCode::ok;
}

namespace {

// Read back the options a run started with, and its journal; refuse when the inputs changed since.
RunOptions load_run(const std::string& run_dir, std::vector<json>& records, Mode mode) {
  std::string run_file = run_dir + "/run.json";
  if (!path_exists(run_file)) {
    throw Error(run_dir + ": not a run directory (no run.json)", ExitCode::bad_input);
  }
  json doc = json::parse(read_file(run_file), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw Error(run_file + ": malformed run description", ExitCode::bad_input);
  }
  RunOptions options;
  options.good_path = doc.value("good", "");
  options.bad_path = doc.value("bad", "");
  options.recipe_path = doc.value("recipe", "");
  options.wheel_dirs = doc.value("wheels", std::vector<std::string>{});
  options.uv_caches = doc.value("uv_caches", std::vector<std::string>{});
  options.store_dir = doc.value("store", "");
  options.builder = doc.value("builder", "store");
  options.index_url = doc.value("index_url", "");
  options.repeats = doc.value("repeats", 0);
  options.max_runs = doc.value("max_runs", options.max_runs);
  options.no_probe = doc.value("no_probe", false);
  options.probe = doc.value("probe", options.probe);
  options.anchor_runs = doc.value("anchor_runs", options.anchor_runs);
  options.first_parent = doc.value("first_parent", false);
  options.max_log_mb = doc.value("max_log_mb", options.max_log_mb);
  options.deterministic = doc.value("deterministic", false);
  options.any_change = doc.value("any_change", false);
  if (doc.contains("execution") && doc["execution"].is_object()) {
    const json& execution = doc["execution"];
    options.execution.executor = execution.value("executor", options.execution.executor);
    options.execution.host = execution.value("host", "");
    options.execution.prefix = execution.value("prefix", "");
    options.execution.slots = execution.value("slots", 1);
    options.execution.isolation = execution.value("isolation", options.execution.isolation);
    options.execution.isolation_base = execution.value("isolation_base", "");
    options.execution.ssh_config = execution.value("ssh_config", "");
    options.execution.slurm_gpus = execution.value("slurm_gpus", 0);
    options.execution.slurm_partition = execution.value("slurm_partition", "");
    options.execution.remote_root = execution.value("remote_root", "");
    options.execution.remote_bundle = execution.value("remote_bundle", "");
  }
  options.out_dir = run_dir;
  // The inputs must be the ones the run started with, or the journal's attempts mean nothing.
  for (const char* key : {"good", "bad", "recipe"}) {
    std::string path = doc.value(key, "");
    if (sha256_hex(read_file(path)) != doc.value(std::string(key) + "_sha256", "")) {
      throw Error(path + ": changed since the run started; start a new run instead of resuming", ExitCode::bad_input);
    }
  }
  // Damage before the last whole record throws (exit 2, naming the line); resume cuts a torn tail.
  records = read_run_journal(run_dir, mode == Mode::run ? CutTornTail::yes : CutTornTail::no, std::cerr);
  return options;
}

}  // namespace

ExitCode run_resume(const std::string& run_dir, double budget_s) {
  // The lock comes first: the journal is read, and its torn tail cut, by its only user.
  std::optional<RunLock> lock;
  if (path_exists(run_dir + "/run.json")) {
    lock.emplace(run_dir, "resume");
  }
  std::vector<json> records;
  RunOptions options = load_run(run_dir, records, Mode::run);
  options.budget_s = budget_s;  // each session its own budget: a stopped run resumes with a larger one
  // A session that stopped on its inputs is not unfinished: resuming would only repeat the stop.
  for (auto record = records.rbegin(); record != records.rend(); ++record) {
    const std::string type = record->value("type", "");
    if (type == "stopped") {
      throw Error("the run stopped on an input error, so there is nothing to resume; fix it and start a new run: " +
                      record->value("message", std::string()),
                  ExitCode::bad_input);
    }
    if (type == "start" || type == "result" || type == "attempt" || type == "decision") {
      break;
    }
  }
  return execute(options, records, Mode::run, lock ? &*lock : nullptr);
}

ExitCode run_replay(const std::string& run_dir) {
  std::vector<json> records;
  RunOptions options = load_run(run_dir, records, Mode::replay);
  // Only a finished session can be recomputed: an interrupted one did not diverge, it stopped.
  if (records.empty()) {
    throw Error(run_dir + ": not a run directory (no journal.jsonl)", ExitCode::bad_input);
  }
  bool finished = false;
  for (const json& record : records) {
    const std::string type = record.value("type", "");
    finished = type == "start" ? false : finished || type == "result" || type == "stopped";
  }
  if (!finished) {
    throw Error(run_dir + ": its last session did not finish (interrupted, or still running): replay recomputes a "
                          "finished session; `envbisect resume " + run_dir + "` continues it",
                ExitCode::bad_input);
  }
  // A session its --budget stopped is replayed up to where it stopped, not past it.
  for (const json& record : records) {
    if (record.value("type", "") == "start") {
      options.stop_after_decisions = -1;
    } else if (record.value("type", "") == "budget") {
      options.stop_after_decisions = record.value("decisions", -1);
    }
  }
  return execute(options, records, Mode::replay, nullptr);
}

}  // namespace envbisect
