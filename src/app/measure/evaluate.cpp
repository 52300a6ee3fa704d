#include "app/measure/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/measure/diagnosis.hpp"
#include "app/measure/host_context.hpp"
#include "env/environment.hpp"
#include "env/git_checkout.hpp"
#include "env/store.hpp"
#include "exec/runner.hpp"
#include "store/journal.hpp"
#include "store/run_folder.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

// A candidate environment that was built (or could not be).
std::string hash16(const std::string& hash) { return hash.substr(0, 16); }

double epoch_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

json env_identity(const EnvState& state) {
  json doc = state_to_json(state);
  return {{"python", doc.value("python", json::object())}, {"packages", doc.value("packages", json::object())}};
}

// Return what the candidate's environment must hold, to be built into `env_dir`, logs in the run's
// logs/build-HASH folder.
VenvRequest venv_request(const Candidate& candidate, const RunSetup& setup, const std::string& env_dir) {
  VenvRequest request;
  request.python = candidate.state.python.interpreter.empty() ? "python3" : candidate.state.python.interpreter;
  request.python_version = candidate.state.python.version;
  for (const auto& [name, pin] : candidate.state.packages) {
    request.packages[name] = pin.version;
    request.pins[name] = WheelPin{pin.wheel.value_or(""), pin.sha256.value_or(""), pin.hashes};
  }
  request.wheel_dirs = setup.wheel_dirs;
  request.index_url = setup.index_url;
  request.env_dir = env_dir;
  request.log_dir = setup.run_dir + "/logs/build-" + hash16(candidate.env_hash);
  return request;
}

// Return the build-log folder of `env_hash` in `run_dir`, made fresh: a link planted in its place, above
// it or in it (a log file linked elsewhere) is never written through.
std::string fresh_log_dir(const std::string& run_dir, const std::string& env_hash) {
  const std::string relative = "logs/build-" + hash16(env_hash);
  own_run_subpath(run_dir, "logs");
  remove_tree(run_dir + "/" + relative);
  return own_run_subpath(run_dir, relative);
}

}  // namespace

json attempt_to_json(const RunResult& result) {
  json doc = {{"status", to_string(result.status)}, {"exit_code", result.exit_code}, {"signal", result.signal},
              {"error_class", result.error_class}, {"wall_s", result.wall_seconds},
              {"stdout", result.stdout_path}, {"stderr", result.stderr_path}};
  doc["metric"] = result.metric ? json(*result.metric) : json(nullptr);
  doc["checksum"] = result.checksum ? json(*result.checksum) : json(nullptr);
  if (!result.cause.empty()) {
    doc["cause"] = result.cause;
    doc["diagnosis"] = result.diagnosis;
  }
  return doc;
}

RunResult attempt_from_json(const json& record) {
  RunResult result;
  std::string status = record.value("status", "failed");
  result.status = status == "ok"        ? RunStatus::ok
                  : status == "timeout" ? RunStatus::timeout
                  : status == "skip"    ? RunStatus::skip
                                        : RunStatus::failed;
  result.exit_code = record.value("exit_code", -1);
  result.signal = record.value("signal", 0);
  result.error_class = record.value("error_class", "");
  result.wall_seconds = record.value("wall_s", 0.0);
  result.stdout_path = record.value("stdout", "");
  result.stderr_path = record.value("stderr", "");
  result.cause = record.value("cause", "");
  result.diagnosis = record.value("diagnosis", "");
  if (record.contains("metric") && record["metric"].is_number()) {
    result.metric = record["metric"].get<double>();
  }
  if (record.contains("checksum") && record["checksum"].is_string()) {
    result.checksum = record["checksum"].get<std::string>();
  }
  return result;
}

Evaluator::Evaluator(const RunSetup& setup, Runner& runner, Journal& journal, const std::vector<json>& previous)
    : m_setup(setup), m_runner(runner), m_journal(journal) {
  // A resumed run keeps every finished attempt of the same recipe: they are never rerun.
  for (const json& record : previous) {
    if (record.value("type", "") == "attempt" && record.value("recipe_hash", "") == setup.recipe_hash) {
      m_attempts[record.value("candidate", "")].push_back(attempt_from_json(record));
      ++m_attempts_reused;
    }
    // What building an environment cost, for a --budget: builds, not reuses of a built one.
    if (record.value("type", "") == "build" && !record.contains("reused") && record.value("seconds", 0.0) > 0) {
      m_build_seconds += record.value("seconds", 0.0);
      ++m_builds;
    }
  }
}

Evaluator::~Evaluator() = default;

Candidate Evaluator::candidate(const std::vector<std::size_t>& applied) const {
  return candidate_for(apply_deltas(m_setup.good, m_setup.bad, m_setup.deltas, applied), applied);
}

Candidate Evaluator::candidate_for(EnvState state, const std::vector<std::size_t>& applied) const {
  Candidate out;
  out.applied = applied;
  out.state = std::move(state);
  out.state.name.clear();
  out.state.description.clear();
  json identity = state_to_json(out.state);
  // Paths differ between machines; what makes a repo pin is its commit.
  for (auto& [name, repo] : identity["repos"].items()) {
    repo.erase("path");
  }
  out.hash = sha256_hex(identity.dump() + "\n" + m_setup.recipe_hash);
  out.env_hash = sha256_hex(env_identity(out.state).dump());
  return out;
}

const std::vector<RunResult>& Evaluator::attempts(const Candidate& candidate) { return m_attempts[candidate.hash]; }

double Evaluator::mean_run_seconds() const {
  double total = 0;
  int count = 0;
  for (const auto& [hash, results] : m_attempts) {
    for (const RunResult& result : results) {
      if (result.wall_seconds > 0) {  // an unbuildable candidate's skip attempt ran nothing
        total += result.wall_seconds;
        ++count;
      }
    }
  }
  return count == 0 ? 0.0 : total / count;
}

const std::vector<RunResult>& Evaluator::measure(const Candidate& candidate, int count) {
  const std::lock_guard<std::recursive_mutex> lock(m_mutex);
  std::vector<RunResult>& done = m_attempts[candidate.hash];
  m_runs_asked[candidate.hash] = std::max(m_runs_asked[candidate.hash], count);
  while (static_cast<int>(done.size()) < count) {
    if (interrupt_requested()) {
      throw Error("interrupted; `envbisect resume " + m_setup.run_dir + "` continues this run", ExitCode::interrupted);
    }
    if (m_setup.missing == MissingAttempt::refuse) {
      throw Error("replay diverged: candidate " + hash16(candidate.hash) + " needs attempt " +
                      std::to_string(done.size()) + ", which the journal does not hold",
                  ExitCode::inconclusive);
    }
    const Built& built = build(candidate);
    RunResult result;
    if (!built.venv.ok) {
      // Untestable candidate: one skip attempt carries the reason; rerunning would not help.
      result.status = RunStatus::skip;
      result.error_class = "environment: " + built.venv.reason;
      const Diagnosis diagnosis = diagnose_build(built.venv.reason);
      result.cause = to_string(diagnosis.cause);
      result.diagnosis = diagnosis.text;
      count = static_cast<int>(done.size()) + 1;
    } else {
      result = run_attempt(candidate, built, static_cast<int>(done.size()));
      ++m_attempts_run;
    }
    record(candidate, result);
  }
  return done;
}

void Evaluator::record(const Candidate& candidate, const RunResult& result) {
  std::vector<RunResult>& done = m_attempts[candidate.hash];
  json entry = attempt_to_json(result);
  entry["type"] = "attempt";
  entry["candidate"] = candidate.hash;
  entry["applied"] = candidate.applied;
  entry["env_hash"] = candidate.env_hash;
  entry["recipe_hash"] = m_setup.recipe_hash;
  entry["attempt"] = done.size();
  entry["t"] = epoch_seconds();
  // The exact command, its whole environment and folder: the report's reproduce section runs as is.
  if (auto command = m_commands.find(candidate.hash + "/" + std::to_string(done.size())); command != m_commands.end()) {
    entry.update(command->second);
    m_commands.erase(command);
  }
  if (const std::optional<double> load = load_average()) {
    entry["load1"] = *load;  // the machine's load as the attempt ended: a busy machine skews a verdict
  }
  m_journal.append(entry);
  m_last_use[candidate.env_hash] = {{"candidate", candidate.hash}, {"attempt", done.size()}};
  m_latest_attempt = m_last_use[candidate.env_hash];
  done.push_back(result);
}

const Evaluator::Built& Evaluator::keep(const std::string& env_hash, std::unique_ptr<Built> built) {
  auto [it, inserted] = m_built.emplace(env_hash, nullptr);
  if (inserted) {
    it->second = std::move(built);
  } else {
    *it->second = std::move(*built);  // a rebuild: same address, slots hold pointers to it
  }
  return *it->second;
}

json Evaluator::damage(const std::vector<std::string>& files, const std::string& env_hash) const {
  // The last attempt that ran in the environment changed it, or one that ran elsewhere since wrote
  // through a file the environments share (a store file hard-linked into both), or another run did.
  const auto last = m_last_use.find(env_hash);
  json found = {{"files", files}, {"after_attempt", last == m_last_use.end() ? json(nullptr) : last->second}};
  if (!m_latest_attempt.is_null() && m_latest_attempt != found["after_attempt"]) {
    found["latest_attempt"] = m_latest_attempt;
  }
  return found;
}

const Evaluator::Built& Evaluator::build(const Candidate& candidate) {
  // An environment made ready in this session is used again, after env/ checked its files (one
  // whose files were never recorded, built remotely or run as it is, as it is).
  const auto found = m_built.find(candidate.env_hash);
  if (found != m_built.end() && !found->second->checked) {
    return *found->second;
  }
  if (m_remote_build && !candidate.state.python.use_as_is) {
    return build_remotely(candidate, std::make_unique<Built>());
  }
  // One walk down into env/: check, place, reuse or build (resolve, store, link, check), record.
  EnvRequest request{venv_request(candidate, m_setup, m_setup.run_dir + "/envs/" + hash16(candidate.env_hash)),
                     m_setup.builder, m_setup.store, candidate.state.python.use_as_is, candidate.env_hash,
                     found == m_built.end() ? std::string() : found->second->env_dir};
  if (request.as_is) {
    request.venv.python = candidate.state.python.interpreter;
    fresh_log_dir(m_setup.run_dir, candidate.env_hash);  // the interpreter check's log
  } else if (m_setup.builder != Builder::store) {
    own_run_subpath(m_setup.run_dir, "envs/" + hash16(candidate.env_hash));  // never a planted link's target
  }
  EnvReady ready = ready_environment(m_runner, request, [&] {
    fresh_log_dir(m_setup.run_dir, candidate.env_hash);
    if (m_progress != nullptr) {
      m_progress->building(candidate.env_hash);
    }
  });
  if (ready.end == EnvEnd::unchanged) {
    return *found->second;
  }
  if (ready.end != EnvEnd::as_is) {
    // The journal says what was built or reused, and who changed an earlier build's files.
    if (!ready.changes.empty()) {
      ready.record["damaged"] = damage(ready.changes, candidate.env_hash);
    }
    m_journal.append(ready.record);
    const double seconds = ready.record["seconds"].get<double>();
    if (ready.end == EnvEnd::built) {
      m_build_seconds += seconds;
      ++m_builds;
    }
    if (m_progress != nullptr) {
      m_progress->built(candidate.env_hash,
                        !ready.venv.ok ? BuildEnd::failed : ready.end == EnvEnd::built ? BuildEnd::built : BuildEnd::reused,
                        seconds);
    }
  }
  return keep(candidate.env_hash, std::make_unique<Built>(Built{std::move(ready.venv), ready.env_dir, ready.checked}));
}

const Evaluator::Built& Evaluator::build_remotely(const Candidate& candidate, std::unique_ptr<Built> built) {
  // Named like a store-built environment here; it exists only on the remote side, where it is shared
  // by every run staged to the same root (the remote builder locks and reuses it).
  std::string root = m_setup.store.store_dir.empty() ? default_store_dir() : m_setup.store.store_dir;
  json sources = {{"wheels", m_setup.wheel_dirs}, {"uv", m_setup.store.uv_cache_dirs},
                  {"builder", m_setup.builder == Builder::store ? "store" : "installer"}};
  built->env_dir = root + "/envs/" + hash16(sha256_hex(candidate.env_hash + sources.dump()));
  BuildEnvRequest request;
  request.venv = venv_request(candidate, m_setup, built->env_dir);
  request.builder = m_setup.builder == Builder::store ? "store" : "installer";
  request.store = m_setup.store;
  spdlog::info("building environment {} on the remote side ({} packages)", hash16(candidate.env_hash),
               request.venv.packages.size());
  double start = epoch_seconds();
  RemoteBuild remote = m_remote_build(request);
  built->venv = remote.venv;
  m_journal.append({{"type", "build"}, {"env_hash", candidate.env_hash}, {"ok", built->venv.ok},
                    {"reason", built->venv.reason}, {"builder", built->venv.builder},
                    {"python", built->venv.python_path}, {"installed", built->venv.installed},
                    {"logs", built->venv.log_paths}, {"remote", true}, {"remote_reused", remote.reused},
                    {"seconds", epoch_seconds() - start}, {"t", epoch_seconds()}});
  if (!built->venv.ok) {
    spdlog::warn("environment {} cannot be built: {}", hash16(candidate.env_hash), built->venv.reason);
  }
  return keep(candidate.env_hash, std::move(built));
}

}  // namespace envbisect
