#include "app/matrix/measure.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/measure/evaluate.hpp"
#include "app/measure/runners.hpp"
#include "exec/runner.hpp"
#include "exec/slurm_array.hpp"
#include "stats/samples.hpp"
#include "store/journal.hpp"
#include "util/fs.hpp"

namespace envbisect {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

CellMeasurement measured_from_json(const json& doc) {
  CellMeasurement out;
  out.runs = doc.value("runs", 0);
  out.failed = doc.value("failed", 0);
  out.skipped = doc.value("skipped", 0);
  out.first_error = doc.value("first_error", "");
  if (doc.contains("median") && doc["median"].is_number()) {
    out.median = doc["median"].get<double>();
  }
  return out;
}

// Return what the cell's folder says was measured tonight for exactly this state, recipe and repeats
// (by an earlier run of the night, or by a Slurm array task), or nothing.
std::optional<CellMeasurement> measured_earlier(const MatrixInputs& in, std::size_t index, const std::string& cell_dir) {
  std::string cell_file = cell_dir + "/cell.json";
  if (!path_exists(cell_file)) {
    return std::nullopt;
  }
  json doc = json::parse(read_file(cell_file), nullptr, false);
  if (doc.is_discarded() || doc.value("state_hash", "") != in.state_hashes[index]) {
    return std::nullopt;
  }
  return measured_from_json(doc);
}

// Throw the first cell's error (an interruption first), saying how many other cells failed too.
void throw_first_cell_error(const std::vector<CellMeasurement>& results) {
  std::size_t failed = 0;
  const CellMeasurement* first = nullptr;
  for (const CellMeasurement& result : results) {
    if (!result.error.empty()) {
      ++failed;
      if (first == nullptr || (result.error_code == ExitCode::interrupted && first->error_code != ExitCode::interrupted)) {
        first = &result;
      }
    }
  }
  if (first == nullptr) {
    return;
  }
  if (first->error_code == ExitCode::interrupted || failed == 1) {
    throw Error(first->error, first->error_code);
  }
  throw Error(first->error + " (and " + std::to_string(failed - 1) + " more cells failed)", first->error_code);
}

// Return the environment of a Slurm array task: the allow-list (PATH, HOME, TMPDIR, ...) plus where the
// default store lives; everything else the task needs is on its command line.
std::map<std::string, std::string> array_task_env() {
  std::map<std::string, std::string> env = allowed_parent_env();
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0') {
    env["XDG_CACHE_HOME"] = cache;
  }
  return env;
}

}  // namespace

void write_if_changed(const std::string& path, const std::string& content) {
  if (path_exists(path)) {
    try {
      if (read_file(path) == content) {
        return;
      }
    } catch (const Error&) {
      // Unreadable: overwrite below.
    }
  }
  write_file_atomic(path, content);
}

// Measure one cell in its own folder with its own evaluator, journal and runner (so cells can run on
// several threads), reusing what an earlier run of the same night measured.
CellMeasurement measure_cell(const MatrixInputs& in, std::size_t index, const std::string& cell_dir) {
  if (std::optional<CellMeasurement> earlier = measured_earlier(in, index, cell_dir)) {
    // CellMeasurement earlier tonight with the same state and recipe: nothing to rerun.
    return *earlier;
  }
  make_dirs(cell_dir);
  write_if_changed(cell_dir + "/state.json", state_to_json(in.states[index]).dump(2) + "\n");
  // A run killed halfway left attempts in the journal; the evaluator reuses them.
  JournalContents previous = read_journal(cell_dir + "/journal.jsonl");
  Journal journal(cell_dir + "/journal.jsonl");
  RunSetup setup{in.states[index], in.states[index], {}, in.recipe, in.recipe_hash, in.wheel_dirs, cell_dir,
                 MissingAttempt::run, StoreOptions{in.store_dir, {}}, Builder::store, ""};
  std::unique_ptr<Runner> runner = make_runner(ExecutionOptions{});
  Evaluator evaluator(setup, *runner, journal, previous.records);
  Candidate candidate = evaluator.candidate_for(in.states[index], {});
  const std::vector<RunResult>& attempts = evaluator.measure(candidate, in.repeats);
  CellMeasurement out;
  std::vector<double> metrics;
  std::string skip_reason;
  for (const RunResult& attempt : attempts) {
    ++out.runs;
    if (attempt.status == RunStatus::failed || attempt.status == RunStatus::timeout) {
      ++out.failed;
      if (out.first_error.empty()) {
        out.first_error = attempt.status == RunStatus::timeout ? "timeout" : attempt.error_class;
        if (out.first_error.empty()) {
          out.first_error = attempt.signal != 0 ? "signal " + std::to_string(attempt.signal)
                                                : "exit " + std::to_string(attempt.exit_code);
        }
      }
    } else if (attempt.status == RunStatus::skip) {
      ++out.skipped;
      if (skip_reason.empty()) {
        skip_reason = attempt.error_class.empty() ? "skip (exit 125)" : attempt.error_class;
      }
    } else if (attempt.metric) {
      metrics.push_back(*attempt.metric);
    }
  }
  if (!metrics.empty()) {
    out.median = stats::median(metrics);
  }
  if (out.first_error.empty()) {
    out.first_error = skip_reason;  // why the cell could not be tested, when nothing failed
  }
  json doc = {{"id", in.cells[index].id}, {"state_hash", in.state_hashes[index]}, {"runs", out.runs},
              {"failed", out.failed}, {"skipped", out.skipped}, {"first_error", out.first_error},
              {"median", out.median ? json(*out.median) : json(nullptr)}, {"metrics", metrics}};
  write_if_changed(cell_dir + "/cell.json", doc.dump(2) + "\n");
  return out;
}

// Measure every cell, `jobs` at a time; an Error in one cell is kept and rethrown after all stop.
std::vector<CellMeasurement> measure_cells(const MatrixInputs& in, const std::string& night_dir, int jobs) {
  std::vector<CellMeasurement> results(in.cells.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t index = next++; index < in.cells.size(); index = next++) {
      try {
        results[index] = measure_cell(in, index, night_dir + "/cells/" + in.cells[index].id);
      } catch (const Error& error) {
        results[index].error = error.what();
        results[index].error_code = error.code();
      } catch (const std::exception& error) {
        // Anything else must not escape a worker thread (std::terminate): it fails the cell, named.
        results[index].error = "cell " + in.cells[index].id + ": " + error.what();
        results[index].error_code = ExitCode::environment;
      }
    }
  };
  int threads = std::min<int>(jobs, static_cast<int>(in.cells.size()));
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
      pool.emplace_back(worker);
    }
    for (std::thread& thread : pool) {
      thread.join();
    }
  }
  throw_first_cell_error(results);
  return results;
}

// The folder name a cell's files live in tonight.
std::string cell_dir_of(const MatrixInputs& in, const std::string& night_dir, std::size_t index) {
  return night_dir + "/cells/" + in.cells[index].id;
}

// Measure the night's unmeasured cells as ONE Slurm job array, a task per cell, each task this same
// binary measuring one cell into its folder (`matrix ... --cell I`; the cluster shares the filesystem),
// then read every cell's measurement from its folder as a rerun of the night does.
std::vector<CellMeasurement> measure_cells_slurm(const MatrixInputs& in, const MatrixOptions& options,
                                          const std::string& results_dir, const std::string& date,
                                          const std::string& night_dir) {
  std::vector<CellMeasurement> results(in.cells.size());
  SlurmArrayRequest request;
  request.target = SlurmTarget{options.slurm_gpus, options.slurm_partition};
  request.dir = night_dir + "/slurm";
  request.job_name = "envbisect-matrix";
  request.max_running = options.jobs;  // --jobs N: at most N cells at once on the cluster too
  if (in.recipe.timeout_s > 0) {
    // Every run of the cell at its recipe's limit, plus ten minutes to build its environment.
    // (repeats + 1: a cell with warm caches runs the recipe's warm-up first.)
    request.task_limit =
        std::chrono::milliseconds(static_cast<long long>(in.recipe.timeout_s * 1000.0) * (in.repeats + 1) + 600000);
  }
  std::error_code self_error;
  const std::string self = fs::read_symlink("/proc/self/exe", self_error).string();
  if (self_error) {
    throw Error("/proc/self/exe: cannot find this envbisect to run in the array tasks: " + self_error.message(),
                ExitCode::environment);
  }
  const std::map<std::string, std::string> env = array_task_env();
  std::vector<std::string> prefix = {self};
  if (spdlog::get_level() <= spdlog::level::info) {
    prefix.push_back(spdlog::get_level() <= spdlog::level::debug ? "-vv" : "-v");
  }
  // Array task ids are positions 0..n-1 (Slurm refuses ids of MaxArraySize, 1001 by default, or more);
  // each task's cell index is on its command line.
  std::vector<std::size_t> cell_of_task;
  for (std::size_t index = 0; index < in.cells.size(); ++index) {
    const std::string cell_dir = cell_dir_of(in, night_dir, index);
    if (std::optional<CellMeasurement> earlier = measured_earlier(in, index, cell_dir)) {
      results[index] = *earlier;  // measured earlier tonight: not submitted again
      continue;
    }
    make_dirs(cell_dir);
    // The state this night submits: the task refuses to measure another one ("latest" moved meanwhile).
    write_if_changed(cell_dir + "/state.json", state_to_json(in.states[index]).dump(2) + "\n");
    SlurmArrayTask task;
    task.index = static_cast<int>(cell_of_task.size());
    cell_of_task.push_back(index);
    task.spec.argv = prefix;
    for (const std::string& arg : {std::string("matrix"), absolute_path(options.spec_path, "."), std::string("--results"),
                                   results_dir, std::string("--date"), date, std::string("--cell"), std::to_string(index)}) {
      task.spec.argv.push_back(arg);
    }
    task.spec.env = env;
    task.spec.cwd = cell_dir;
    task.spec.stdout_path = cell_dir + "/slurm-task.out";
    task.spec.stderr_path = cell_dir + "/slurm-task.err";
    request.tasks.push_back(std::move(task));
  }
  if (request.tasks.empty()) {
    return results;
  }
  // At this point every cell still to measure has its folder and its task.

  std::cerr << "envbisect: matrix: measuring " << request.tasks.size() << (request.tasks.size() == 1 ? " cell" : " cells")
            << " as one Slurm job array (script, sbatch's answer: "
            << request.dir << ")\n";
  const SlurmArrayOutcome outcome = run_slurm_array(request);
  if (outcome.interrupted) {
    throw Error(outcome.array_id.empty() ? std::string("interrupted before the Slurm job array was submitted")
                                         : "interrupted; Slurm job array " + outcome.array_id + " was cancelled",
                ExitCode::interrupted);
  }
  if (outcome.array_id.empty()) {
    throw Error(outcome.submit_error + " (" + request.dir + "/array.sh)", ExitCode::environment);
  }
  // At this point every task has ended; what each measured is in its cell's folder.
  for (const SlurmArrayTaskOutcome& task : outcome.tasks) {
    const std::size_t index = cell_of_task.at(static_cast<std::size_t>(task.index));
    const std::string cell_dir = cell_dir_of(in, night_dir, index);
    if (std::optional<CellMeasurement> measured = measured_earlier(in, index, cell_dir)) {
      results[index] = *measured;
      continue;
    }
    std::string how = task.timed_out ? "was cancelled after its limit of " +
                                           std::to_string(request.task_limit.count() / 1000) + " s"
                                     : "ended " + task.status.state;
    if (!task.timed_out && task.status.exit_code >= 0) {
      how += " (exit " + std::to_string(task.status.exit_code) +
             (task.status.signal != 0 ? ", signal " + std::to_string(task.status.signal) : "") + ")";
    }
    results[index].error = "cell " + in.cells[index].id + ": Slurm array task " + outcome.array_id + "_" +
                           std::to_string(task.index) + " " + how + " without writing its measurement; see " +
                           cell_dir + "/slurm-task.err, slurm-task.out and " + request.dir + "/task-" +
                           std::to_string(task.index) + ".err";
    results[index].error_code = ExitCode::environment;
  }
  throw_first_cell_error(results);
  return results;
}

}  // namespace envbisect
