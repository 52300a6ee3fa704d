#include "app/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <numeric>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/evaluate.hpp"
#include "app/inputs.hpp"
#include "app/verdict.hpp"
#include "core/delta.hpp"
#include "exec/runner.hpp"
#include "report/delta_table.hpp"
#include "search/isolate.hpp"
#include "store/journal.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

std::string default_run_dir() {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  return std::string("runs/") + stamp;
}

std::string describe_set(const std::vector<Delta>& deltas, const DeltaSet& set) {
  std::vector<std::string> names;
  for (std::size_t index : set) {
    names.push_back(std::string(to_string(deltas[index].dimension)) + "/" + deltas[index].name);
  }
  return "{" + join(names, ", ") + "}";
}

// Load all three inputs, collecting the problems of every file before giving up.
void load_inputs(const RunOptions& options, EnvState& good, EnvState& bad, Recipe& recipe) {
  std::vector<std::string> messages;
  auto attempt = [&](auto load) {
    try {
      load();
    } catch (const Error& error) {
      messages.push_back(error.what());
    }
  };
  attempt([&] { good = load_state_file(options.good_path); });
  attempt([&] { bad = load_state_file(options.bad_path); });
  attempt([&] { recipe = load_recipe_file(options.recipe_path); });
  if (!messages.empty()) {
    throw Error(join(messages, "\n"), ExitCode::bad_input);
  }
  check_run_inputs(good, options.good_path, bad, options.bad_path, recipe, options.recipe_path, options.wheel_dirs);
}

std::string format_metric(const AnchorSummary& anchor) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4g", anchor.median);
  return anchor.ok_runs == 0 ? "no successful run" : std::string(text) + " (median of " + std::to_string(anchor.ok_runs) + ")";
}

ExitCode execute(RunOptions options, const std::vector<json>& previous) {
  // Validate every input first; nothing is written before this passes.
  EnvState good;
  EnvState bad;
  Recipe recipe;
  load_inputs(options, good, bad, recipe);
  std::vector<Delta> deltas = diff_states(good, bad);
  if (deltas.empty()) {
    throw Error(options.good_path + " and " + options.bad_path + " describe the same environment: nothing to bisect",
                ExitCode::bad_input);
  }
  int repeats = options.repeats > 0 ? options.repeats : recipe.repeats;
  // At this point every input is valid.

  // Record the run so `resume` can continue it.
  make_dirs(options.out_dir);
  std::string run_dir = absolute_path(options.out_dir, ".");
  std::vector<std::string> wheel_dirs;
  for (const std::string& dir : options.wheel_dirs) {
    wheel_dirs.push_back(absolute_path(dir, "."));
  }
  json run_doc = {{"good", absolute_path(options.good_path, ".")}, {"bad", absolute_path(options.bad_path, ".")},
                  {"recipe", absolute_path(options.recipe_path, ".")}, {"wheels", wheel_dirs},
                  {"repeats", options.repeats},
                  {"good_sha256", sha256_hex(read_file(options.good_path))},
                  {"bad_sha256", sha256_hex(read_file(options.bad_path))},
                  {"recipe_sha256", sha256_hex(read_file(options.recipe_path))}};
  if (previous.empty()) {
    write_file_atomic(run_dir + "/run.json", run_doc.dump(2) + "\n");
  }
  Journal journal(run_dir + "/journal.jsonl");
  json start = {{"type", "start"}, {"run", run_doc}, {"version", ENVBISECT_VERSION}, {"deltas", json::array()},
                {"resumed", !previous.empty()}};
  for (const Delta& delta : deltas) {
    start["deltas"].push_back(delta_to_json(delta));
  }
  journal.append(start);

  RunSetup setup{good, bad, deltas, recipe, sha256_hex(read_file(options.recipe_path) + std::to_string(repeats)),
                 wheel_dirs, run_dir};
  std::cout << "envbisect: " << deltas.size() << " differences between " << options.good_path << " (good) and "
            << options.bad_path << " (bad):\n"
            << render_delta_table(deltas);
  auto started = std::chrono::steady_clock::now();
  LocalRunner runner;
  Evaluator evaluator(setup, runner, journal, previous);

  // Measure the anchors, interleaved so drift on a shared machine hits both alike.
  DeltaSet all(deltas.size());
  std::iota(all.begin(), all.end(), 0);
  Candidate good_candidate = evaluator.candidate({});
  Candidate bad_candidate = evaluator.candidate(all);
  for (int round = 1; round <= repeats; ++round) {
    evaluator.measure(good_candidate, round);
    evaluator.measure(bad_candidate, round);
  }
  AnchorSummary good_anchor = summarize_anchor(evaluator.attempts(good_candidate));
  AnchorSummary bad_anchor = summarize_anchor(evaluator.attempts(bad_candidate));
  std::cout << "anchors: good " << format_metric(good_anchor) << ", " << good_anchor.failures << " failed; bad "
            << format_metric(bad_anchor) << ", " << bad_anchor.failures << " failed (" << recipe.metric << ")\n";
  std::string distinct = anchors_distinct(good_anchor, bad_anchor, recipe.higher_is_better);
  journal.append({{"type", "anchors"}, {"good_median", good_anchor.median}, {"bad_median", bad_anchor.median},
                  {"good_failures", good_anchor.failures}, {"bad_failures", bad_anchor.failures},
                  {"problem", distinct}});
  if (!distinct.empty()) {
    throw Error(distinct, ExitCode::indistinct);
  }

  // Search: every question becomes a measured candidate and a journaled decision.
  Oracle oracle = [&](const DeltaSet& applied) {
    Candidate candidate = evaluator.candidate(applied);
    const std::vector<RunResult>& attempts = evaluator.measure(candidate, repeats);
    Verdict verdict = judge(attempts, evaluator.attempts(good_candidate), evaluator.attempts(bad_candidate),
                            recipe.higher_is_better);
    journal.append({{"type", "decision"}, {"applied", applied}, {"candidate", candidate.hash},
                    {"verdict", to_string(verdict)}});
    std::cout << "  " << to_string(verdict) << "  " << describe_set(deltas, applied) << "\n" << std::flush;
    return verdict;
  };
  Isolation isolation = isolate(deltas.size(), oracle);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Write the result, then the summary.
  json result = {{"found", isolation.found}, {"cause", json::array()}, {"causes", json::array()},
                 {"evaluations", isolation.evaluations}, {"attempts_run", evaluator.attempts_run()},
                 {"attempts_reused", evaluator.attempts_reused()}, {"seconds", seconds},
                 {"verified", {{"forward", isolation.verified_forward}, {"reverse", isolation.verified_reverse}}},
                 {"note", isolation.note}, {"metric", recipe.metric},
                 {"anchors", {{"good", {{"median", good_anchor.median}, {"failures", good_anchor.failures}}},
                              {"bad", {{"median", bad_anchor.median}, {"failures", bad_anchor.failures}}}}},
                 {"steps", json::array()}};
  for (std::size_t index : isolation.cause) {
    result["cause"].push_back(delta_to_json(deltas[index]));
  }
  for (const DeltaSet& cause : isolation.causes) {
    json items = json::array();
    for (std::size_t index : cause) {
      items.push_back(delta_to_json(deltas[index]));
    }
    result["causes"].push_back(items);
  }
  for (const SearchStep& step : isolation.steps) {
    result["steps"].push_back({{"applied", step.applied}, {"verdict", to_string(step.verdict)}, {"why", step.why}});
  }
  write_file_atomic(run_dir + "/result.json", result.dump(2) + "\n");
  journal.append({{"type", "result"}, {"result", result}});

  if (!isolation.found) {
    std::cout << "no minimal cause isolated: " << isolation.note << "\n";
  } else {
    std::cout << "cause (" << isolation.cause.size() << (isolation.cause.size() == 1 ? " difference" : " differences, together")
              << "):\n";
    for (std::size_t index : isolation.cause) {
      std::cout << "  " << describe(deltas[index]) << "\n";
    }
    std::cout << "verified: good + cause -> " << (isolation.verified_forward ? "bad" : "NOT bad")
              << "; bad - cause -> " << (isolation.verified_reverse ? "good" : "NOT good") << "\n";
    if (!isolation.note.empty()) {
      std::cout << "note: " << isolation.note << "\n";
    }
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.0f s", seconds);
  std::cout << "evaluations: " << isolation.evaluations << " candidates, " << evaluator.attempts_run()
            << " benchmark runs (" << evaluator.attempts_reused() << " reused), " << elapsed << "\n"
            << "result: " << run_dir << "/result.json\n";
  return isolation.found && isolation.verified_forward && isolation.verified_reverse ? ExitCode::ok
                                                                                    : ExitCode::inconclusive;
}

}  // namespace

ExitCode run_run(const RunOptions& options) {
  RunOptions resolved = options;
  if (resolved.out_dir.empty()) {
    resolved.out_dir = default_run_dir();
  }
  if (path_exists(resolved.out_dir + "/journal.jsonl")) {
    throw Error(resolved.out_dir + ": already holds a run; use `envbisect resume " + resolved.out_dir +
                    "` or choose another --out",
                ExitCode::bad_input);
  }
  return execute(resolved, {});
}

ExitCode run_resume(const std::string& run_dir) {
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
  options.repeats = doc.value("repeats", 0);
  options.out_dir = run_dir;
  // The inputs must be the ones the run started with, or the journal's attempts mean nothing.
  for (const char* key : {"good", "bad", "recipe"}) {
    std::string path = doc.value(key, "");
    if (sha256_hex(read_file(path)) != doc.value(std::string(key) + "_sha256", "")) {
      throw Error(path + ": changed since the run started; start a new run instead of resuming", ExitCode::bad_input);
    }
  }
  JournalContents journal = read_journal(run_dir + "/journal.jsonl");
  if (journal.torn_tail) {
    spdlog::warn("{}/journal.jsonl: dropped a torn last record (the run was killed mid-write)", run_dir);
  }
  return execute(options, journal.records);
}

}  // namespace envbisect
