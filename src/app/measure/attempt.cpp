#include "app/measure/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/measure/diagnosis.hpp"
#include "env/file_identity.hpp"
#include "env/git_checkout.hpp"
#include "exec/runner.hpp"
#include "store/journal.hpp"
#include "store/run_folder.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

// One attempt of a candidate: its repo checkouts and warm cache snapshots, the command with every
// placeholder filled, the process, and how it ended.
namespace envbisect {

using nlohmann::json;

namespace {

// Variables that select where compile caches live, by cache role; set per run so nothing leaks.
std::map<std::string, std::string> cache_variables(const std::string& role, const std::string& dir) {
  if (role == "inductor") {
    return {{"TORCHINDUCTOR_CACHE_DIR", dir}};
  }
  if (role == "triton") {
    return {{"TRITON_CACHE_DIR", dir}};
  }
  return {};
}

std::string join_ints(const std::vector<int>& values, int offset = 0) {
  std::vector<std::string> parts;
  for (int value : values) {
    parts.push_back(std::to_string(value + offset));
  }
  return join(parts, ",");
}

// The GPUs one slot needs: the split's highest index + 1 (0 when the state names no GPUs).
int split_width(const GpuSplit& gpus) {
  int width = 0;
  for (int index : gpus.target) {
    width = std::max(width, index + 1);
  }
  for (int index : gpus.drafter) {
    width = std::max(width, index + 1);
  }
  return width;
}

// Return how an attempt ended; a pass/fail test passes on exit 0 alone, a metric test also needs its metric.
RunStatus status_of(const ProcessResult& process, const BenchReport& report, bool pass_fail) {
  if (process.timed_out) {
    return RunStatus::timeout;
  }
  if (!process.spawned || process.signal != 0) {
    return RunStatus::failed;
  }
  if (process.exit_code == 125) {
    return RunStatus::skip;
  }
  if (process.exit_code != 0 || (!report.metric && !pass_fail)) {
    return RunStatus::failed;
  }
  return RunStatus::ok;
}

std::string read_tail(const std::string& path) {
  return read_file_tail(path, 65536);  // from the end: a benchmark may print gigabytes
}

// Return how an attempt went: its status, metric and checksum read from the tail of its output, and
// for a failure, the diagnosed cause.
RunResult result_of(const ProcessResult& process, const ProcessSpec& spec, const Recipe& recipe) {
  const std::string stdout_tail = read_tail(spec.stdout_path);
  const std::string stderr_tail = read_tail(spec.stderr_path);
  BenchReport report = parse_bench_output(stdout_tail, recipe);
  RunResult result;
  result.status = status_of(process, report, recipe.pass_fail);
  result.exit_code = process.exit_code;
  result.signal = process.signal;
  result.metric = report.metric;
  result.checksum = report.checksum;
  result.wall_seconds = process.wall_seconds;
  result.stdout_path = spec.stdout_path;
  result.stderr_path = spec.stderr_path;
  result.error_class = report.error_class;
  if (result.status != RunStatus::ok && result.error_class.empty()) {
    result.error_class = !process.spawned ? process.spawn_error
                         : process.timed_out ? "timeout"
                                             : telling_stderr_line(stderr_tail);
  }
  if (result.status != RunStatus::ok) {
    const Diagnosis diagnosis = diagnose_attempt(process, report, stdout_tail, stderr_tail, recipe);
    result.cause = to_string(diagnosis.cause);
    result.diagnosis = diagnosis.text;
  }
  return result;
}

// Return the identity of the checkout at `dir`: its files (file_identity, .git and __pycache__ left
// out) and what .git/HEAD names.
std::string checkout_identity(const std::string& dir) {
  return file_identity(dir, {".git"}, Pycache::skip) + ".git/HEAD\t" + read_file_or_empty(dir + "/.git/HEAD") + "\n";
}

}  // namespace

std::string Evaluator::checkout(const std::string& repo_name, const RepoPin& pin) {
  std::string commit = resolve_commit(pin.path, pin.commit);
  std::string dir = m_setup.run_dir + "/repos/" + repo_name + "-" + commit.substr(0, 12);
  if (m_checkout_users[dir] > 0) {
    return dir;  // another slot's attempt runs in it now; checked again before the next use
  }
  // Never a link planted in the run folder: the checkout would be read and replaced through it.
  own_run_subpath(m_setup.run_dir, "repos/" + repo_name + "-" + commit.substr(0, 12));
  // A benchmark may write into its checkout (an in-tree build, an edited file, HEAD moved): like an
  // environment, the checkout is checked before each use and made again when it changed, so no attempt
  // measures what an earlier one left there. __pycache__ folders do not count (bytecode Python derives
  // from the sources). The identity, written last inside .git (the tree holds only the commit's files,
  // whatever names it tracks), also says the checkout is complete.
  const std::string identity_path = dir + "/.git/envbisect-identity";
  const std::string recorded = read_file_or_empty(identity_path);
  if (!recorded.empty()) {
    const std::vector<std::string> changes = identity_changes(recorded, checkout_identity(dir));
    if (changes.empty()) {
      return dir;
    }
    spdlog::warn("checkout {} of {} changed since it was checked out ({}); checking it out again", dir, pin.path,
                 join(changes, ", "));
  }
  // A new checkout, an interrupted or changed one thrown away and redone.
  remove_tree(dir);
  checkout_commit(pin.path, commit, dir);
  write_file_atomic(identity_path, checkout_identity(dir));
  if (m_checkout_gaps_said.insert(dir).second) {
    for (const std::string& gap : checkout_gaps(dir)) {
      spdlog::warn("checkout {} of {}: {}", dir, pin.path, gap);
    }
  }
  return dir;
}

std::string Evaluator::warm_snapshot(const Candidate& candidate, const Built& built) {
  // The warm caches are what the recipe's warm-up produced in this environment, with these repo
  // commits and environment variables, and the thread counts and data its own command line or the
  // recipe's env names; one warm-up fills every cache of the candidate. A thread count the warm-up
  // never reads (it compiles with a fixed count of its own) shares one snapshot: on a GPU each
  // warm-up is a cold compile, paid again for nothing.
  const Recipe& recipe = m_setup.recipe;
  Candidate cold = candidate;
  for (auto& [name, cache] : cold.state.caches) {
    cache.state = "cold";
  }
  const std::set<std::string> read = warmup_placeholders(recipe);
  auto read_by_warmup = [&read](const std::string& kind, const auto& values) {
    json kept = json::object();
    for (const auto& [name, value] : values) {
      if (read.count(kind + "." + name) != 0) {
        kept[name] = value;
      }
    }
    return kept;
  };
  json identity = {{"env", candidate.env_hash},
                   {"warmup", recipe.warmup},
                   {"seed", recipe.seed},
                   {"threads", read_by_warmup("threads", cold.state.threads)},
                   {"data", read_by_warmup("data", cold.state.data)},
                   {"env_vars", cold.state.env}};
  for (const auto& [name, pin] : candidate.state.repos) {
    identity["repos"][name] = pin.commit;
  }
  std::string key = sha256_hex(identity.dump());
  if (auto it = m_snapshots.find(key); it != m_snapshots.end()) {
    return it->second;
  }
  std::string dir = m_setup.run_dir + "/warm/" + hash16(key);
  own_run_subpath(m_setup.run_dir, "warm/" + hash16(key));  // never a planted link's target
  if (!path_exists(dir + "/complete")) {
    remove_tree(dir);
    make_dirs(dir);
    RunResult warmup = run_attempt(cold, built, -1);
    std::string scratch = warmup_dir(cold);
    for (const auto& [name, cache] : cold.state.caches) {
      std::filesystem::rename(scratch + "/cache-" + name, dir + "/" + name);
    }
    remove_tree(scratch);
    json record = attempt_to_json(warmup);
    record["type"] = "warmup";
    record["candidate"] = candidate.hash;
    record["snapshot"] = dir;
    record["t"] = epoch_seconds();
    m_journal.append(record);
    if (warmup.status != RunStatus::ok) {
      spdlog::warn("warm-up ended {} ({}); the warm snapshot holds what it wrote",
                   to_string(warmup.status), warmup.error_class);
    }
    write_file_atomic(dir + "/complete", record.dump() + "\n");
  }
  return m_snapshots.emplace(key, dir).first->second;
}

std::string Evaluator::warmup_dir(const Candidate& candidate) const {
  return m_setup.run_dir + "/warm/scratch-" + hash16(candidate.hash);
}

std::map<std::string, std::string> Evaluator::placeholder_values(const Candidate& candidate, const Built& built,
                                                                int attempt, int slot) {
  const Recipe& recipe = m_setup.recipe;
  const EnvState& state = candidate.state;
  // Fill the placeholders from the candidate state and this attempt's own directories.
  std::map<std::string, std::string> values = {
      {"python", built.venv.python_path},  {"env_dir", built.env_dir},
      {"recipe_dir", recipe.base_dir},     {"run_dir", m_setup.run_dir},
      {"seed", std::to_string(recipe.seed)}, {"attempt", std::to_string(attempt)},
      {"gpus.target", join_ints(state.gpus.target, slot * split_width(state.gpus))},
      {"gpus.drafter", join_ints(state.gpus.drafter, slot * split_width(state.gpus))}};
  for (const auto& [name, count] : state.threads) {
    values["threads." + name] = std::to_string(count);
  }
  for (const auto& [name, value] : state.data) {
    values["data." + name] = value;
  }
  for (const auto& [name, value] : m_setup.good.env) {
    values["env." + name] = "";
  }
  for (const auto& [name, value] : m_setup.bad.env) {
    values["env." + name] = "";
  }
  for (const auto& [name, value] : state.env) {
    values["env." + name] = value;
  }
  for (const auto& name : m_setup.good.packages) {
    values["package." + name.first] = "";
  }
  for (const auto& name : m_setup.bad.packages) {
    values["package." + name.first] = "";
  }
  for (const auto& [name, pin] : state.packages) {
    values["package." + name] = pin.version;
  }
  for (const auto& [name, pin] : state.repos) {
    // A package in a folder of its repository (a lock's subdirectory) is built from that folder.
    values["repo." + name] = checkout(name, pin) + (pin.subdirectory.empty() ? "" : "/" + pin.subdirectory);
  }
  return values;
}

void Evaluator::note_warm_cache(const std::string& cache, WarmCacheMethod method) {
  if (m_warm_cache_methods.insert(cache + "/" + std::string(to_string(method))).second) {
    m_journal.append({{"type", "warm_cache"}, {"cache", cache}, {"method", to_string(method)}});
  }
}

RunResult Evaluator::run_attempt(const Candidate& candidate, const Built& built, int attempt, int slot) {
  // Prepared under the lock (checkouts, warm snapshots and their maps are shared); run without it.
  std::unique_lock<std::recursive_mutex> lock(m_mutex);
  const Recipe& recipe = m_setup.recipe;
  const EnvState& state = candidate.state;
  bool is_warmup = attempt < 0;
  // The run folder is input: a folder above the attempt's planted as a link would take the removal
  // and every write below, so each level is taken without following one.
  const std::string parent = is_warmup ? "warm" : "attempts/" + hash16(candidate.hash);
  const std::string relative = is_warmup ? "warm/scratch-" + hash16(candidate.hash) : parent + "/" + std::to_string(attempt);
  own_run_subpath(m_setup.run_dir, parent);
  std::string attempt_dir = m_setup.run_dir + "/" + relative;
  remove_tree(attempt_dir);  // a link in its place goes, its target stays
  own_run_subpath(m_setup.run_dir, relative);
  // Caches first: a warm-up run for a warm snapshot may write into a checkout, which is checked after it.
  std::map<std::string, std::string> cache_values;
  std::vector<WarmCache> warm_caches;  // unmounted before the cache folders are removed
  std::map<std::string, std::string> child_env = allowed_parent_env();
  for (const auto& [name, cache] : state.caches) {
    std::string dir = attempt_dir + "/cache-" + name;
    if (is_warmup || cache.state == "cold") {
      make_dirs(dir);
    } else if (cache.state == "warm") {
      std::string snapshot = warm_snapshot(candidate, built) + "/" + name;
      if (path_exists(snapshot)) {
        // The snapshot stays as the warm-up left it: each attempt writes into its own clone, overlay
        // or copy (env/warm_cache.hpp), and the journal says which, once per run and method.
        warm_caches.push_back(WarmCache::prepare(snapshot, dir));
        note_warm_cache(name, warm_caches.back().method());
      } else {
        make_dirs(dir);
      }
    } else {
      copy_tree(cache.state, dir, LinkFiles::no);  // a captured cache directory
    }
    cache_values["cache." + name] = dir;
    for (const auto& [variable, value] : cache_variables(cache.role, dir)) {
      child_env[variable] = value;
    }
  }

  std::map<std::string, std::string> values = placeholder_values(candidate, built, attempt, slot);
  values.insert(cache_values.begin(), cache_values.end());
  std::vector<std::string> checkouts_used;
  for (const auto& [key, value] : values) {
    if (key.rfind("repo.", 0) == 0) {
      checkouts_used.push_back(value);
      ++m_checkout_users[value];
    }
  }

  // The child's environment: allow-listed parent variables, the state's env, the recipe's env.
  for (const auto& [name, value] : state.env) {
    child_env[name] = value;
  }
  std::string where = recipe.base_dir + "/recipe";
  for (const auto& [name, value] : recipe.env) {
    child_env[name] = expand_placeholders(value, values, where + " /env/" + name);
  }
  child_env["VIRTUAL_ENV"] = built.env_dir;
  child_env["PATH"] = built.env_dir + "/bin:" + child_env["PATH"];
  child_env["PYTHONNOUSERSITE"] = "1";

  ProcessSpec spec;
  // Without a warm-up argv, the benchmark itself warms the caches.
  const std::vector<std::string>& argv_template = is_warmup && !recipe.warmup.empty() ? recipe.warmup : recipe.command;
  for (std::size_t i = 0; i < argv_template.size(); ++i) {
    spec.argv.push_back(expand_placeholders(argv_template[i], values,
                                            where + (is_warmup ? " /warmup/" : " /command/") + std::to_string(i)));
  }
  spec.env = child_env;
  spec.cwd = attempt_dir;
  spec.stdout_path = attempt_dir + "/stdout.txt";
  spec.stderr_path = attempt_dir + "/stderr.txt";
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(recipe.timeout_s * 1000));
  spec.read_paths.push_back(built.env_dir);
  spec.read_paths.push_back(recipe.base_dir);
  spec.write_paths.push_back(attempt_dir);
  spec.container_base = state.container.base;
  for (const auto& [key, value] : values) {
    if (key.rfind("repo.", 0) == 0) {
      spec.read_paths.push_back(value);
    } else if (key.rfind("cache.", 0) == 0) {
      spec.write_paths.push_back(value);
    }
  }

  const int asked = std::max(m_runs_asked[candidate.hash], attempt + 1);
  if (!is_warmup) {
    json env = json::object();
    for (const auto& [name, value] : spec.env) {
      env[name] = redact_env_value(name, value);
    }
    m_commands[candidate.hash + "/" + std::to_string(attempt)] = {{"argv", spec.argv}, {"env", env}, {"cwd", spec.cwd}};
  }
  if (m_progress != nullptr && !is_warmup) {
    m_progress->attempt_started(candidate.hash, attempt, asked);
  }
  lock.unlock();
  ProcessResult process = m_runner.run(spec);
  lock.lock();
  for (const std::string& dir : checkouts_used) {
    --m_checkout_users[dir];
  }
  lock.unlock();
  if (process.interrupted || interrupt_requested()) {
    throw Error("interrupted; `envbisect resume " + m_setup.run_dir + "` continues this run", ExitCode::interrupted);
  }
  RunResult result = result_of(process, spec, recipe);
  if (m_progress != nullptr && !is_warmup) {
    m_progress->attempt_finished(candidate.hash, attempt, asked, result);
  }
  spdlog::info("  attempt {} of {}: {} {}", attempt, hash16(candidate.hash), to_string(result.status),
               result.metric ? std::to_string(*result.metric) : result.diagnosis);

  // Cache directories of finished attempts are not evidence; drop them to keep disk use flat. A
  // warm-up's caches are kept: they become the snapshot.
  for (WarmCache& warm : warm_caches) {
    warm.release();
  }
  if (!is_warmup) {
    for (const auto& [name, cache] : state.caches) {
      remove_tree(values["cache." + name]);
      remove_tree(values["cache." + name] + ".upper");
      remove_tree(values["cache." + name] + ".work");
    }
  }
  return result;
}

}  // namespace envbisect
