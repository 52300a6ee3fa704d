#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/delta.hpp"
#include "core/outcome.hpp"
#include "core/recipe.hpp"
#include "core/state.hpp"
#include "app/measure/events.hpp"
#include "app/remote/remote_build.hpp"
#include "env/materialize.hpp"
#include "env/warm_cache.hpp"
#include "env/venv_builder.hpp"

namespace envbisect {

class Journal;
class Runner;

// What to do when a candidate needs an attempt the journal does not hold.
enum class MissingAttempt { run, refuse };

// Everything a run needs to turn a set of applied deltas into measured attempts.
struct RunSetup {
  EnvState good;
  EnvState bad;
  std::vector<Delta> deltas;
  Recipe recipe;
  std::string recipe_hash;
  std::vector<std::string> wheel_dirs;
  std::string run_dir;
  MissingAttempt missing = MissingAttempt::run;  // refuse: a replay, which must not run anything
  StoreOptions store;                            // where unpacked wheels are shared between runs
  Builder builder = Builder::store;              // how candidate venvs are made
  std::string index_url;                         // for Builder::installer only; "" = offline
};

// Builds an environment on the remote side (--remote-root) instead of here.
using RemoteBuilder = std::function<RemoteBuild(const BuildEnvRequest&)>;

// One candidate: the good state with some deltas applied, and what identifies it.
struct Candidate {
  std::vector<std::size_t> applied;
  EnvState state;
  std::string hash;      // candidate state + recipe: attempts are cached by it
  std::string env_hash;  // python + packages: the venv is shared by every candidate with it
};

// Turns candidates into real environments and measured attempts, journaling each attempt. Attempts
// already in the journal (a resumed run) are reused, never rerun.
class Evaluator {
public:
  // Prepare to evaluate; `previous` are the journal records of an earlier session of this run.
  Evaluator(const RunSetup& setup, Runner& runner, Journal& journal, const std::vector<nlohmann::json>& previous);
  ~Evaluator();

  // Tell builds and attempts to `progress` from now on (nullptr: to nothing).
  void report_progress_to(MeasureEvents* progress) { m_progress = progress; }

  // Build every environment from now on with `builder` (on the remote side) instead of here.
  void build_remotely_with(RemoteBuilder builder) { m_remote_build = std::move(builder); }

  // Return the candidate for `applied` (sorted delta indices).
  Candidate candidate(const std::vector<std::size_t>& applied) const;

  // Return the candidate for any `state` (an axis point, a probe), labelled with the deltas it applies.
  Candidate candidate_for(EnvState state, const std::vector<std::size_t>& applied) const;

  // Make sure the candidate has at least `count` attempts; return all of its attempts so far. A
  // candidate whose environment cannot be built gets one skip attempt carrying the reason.
  const std::vector<RunResult>& measure(const Candidate& candidate, int count);

  // Make sure every candidate has at least `count` attempts, with up to `slots` attempts running at
  // once (interleaved: attempt 0 of each candidate first). Each candidate's attempts are journaled in
  // attempt order whatever order they finish in. With slots <= 1, exactly measure() on each in turn.
  // Slot k gets its own GPU group: {gpus.target} and {gpus.drafter} are shifted by k times the
  // split's width (highest index + 1), so 2 slots of a 0-4/5-7 split use GPUs 0-7 and 8-15.
  // Throw Error (interrupted) after the attempts in flight end when one of them is interrupted.
  void measure_all(const std::vector<Candidate>& candidates, int count, int slots);

  // Return the attempts recorded so far for the candidate.
  const std::vector<RunResult>& attempts(const Candidate& candidate);

  // Return the number of attempts actually run in this session (not taken from the journal).
  int attempts_run() const { return m_attempts_run; }

  // Return the number of attempts taken from an earlier session's journal.
  int attempts_reused() const { return m_attempts_reused; }

  // Return the mean wall time of every attempt recorded so far (this session's and the journal's);
  // 0 before the first.
  double mean_run_seconds() const;

  // Return the mean time of the environment builds made so far (this session's and the journal's;
  // reused environments not counted); 0 before the first.
  double mean_build_seconds() const { return m_builds == 0 ? 0.0 : m_build_seconds / m_builds; }

  // Return whether the candidate's environment is ready in this session (no build needed before it runs).
  bool has_environment(const Candidate& candidate) const { return m_built.count(candidate.env_hash) > 0; }
  // Return the metric key the recipe reads from the benchmark's output.
  const std::string& recipe_metric() const { return m_setup.recipe.metric; }

private:
  // A candidate's environment: how its build went, and where it is.
  struct Built {
    VenvResult venv;
    std::string env_dir;
    bool checked = false;  // its files' identity was recorded: checked before each use
  };
  const Built& build(const Candidate& candidate);
  const Built& keep(const std::string& env_hash, std::unique_ptr<Built> built);
  nlohmann::json damage(const std::vector<std::string>& files, const std::string& env_hash) const;
  const Built& build_remotely(const Candidate& candidate, std::unique_ptr<Built> built);
  RunResult run_attempt(const Candidate& candidate, const Built& built, int attempt, int slot = 0);
  // Journal how a warm cache was made private to an attempt, once per cache and method.
  void note_warm_cache(const std::string& cache, WarmCacheMethod method);
  std::map<std::string, std::string> placeholder_values(const Candidate& candidate, const Built& built, int attempt,
                                                        int slot);
  void record(const Candidate& candidate, const RunResult& result);
  std::string warm_snapshot(const Candidate& candidate, const Built& built);
  std::string warmup_dir(const Candidate& candidate) const;
  std::string checkout(const std::string& repo_name, const RepoPin& pin);

  const RunSetup& m_setup;
  Runner& m_runner;
  Journal& m_journal;
  RemoteBuilder m_remote_build;
  std::map<std::string, std::vector<RunResult>> m_attempts;   // by candidate hash
  std::map<std::string, std::unique_ptr<Built>> m_built;       // by env hash
  std::map<std::string, nlohmann::json> m_last_use;            // env hash -> {candidate, attempt} that ran last in it
  nlohmann::json m_latest_attempt;                              // {candidate, attempt} that ran last anywhere
  std::map<std::string, int> m_checkout_users;                 // checkout directory -> attempts running in it
  std::set<std::string> m_checkout_gaps_said;
  std::set<std::string> m_warm_cache_methods;                  // "cache/method" pairs journaled so far                  // checkouts whose gaps (submodules, filters) were said
  std::map<std::string, std::string> m_snapshots;              // snapshot key -> directory
  int m_attempts_run = 0;
  MeasureEvents* m_progress = nullptr;
  std::map<std::string, int> m_runs_asked;
  std::map<std::string, nlohmann::json> m_commands;            // "hash/attempt" -> {argv, env, cwd} as run                     // candidate hash -> attempts asked for
  // Guards everything above for measure_all(): held while an attempt is prepared and recorded, released
  // while its process runs. Recursive because a warm-up is an attempt run while preparing another.
  std::recursive_mutex m_mutex;
  int m_attempts_reused = 0;
  double m_build_seconds = 0;  // total time of the builds counted in m_builds
  int m_builds = 0;
};

// Return the RunResult recorded in a journal attempt record.
RunResult attempt_from_json(const nlohmann::json& record);

// Return the journal form of a RunResult (without the candidate fields).
nlohmann::json attempt_to_json(const RunResult& result);

// Return the first 16 hex digits of a candidate's or environment's hash, as journals and folders name them.
std::string hash16(const std::string& hash);

// Return the wall clock in seconds since the epoch, as journal records carry it.
double epoch_seconds();

}  // namespace envbisect
