#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run/run.hpp"
#include "app/run/execute.hpp"
#include "app/run/guard.hpp"
#include "store/run_folder.hpp"
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

// Reads run.json's fields, each checked as the option that wrote it is: a hand-edited value of another
// type or out of range is exit 2 naming the file and the field, not an internal error or a run with
// "-5 anchor runs".
class RunFile {
public:
  RunFile(const json& doc, std::string file) : m_doc(doc), m_file(std::move(file)) {}

  std::string text(const json& in, const std::string& pointer, const std::string& key, const std::string& fallback,
                   const std::vector<std::string>& allowed = {}) const {
    const auto it = in.find(key);
    if (it == in.end()) {
      return fallback;
    }
    if (!it->is_string()) {
      fail(pointer + key, "expected a string, got " + it->dump());
    }
    const std::string value = it->get<std::string>();
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      std::string list;
      for (const std::string& a : allowed) {
        list += (list.empty() ? "" : ", ") + a;
      }
      fail(pointer + key, "expected one of " + list + ", got '" + value + "'");
    }
    return value;
  }

  int number(const json& in, const std::string& pointer, const std::string& key, int fallback, int low, int high) const {
    const auto it = in.find(key);
    if (it == in.end()) {
      return fallback;
    }
    if (!it->is_number_integer() || it->get<std::int64_t>() < low || it->get<std::int64_t>() > high) {
      fail(pointer + key, "expected an integer from " + std::to_string(low) + " to " + std::to_string(high) + ", got " +
                              it->dump());
    }
    return it->get<int>();
  }

  bool flag(const std::string& key) const {
    const auto it = m_doc.find(key);
    if (it == m_doc.end()) {
      return false;
    }
    if (!it->is_boolean()) {
      fail("/" + key, "expected true or false, got " + it->dump());
    }
    return it->get<bool>();
  }

  std::vector<std::string> texts(const std::string& key) const {
    const auto it = m_doc.find(key);
    if (it == m_doc.end()) {
      return {};
    }
    if (!it->is_array() || !std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_string(); })) {
      fail("/" + key, "expected an array of strings, got " + it->dump());
    }
    return it->get<std::vector<std::string>>();
  }

  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const {
    throw Error(m_file + ": " + pointer + ": " + what +
                    " (run.json is written by `envbisect run`; start a new run rather than editing it)",
                ExitCode::bad_input);
  }

private:
  const json& m_doc;
  std::string m_file;
};

// Read back the options a run started with, and its journal; refuse when the inputs changed since.
RunOptions load_run(const std::string& run_dir, std::vector<json>& records, Mode mode) {
  // The folder is input: someone else's, or one others may write, is refused before it is read.
  check_run_folder_trust(run_dir);
  std::string run_file = run_dir + "/run.json";
  if (!path_exists(run_file)) {
    throw Error(run_dir + ": not a run directory (no run.json)", ExitCode::bad_input);
  }
  json doc = json::parse(read_run_path(run_file), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw Error(run_file + ": malformed run description", ExitCode::bad_input);
  }
  RunOptions options;
  const RunFile file(doc, run_file);
  options.good_path = file.text(doc, "/", "good", "");
  options.bad_path = file.text(doc, "/", "bad", "");
  options.recipe_path = file.text(doc, "/", "recipe", "");
  options.wheel_dirs = file.texts("wheels");
  options.uv_caches = file.texts("uv_caches");
  options.store_dir = file.text(doc, "/", "store", "");
  options.builder = file.text(doc, "/", "builder", "store", {"store", "installer"});
  options.index_url = file.text(doc, "/", "index_url", "");
  options.repeats = file.number(doc, "/", "repeats", 0, 0, 100);
  options.max_runs = file.number(doc, "/", "max_runs", options.max_runs, 1, 100);
  options.no_probe = file.flag("no_probe");
  options.probe = file.text(doc, "/", "probe", options.probe, {"boundary", "full"});
  options.anchor_runs = file.number(doc, "/", "anchor_runs", options.anchor_runs, 1, 100);
  options.first_parent = file.flag("first_parent");
  options.max_log_mb = file.number(doc, "/", "max_log_mb", options.max_log_mb, 1, 1 << 20);
  // The download limits, as the command line checks them; a run.json older than them gets the defaults.
  options.index_timeout_s = file.number(doc, "/", "index_timeout_s", static_cast<int>(options.index_timeout_s), 1, 3600);
  options.download_timeout_s =
      file.number(doc, "/", "download_timeout_s", static_cast<int>(options.download_timeout_s), 1, 7 * 24 * 3600);
  options.max_download_gib = file.number(doc, "/", "max_download_gib", static_cast<int>(options.max_download_gib), 1, 4096);
  options.deterministic = file.flag("deterministic");
  options.any_change = file.flag("any_change");
  if (doc.contains("execution")) {
    const json& execution = doc["execution"];
    if (!execution.is_object()) {
      file.fail("/execution", "expected an object, got " + execution.dump());
    }
    const std::string at = "/execution/";
    options.execution.executor = file.text(execution, at, "executor", options.execution.executor, {"local", "ssh", "slurm"});
    options.execution.host = file.text(execution, at, "host", "");
    options.execution.prefix = file.text(execution, at, "prefix", "");
    options.execution.slots = file.number(execution, at, "slots", 1, 1, 256);
    options.execution.isolation =
        file.text(execution, at, "isolation", options.execution.isolation, {"none", "bwrap", "podman", "lxc"});
    options.execution.isolation_base = file.text(execution, at, "isolation_base", "");
    options.execution.ssh_config = file.text(execution, at, "ssh_config", "");
    options.execution.slurm_gpus = file.number(execution, at, "slurm_gpus", 0, 0, 1024);
    options.execution.slurm_partition = file.text(execution, at, "slurm_partition", "");
    options.execution.remote_root = file.text(execution, at, "remote_root", "");
    options.execution.remote_bundle = file.text(execution, at, "remote_bundle", "");
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

ExitCode run_resume(const std::string& run_dir, double budget_s, Announce announce) {
  // The lock comes first: the journal is read, and its torn tail cut, by its only user.
  std::optional<RunLock> lock;
  check_run_folder_trust(run_dir);  // before the lock file is written into it
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
  // Say what is resumed before anything runs: which run, and how much of it is reused.
  if (announce == Announce::yes) {
    int sessions = 0;
    int attempts = 0;
    int decisions = 0;
    for (const json& record : records) {
      const std::string type = record.value("type", "");
      sessions += type == "start" ? 1 : 0;
      attempts += type == "attempt" ? 1 : 0;
      decisions += type == "decision" ? 1 : 0;
    }
    std::cerr << "envbisect: resuming " << run_dir << ": " << options.good_path << " (good) vs " << options.bad_path
              << " (bad), recipe " << options.recipe_path << "; " << sessions << (sessions == 1 ? " session, " : " sessions, ")
              << attempts << (attempts == 1 ? " run" : " runs") << " and " << decisions
              << (decisions == 1 ? " decision" : " decisions") << " journaled, every finished run reused\n";
  }
  return execute(options, records, Mode::run, lock ? &*lock : nullptr);
}

ExitCode run_replay(const std::string& run_dir, const std::string& journal_path) {
  std::vector<json> records;
  RunOptions options = load_run(run_dir, records, Mode::replay);
  if (!journal_path.empty()) {
    // Never over the run's own files: the journal being replayed, its record, its result.
    const std::string target = absolute_path(journal_path, ".");
    const std::string dir = absolute_path(run_dir, ".");
    for (const char* own : {"/journal.jsonl", "/run.json", "/result.json", "/processes.jsonl"}) {
      if (target == dir + own) {
        throw Error("--journal: " + journal_path + " is the run's own " + std::string(own + 1) +
                        "; give another file",
                    ExitCode::bad_input);
      }
    }
    options.replay_journal = target;
  } else if (::access(run_dir.c_str(), W_OK) != 0) {
    throw Error(run_dir + ": cannot write the replay's journal here (read-only run folder?): give --journal FILE",
                ExitCode::environment);
  }
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
