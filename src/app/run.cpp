#include "app/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/diagnosis.hpp"
#include "app/evaluate.hpp"
#include "app/progress.hpp"
#include "app/host_context.hpp"
#include "app/estimate.hpp"
#include "app/report.hpp"
#include "app/inputs.hpp"
#include "app/remote/remote_build.hpp"
#include "app/restore_check.hpp"
#include "app/run_execute.hpp"
#include "app/run_guard.hpp"
#include "app/run_plan.hpp"
#include "app/run_stages.hpp"
#include "core/delta.hpp"
#include "env/store.hpp"
#include "env/store_lock.hpp"
#include "exec/runner.hpp"
#include "exec/staging.hpp"
#include "report/delta_table.hpp"
#include "app/axes.hpp"
#include "search/bisect.hpp"
#include "search/isolate.hpp"
#include "search/kary.hpp"
#include "stats/effect.hpp"
#include "stats/pass_fail.hpp"
#include "stats/quantity.hpp"
#include "stats/replicate.hpp"
#include "stats/verdict.hpp"
#include "store/journal.hpp"
#include "store/run_lock.hpp"
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

// Decisions between two extra runs of each anchor.
constexpr int k_anchor_refresh = 5;

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

json preflight_to_json(const stats::Preflight& p) {
  return {{"distinguishable", p.distinguishable}, {"good_median", p.good_median}, {"bad_median", p.bad_median},
          {"good_cv", p.good_cv}, {"bad_cv", p.bad_cv}, {"effect", p.effect},
          {"good_fail_rate", p.good_fail_rate}, {"bad_fail_rate", p.bad_fail_rate}, {"metric_p", p.metric_p},
          {"failure_p", p.failure_p}, {"checksum_mismatch", p.checksum_mismatch}, {"message", p.message}};
}

// Return where and how runs go: the command line's choice, completed by the recipe (its isolation
// when the command line asks for none, whether isolated runs may reach the network) and, for Slurm,
// the GPUs one run needs (the widest split of the two states, when the recipe uses {gpus.*}) unless
// --slurm-gpus says.
ExecutionOptions execution_for(const RunOptions& options, const Recipe& recipe, const EnvState& good,
                               const EnvState& bad) {
  ExecutionOptions execution = options.execution;
  if (execution.isolation == "none" && !recipe.isolation.empty()) {
    execution.isolation = recipe.isolation;
  }
  execution.isolation_network = execution.isolation_network || recipe.network;
  const std::vector<std::string> placeholders = recipe_placeholders(recipe);
  const bool uses_gpus = std::any_of(placeholders.begin(), placeholders.end(),
                                     [](const std::string& name) { return name.rfind("gpus.", 0) == 0; });
  if (execution.executor == "slurm" && execution.slurm_gpus == 0 && uses_gpus) {
    for (const EnvState* state : {&good, &bad}) {
      execution.slurm_gpus = std::max(execution.slurm_gpus,
                                      static_cast<int>(state->gpus.target.size() + state->gpus.drafter.size()));
    }
  }
  return execution;
}

// `held` is the run folder's lock when the caller took it (resume); a new run takes it here.
}  // namespace

ExitCode execute(RunOptions options, const std::vector<json>& previous, Mode mode, const RunLock* held) {
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
  // Every pinned build must have a source (wheel folder, store download, uv cache, index) before anything runs.
  const RestoreInputs restore = restore_packages(options, good, bad);
  // A pass/fail test (the recipe says so, or --deterministic) is judged by exit status, one run each.
  const bool pass_fail = options.deterministic || recipe.pass_fail;
  recipe.pass_fail = pass_fail;
  const stats::VerdictPolicy policy = run_policy(options, recipe, pass_fail);
  std::vector<Axis> axes =
      plan_axes(deltas, good, bad, options.wheel_dirs, options.first_parent ? FirstParent::yes : FirstParent::no);
  std::vector<std::vector<std::size_t>> units =
      plan_units(deltas, good, bad, options.wheel_dirs, options.uv_caches);
  pin_group_axes(axes, deltas, units, bad, options.wheel_dirs, options.uv_caches);
  // At this point every input is valid.
  if (options.dry_run) {
    print_restore_plan(restore.plan, std::cout);
    print_plan(deltas, axes, units, policy, pass_fail);
    print_time_estimate(std::cout, axes, units.size(), policy, options.run_seconds);
    return ExitCode::ok;
  }

  // The executor first: a bad option is refused before anything is written.
  Execution execution = make_execution(execution_for(options, recipe, good, bad));

  // Record the run so `resume` can continue it.
  make_dirs(options.out_dir);
  std::string run_dir = absolute_path(options.out_dir, ".");
  // One process at a time in a run folder: a second `run --out` or a `resume` is refused, naming us.
  std::optional<RunLock> own_lock;
  if (mode == Mode::run && held == nullptr) {
    own_lock.emplace(run_dir, "run");
    if (previous.empty() && path_exists(run_dir + "/journal.jsonl")) {
      throw Error(options.out_dir + ": already holds a run; use `envbisect resume " + options.out_dir +
                      "` or choose another --out",
                  ExitCode::bad_input);
    }
  }
  std::vector<std::string> wheel_dirs;
  for (const std::string& dir : options.wheel_dirs) {
    wheel_dirs.push_back(absolute_path(dir, "."));
  }
  json run_doc = {{"good", absolute_path(options.good_path, ".")}, {"bad", absolute_path(options.bad_path, ".")},
                  {"recipe", absolute_path(options.recipe_path, ".")}, {"wheels", wheel_dirs},
                  {"repeats", options.repeats}, {"uv_caches", options.uv_caches}, {"store", options.store_dir},
                  {"builder", options.builder}, {"index_url", options.index_url},
                  {"index_urls", restore.shown_index_urls},
                  {"good_sha256", sha256_hex(read_file(options.good_path))},
                  {"bad_sha256", sha256_hex(read_file(options.bad_path))},
                  {"recipe_sha256", sha256_hex(read_file(options.recipe_path))}};
  run_doc["max_runs"] = options.max_runs;
  run_doc["no_probe"] = options.no_probe;
  run_doc["anchor_runs"] = options.anchor_runs;
  run_doc["first_parent"] = options.first_parent;
  run_doc["max_log_mb"] = options.max_log_mb;
  run_doc["deterministic"] = options.deterministic;
  run_doc["any_change"] = options.any_change;
  run_doc["execution"] = {{"executor", options.execution.executor}, {"host", options.execution.host},
                          {"prefix", options.execution.prefix}, {"slots", options.execution.slots},
                          {"isolation", options.execution.isolation},
                          {"isolation_base", options.execution.isolation_base},
                          {"ssh_config", options.execution.ssh_config},
                          {"slurm_gpus", options.execution.slurm_gpus},
                          {"slurm_partition", options.execution.slurm_partition},
                          {"remote_root", options.execution.remote_root},
                          {"remote_bundle", options.execution.remote_bundle}};
  if (previous.empty()) {
    write_file_atomic(run_dir + "/run.json", run_doc.dump(2) + "\n");
  }
  // A replay writes its own journal beside the original, which it never touches.
  std::string journal_path = run_dir + (mode == Mode::replay ? "/replay.jsonl" : "/journal.jsonl");
  if (mode == Mode::replay) {
    remove_tree(journal_path);
  }
  Journal journal(journal_path);
  // A killed session's benchmarks may still run (their own children, daemons): end them before ours
  // start, and journal every process we start, so the next session can do the same.
  std::optional<RecordingRunner> recording;
  std::optional<StoreInUse> store_in_use;
  if (mode == Mode::run) {
    end_stale_processes(run_dir, std::cerr);
    recording.emplace(*execution.runner, run_dir, static_cast<std::uint64_t>(options.max_log_mb) << 20);
    if (options.builder == "store" && execution.staging == nullptr) {
      // `store gc` keeps the shared environments while this is held.
      store_in_use.emplace(options.store_dir.empty() ? default_store_dir() : options.store_dir);
    }
  }
  Runner& runner = recording ? static_cast<Runner&>(*recording) : *execution.runner;
  json start = {{"type", "start"}, {"run", run_doc}, {"version", ENVBISECT_VERSION}, {"deltas", json::array()},
                {"resumed", !previous.empty()}};
  for (const Delta& delta : deltas) {
    start["deltas"].push_back(delta_to_json(delta));
  }
  // The machine as it was: load, clocks and free memory explain a slow or noisy run later.
  if (mode == Mode::run) {
    start["host"] = host_context(*execution.runner, run_dir);
  }
  journal.append(start);

  RunSetup setup{good, bad, deltas, recipe, sha256_hex(read_file(options.recipe_path)), wheel_dirs, run_dir,
                 mode == Mode::replay ? MissingAttempt::refuse : MissingAttempt::run,
                 StoreOptions{options.store_dir, options.uv_caches},
                 options.builder == "installer" ? Builder::installer : Builder::store, options.index_url};
  // -q: only the result reaches stdout. Progress goes to stderr: a status line on a terminal, else lines.
  MutedStdout muted(options.quiet);
  Progress progress(std::cerr, mode == Mode::replay ? ProgressStyle::quiet
                                                    : choose_progress_style(options.quiet, options.verbose));
  std::cout << "envbisect: " << deltas.size() << (deltas.size() == 1 ? " difference" : " differences") << " between " << options.good_path << " (good) and "
            << options.bad_path << " (bad):\n"
            << render_delta_table(deltas) << std::flush;
  auto started = std::chrono::steady_clock::now();
  Evaluator evaluator(setup, runner, journal, previous);
  evaluator.report_progress_to(&progress);
  if (execution.staging != nullptr) {
    // No shared filesystem: environments are built on the remote side by the bundled envbisect.
    StagingRunner* staging = execution.staging;
    std::string bundle = execution.bundle_dir;
    evaluator.build_remotely_with([staging, bundle](const BuildEnvRequest& request) {
      return build_venv_remotely(*staging, bundle, request);
    });
  }

  // Measure the anchors, interleaved so drift on a shared machine hits both alike; add pairs while
  // the preflight says more runs could tell them apart.
  DeltaSet all(deltas.size());
  std::iota(all.begin(), all.end(), 0);
  Candidate good_candidate = evaluator.candidate({});
  Candidate bad_candidate = evaluator.candidate(all);
  progress.label(good_candidate.hash, "good anchor");
  progress.label(bad_candidate.hash, "bad anchor");
  progress.expect(good_candidate.hash, policy.anchor_runs);
  progress.expect(bad_candidate.hash, policy.anchor_runs);
  progress.plan(worst_case_decisions(axes, units.size()), policy.min_runs);
  progress.unit(recipe.unit);
  progress.phase("anchors");
  // The runs of each candidate (by hash) that verdicts have seen so far in this session: a resumed or
  // replayed run meets the journal's attempts in the order the first session did, not all at once.
  std::map<std::string, std::size_t> in_view;
  auto see = [&](const Candidate& candidate, int count) {
    const std::vector<RunResult>& done = evaluator.measure(candidate, count);
    std::size_t& seen = in_view[candidate.hash];
    seen = std::max(seen, std::min(done.size(), static_cast<std::size_t>(std::max(count, 0))));
  };
  auto seen_runs = [&](const Candidate& candidate) { return static_cast<int>(in_view[candidate.hash]); };
  int anchor_runs = 0;
  auto measure_anchors = [&](int runs) {
    if (options.execution.slots > 1 && anchor_runs < runs) {
      // With several slots both anchors' runs go side by side, still interleaved attempt by attempt.
      anchor_runs = runs;
      evaluator.measure_all({good_candidate, bad_candidate}, anchor_runs, options.execution.slots);
    }
    while (anchor_runs < runs) {
      ++anchor_runs;
      see(good_candidate, anchor_runs);
      see(bad_candidate, anchor_runs);
    }
    see(good_candidate, anchor_runs);
    see(bad_candidate, anchor_runs);
  };
  // Samples as the mode reads runs (a pass/fail test by its exit status alone), those seen so far.
  auto samples = [&](const Candidate& candidate) {
    stats::SampleSet set;
    const std::vector<RunResult>& attempts = evaluator.attempts(candidate);
    const std::size_t seen = std::min(attempts.size(), in_view[candidate.hash]);
    for (std::size_t i = 0; i < seen; ++i) {
      set.samples.push_back(pass_fail ? stats::to_pass_fail_sample(attempts[i]) : stats::to_sample(attempts[i]));
    }
    return set;
  };
  // Judge the anchors on every run they have: statistically, or pass/fail (each good run passes, each bad fails).
  auto judge_anchors = [&](bool by_exit_status) {
    if (!by_exit_status) {
      return stats::preflight(samples(good_candidate), samples(bad_candidate), policy);
    }
    const stats::PassFailAnchors checked = stats::pass_fail_anchors(samples(good_candidate), samples(bad_candidate));
    stats::Preflight p;
    p.distinguishable = checked.distinguishable;
    p.by_failure = true;
    p.message = checked.message;
    return p;
  };
  // Two runs of each anchor show a mistake in the inputs (an anchor that cannot be built, a recipe
  // every run fails the same way) before the remaining anchor runs are spent on it.
  measure_anchors(std::min(2, policy.anchor_runs));
  if (const std::optional<std::string> problem =
          anchors_input_error(evaluator.attempts(good_candidate), evaluator.attempts(bad_candidate))) {
    journal.append({{"type", "stopped"}, {"why", "input_error"}, {"message", *problem}});
    if (mode == Mode::run) {
      write_reports(run_dir);
    }
    throw Error(*problem, ExitCode::bad_input);
  }
  measure_anchors(policy.anchor_runs);
  stats::Preflight preflight = judge_anchors(pass_fail);
  // The preflight knows each channel's cap (failures may extend the anchors past the metric's).
  while (!pass_fail && !preflight.distinguishable && preflight.more_runs_would_help) {
    measure_anchors(anchor_runs + 1);
    preflight = judge_anchors(false);
  }
  // Anchors close for their spread get more runs before the search leans on them.
  if (!pass_fail && preflight.distinguishable && preflight.anchor_runs_wanted > anchor_runs) {
    measure_anchors(preflight.anchor_runs_wanted);
    preflight = judge_anchors(false);
  }
  journal.append({{"type", "preflight"}, {"anchor_runs", anchor_runs}, {"preflight", preflight_to_json(preflight)}});
  std::cout << "anchors (" << anchor_runs << (anchor_runs == 1 ? " run" : " runs") << " each"
            << (pass_fail ? ", pass/fail" : ", interleaved") << "): " << preflight.message << "\n";
  // Noisy anchors make every verdict need more runs, and a small effect invisible: say so.
  for (const auto& [name, cv] : {std::pair{"good", preflight.good_cv}, std::pair{"bad", preflight.bad_cv}}) {
    if (!pass_fail && cv > stats::k_noisy_cv) {
      std::cout << "warning: the " << name << " anchor's runs are noisy (CV " << std::lround(cv * 1000) / 10.0
                << " % > " << stats::k_noisy_cv * 100 << " %): verdicts need more runs and small effects can hide; "
                   "a quieter machine or a longer benchmark helps\n";
    }
  }
  std::cout << std::flush;
  if (!preflight.distinguishable) {
    if (mode == Mode::run) {
      write_reports(run_dir);
    }
    throw Error(preflight.message, ExitCode::indistinct);
  }
  // Anchors that pass every time and fail every time with one signature need no statistics: one run
  // per candidate from here on, as a pass/fail test, and the boundary re-run at the end.
  bool one_run = pass_fail || stats::looks_deterministic(samples(good_candidate), samples(bad_candidate), policy);
  // Set when a candidate's runs disagreed in a mode the anchors only suggested: the search runs again.
  bool fell_back = false;
  if (one_run && !pass_fail) {
    std::cout << "anchors look deterministic (every good run passed, every bad run failed with one signature): one "
                 "run per candidate, the boundary re-run at the end\n";
    journal.append({{"type", "mode"}, {"mode", "pass-fail"}, {"why", "anchors look deterministic"}});
  }

  // Search: every question becomes a candidate measured until its verdict is decided, and a journaled
  // decision. Every few decisions the anchors run once more, to catch drift on a shared machine.
  int decisions = 0;
  std::vector<json> verdict_log;
  // Candidates whose intermediate verdict was replicated beside fresh anchor runs, with the outcome:
  // a replicated intermediate is not replicated again when re-checked.
  std::map<std::string, Verdict> replicated_by_hash;
  // Decide one candidate: run it until the statistics decide, journal the decision with its inputs.
  auto decide = [&](const Candidate& candidate, const std::string& stage, const std::string& label) {
    // One run judges a pass/fail candidate (--repeats of them with --deterministic, which must agree);
    // otherwise run it until the statistics decide.
    progress.phase(stage);
    progress.label(candidate.hash, label);
    see(candidate, one_run && !pass_fail ? 1 : policy.min_runs);
    stats::Assessment assessment = one_run ? stats::assess_pass_fail(samples(candidate))
                                           : stats::assess(samples(candidate), samples(good_candidate),
                                                           samples(bad_candidate), policy);
    if (one_run && !pass_fail && assessment.decided && assessment.verdict == Verdict::unstable) {
      // The anchors only looked deterministic: a candidate whose runs disagree (a race that bites in
      // some runs) shows the test is not. Statistical verdicts from here on; the search starts again
      // on them, keeping every run made so far.
      one_run = false;
      fell_back = true;
      std::cout << "runs of " << label << " disagreed: the test is not deterministic after all; statistical "
                                          "verdicts from here on, and the search starts again on them\n";
      journal.append({{"type", "mode"}, {"mode", "metric"}, {"why", label + ": its runs disagreed"}});
      see(candidate, std::max(seen_runs(candidate), policy.min_runs));
      assessment = stats::assess(samples(candidate), samples(good_candidate), samples(bad_candidate), policy);
    }
    while (!assessment.decided) {
      see(candidate, seen_runs(candidate) + 1);
      assessment = stats::assess(samples(candidate), samples(good_candidate), samples(bad_candidate), policy);
    }
    // Intermediate against anchor runs made minutes ago is also what drift looks like: replicate it in
    // rounds beside fresh anchor runs, judged against those alone (stats/replicate.hpp).
    int replicated = 0;
    const bool is_anchor = candidate.hash == good_candidate.hash || candidate.hash == bad_candidate.hash;
    const auto before = replicated_by_hash.find(candidate.hash);
    const bool confirmed = before != replicated_by_hash.end() && before->second == Verdict::intermediate;
    if (!one_run && !pass_fail && !is_anchor && !confirmed && assessment.verdict == Verdict::intermediate) {
      const int from_candidate = seen_runs(candidate);
      const int from_good = seen_runs(good_candidate);
      const int from_bad = seen_runs(bad_candidate);
      const stats::SampleSet earlier_good = samples(good_candidate);
      const stats::SampleSet earlier_bad = samples(bad_candidate);
      auto since = [&](const Candidate& of, int from) {
        stats::SampleSet set = samples(of);
        set.samples.erase(set.samples.begin(), set.samples.begin() + std::min<std::ptrdiff_t>(from, set.samples.size()));
        return set;
      };
      assessment = stats::replicate_intermediate(
          [&] {
            see(candidate, seen_runs(candidate) + 1);
            measure_anchors(anchor_runs + 1);
            return stats::Rounds{since(candidate, from_candidate), since(good_candidate, from_good),
                                 since(bad_candidate, from_bad)};
          },
          policy, &replicated, &earlier_good, &earlier_bad);
      replicated_by_hash[candidate.hash] = assessment.verdict;
    }
    ++decisions;
    std::vector<double> metrics = samples(candidate).metrics();
    const double cv = stats::coefficient_of_variation(metrics);
    const bool noisy = !one_run && cv > stats::k_noisy_cv;
    json decision = {{"type", "decision"}, {"n", decisions}, {"stage", stage}, {"label", label},
                     {"applied", candidate.applied}, {"candidate", candidate.hash},
                     {"verdict", to_string(assessment.verdict)}, {"runs", seen_runs(candidate)},
                     {"median", stats::median(metrics)}, {"reason", assessment.reason},
                     {"p_vs_good", assessment.p_vs_good}, {"p_vs_bad", assessment.p_vs_bad},
                     {"position", assessment.position}, {"different_failure", assessment.different_failure},
                     {"checksum_mismatch", assessment.checksum_mismatch}, {"cv", cv}, {"noisy", noisy}};
    if (replicated > 0) {
      decision["replicated_rounds"] = replicated;  // first intermediate on pooled anchors, then this
    }
    journal.append(decision);
    verdict_log.push_back(decision);
    progress.decision(decisions, std::string(to_string(assessment.verdict)), label, seen_runs(candidate));
    std::cout << "  " << to_string(assessment.verdict) << "  " << label << "  (" << seen_runs(candidate)
              << (seen_runs(candidate) == 1 ? " run" : " runs");
    if (options.explain) {
      std::cout << ": " << assessment.reason;
    }
    std::cout << ")";
    if (noisy) {
      std::cout << "  noisy: CV " << std::lround(cv * 1000) / 10.0 << " % > " << stats::k_noisy_cv * 100 << " %";
    }
    std::cout << "\n" << std::flush;
    if (!one_run && decisions % k_anchor_refresh == 0 && anchor_runs < policy.max_anchor_runs) {
      measure_anchors(anchor_runs + 1);
    }
    return assessment.verdict;
  };
  // The search moves units: single deltas, or packages pinned to each other, which move together.
  auto expand = [&](const DeltaSet& unit_set) {
    DeltaSet applied;
    for (std::size_t unit : unit_set) {
      applied.insert(applied.end(), units[unit].begin(), units[unit].end());
    }
    std::sort(applied.begin(), applied.end());
    return applied;
  };
  Oracle oracle = [&](const DeltaSet& unit_set) {
    DeltaSet applied = expand(unit_set);
    return decide(evaluator.candidate(applied), "isolate", describe_set(deltas, applied));
  };
  // Why texts and notes name the differences, not unit numbers: "{packages/fauxtorch, caches/inductor}".
  IsolateOptions isolate_options;
  isolate_options.describe = [&](const DeltaSet& unit_set) {
    std::vector<std::string> names;
    for (std::size_t unit : unit_set) {
      std::vector<std::string> members;
      for (std::size_t index : units[unit]) {
        members.push_back(std::string(to_string(deltas[index].dimension)) + "/" + deltas[index].name);
      }
      names.push_back(join(members, "+"));
    }
    return "{" + join(names, ", ") + "}";
  };
  // With k slots each bisection step's k sets get their first runs side by side, then are decided.
  isolate_options.slots = static_cast<std::size_t>(options.execution.slots);
  isolate_options.prefetch = [&](const std::vector<DeltaSet>& unit_sets) {
    std::vector<Candidate> batch;
    for (const DeltaSet& unit_set : unit_sets) {
      batch.push_back(evaluator.candidate(expand(unit_set)));
    }
    evaluator.measure_all(batch, policy.min_runs, options.execution.slots);
  };
  // Before an answer is trusted, what it rests on is measured again: more runs of each cause, of each
  // cause without one member, and of bad minus the causes (one more run each for a pass/fail test).
  isolate_options.recheck = [&](const DeltaSet& unit_set) {
    const Candidate candidate = evaluator.candidate(expand(unit_set));
    const int more = one_run ? 1 : policy.min_runs;
    see(candidate, seen_runs(candidate) + more);
    return decide(candidate, "recheck", describe_set(deltas, candidate.applied));
  };
  Isolation isolation = isolate(units.size(), oracle, isolate_options);
  if (fell_back) {
    // What the search concluded rests partly on one-run verdicts: ask every question again.
    isolation = isolate(units.size(), oracle, isolate_options);
  }
  // The anchors were re-measured during the search, and a bad anchor that is only sometimes slow may
  // show it late: every verdict is judged again on all anchor runs (replicated ones excepted: they
  // were judged beside their own anchor runs). Where one no longer holds, the search asks its
  // questions again, keeping every run; undecided candidates get more.
  for (int pass = 0; pass < 2 && !one_run; ++pass) {
    std::string stale;
    for (const SearchStep& step : isolation.steps) {
      const Candidate candidate = evaluator.candidate(expand(step.applied));
      if (step.assumed || replicated_by_hash.count(candidate.hash) > 0) {
        continue;
      }
      const stats::Assessment again =
          stats::assess(samples(candidate), samples(good_candidate), samples(bad_candidate), policy);
      if (!again.decided || again.verdict != step.verdict) {
        stale = describe_set(deltas, candidate.applied) + " (" + std::string(to_string(step.verdict)) + ", now " +
                (again.decided ? std::string(to_string(again.verdict)) : std::string("undecided")) + ")";
        break;
      }
    }
    if (stale.empty()) {
      break;
    }
    std::cout << "judged on all " << anchor_runs << " runs of each anchor, the verdict on " << stale
              << " no longer holds: the search asks its questions again\n";
    journal.append({{"type", "rejudge"}, {"stale", stale}, {"anchor_runs", anchor_runs}});
    isolation = isolate(units.size(), oracle, isolate_options);
  }
  // From here on, every set names deltas again.
  isolation.cause = expand(isolation.cause);
  for (DeltaSet& cause : isolation.causes) {
    cause = expand(cause);
  }
  for (SearchStep& step : isolation.steps) {
    step.applied = expand(step.applied);
  }
  for (DeltaSet& set : isolation.could_be) {
    set = expand(set);
  }
  if (options.explain) {
    std::cout << "why each candidate was chosen:\n";
    for (const SearchStep& step : isolation.steps) {
      std::cout << "  " << (step.assumed ? "(anchor) " : "") << step.why << " -> " << to_string(step.verdict) << "\n";
    }
  }
  // At this point the minimal cause is known (or the search said why not).

  // Refine each culprit inside its ordered axis, the other culprits held at their bad values; then probe
  // where it bites: thread counts, with the caches as the cause has them and flipped.
  EnvState cause_state = apply_deltas(good, bad, deltas, isolation.cause);
  DecideCandidate decide_candidate = decide;
  StageContext stages{deltas, evaluator, journal, decide_candidate, verdict_log, options.execution.slots,
                      policy.min_runs};
  json refinements = isolation.found ? refine_cause(stages, axes, isolation.cause, cause_state) : json::array();
  json probes = isolation.found && !options.no_probe && !one_run
                   ? probe_modifiers(stages, isolation.cause, cause_state)
                   : json::array();
  // One run per candidate is trusted only once the two candidates the answer rests on say the same again.
  json boundary;
  if (one_run && isolation.found) {
    RerunCandidate rerun = [&](const Candidate& candidate, const std::string& label) {
      see(candidate, seen_runs(candidate) + 1);
      return decide(candidate, "verify", label);
    };
    boundary = verify_boundary(stages, axes, isolation, refinements, cause_state, rerun);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The anchors were re-measured during the search: judge them again on all their runs before any
  // cause is reported. If they no longer differ, every verdict above compared against noise.
  const stats::Preflight final_anchors = judge_anchors(one_run);
  const bool retracted = !final_anchors.distinguishable;
  // The effect people quote: the cause's runs (good + cause) against the good anchor's, else the bad
  // anchor's; a Hodges-Lehmann ratio with the exact Mann-Whitney 95 % interval (stats/effect.hpp).
  json effect;
  if (!one_run) {
    const Candidate cause_candidate = evaluator.candidate(isolation.cause);
    const bool of_cause = isolation.found && !samples(cause_candidate).metrics().empty();
    const std::vector<double> from = samples(good_candidate).metrics();
    const std::vector<double> to = samples(of_cause ? cause_candidate : bad_candidate).metrics();
    if (const std::optional<stats::RatioEffect> ratio = stats::ratio_effect(from, to)) {
      effect = {{"of", of_cause ? "cause" : "anchors"}, {"ratio", ratio->ratio},
                {"low", ratio->low ? json(*ratio->low) : json(nullptr)},
                {"high", ratio->high ? json(*ratio->high) : json(nullptr)}, {"confidence", ratio->confidence},
                {"from_runs", ratio->from_runs}, {"to_runs", ratio->to_runs},
                {"method", "Hodges-Lehmann ratio on the log scale, exact Mann-Whitney interval"},
                {"words", stats::comparison_words(1.0, ratio->ratio, recipe.higher_is_better, recipe.unit)}};
    }
  }

  // Write the result, then the summary.
  json result = {{"found", isolation.found}, {"cause", json::array()}, {"causes", json::array()},
                 {"evaluations", isolation.evaluations}, {"attempts_run", evaluator.attempts_run()},
                 {"attempts_reused", evaluator.attempts_reused()}, {"seconds", seconds},
                 {"verified", {{"forward", isolation.verified_forward}, {"reverse", isolation.verified_reverse}}},
                 {"note", isolation.note}, {"metric", recipe.metric},
                 {"anchors", preflight_to_json(preflight)}, {"anchor_runs", anchor_runs},
                 {"steps", json::array()}, {"refinements", refinements}, {"probes", probes}};
  for (std::size_t index : isolation.cause) {
    result["cause"].push_back(delta_to_json(deltas[index]));
  }
  // Refining inside an axis that ended boxed in leaves the answer open as well.
  bool refinements_resolved = true;
  for (const json& refinement : refinements) {
    refinements_resolved = refinements_resolved && refinement.value("found", false);
  }
  const bool verified = isolation.found && isolation.verified_forward && isolation.verified_reverse;
  const bool boundary_ok = boundary.is_null() || boundary.value("ok", false);
  result["outcome"] = isolation.outcome == IsolationOutcome::not_found ? "not_found"
                      : isolation.outcome == IsolationOutcome::ambiguous || !refinements_resolved ? "ambiguous"
                      : verified && boundary_ok ? "found"
                                                : "not_verified";
  result["mode"] = one_run ? "pass-fail" : "metric";
  result["unit"] = recipe.unit;
  result["decisions"] = decisions;
  if (!effect.is_null()) {
    result["effect"] = effect;
  }
  if (!boundary.is_null()) {
    result["boundary_rerun"] = boundary;
  }
  result["rereads_anchors"] = isolation.forward_is_anchor;  // "verified" then only re-read the anchors
  result["could_be"] = json::array();
  for (const DeltaSet& set : isolation.could_be) {
    json items = json::array();
    for (std::size_t index : set) {
      items.push_back(delta_to_json(deltas[index]));
    }
    result["could_be"].push_back(items);
  }
  result["settle"] = isolation.settle;
  if (retracted) {
    result["outcome"] = "retracted";
    result["final_anchors"] = preflight_to_json(final_anchors);
  }
  result["found"] = result["outcome"] == "found";
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
  for (const json& decision : verdict_log) {
    if (decision.value("checksum_mismatch", false)) {
      result["checksum_mismatches"].push_back(decision["applied"]);
    }
    if (decision.value("different_failure", false)) {
      result["different_failures"].push_back(decision["applied"]);
    }
  }
  if (mode == Mode::replay) {
    journal.append({{"type", "result"}, {"result", result}});
    return compare_replay(previous, verdict_log, result, run_dir);
  }
  write_file_atomic(run_dir + "/result.json", result.dump(2) + "\n");
  journal.append({{"type", "result"}, {"result", result}});
  // The postmortem is rendered from the journal alone, so `envbisect report` gives the same bytes.
  write_reports(run_dir);

  muted.restore();  // the result is what -q prints
  if (retracted) {
    std::cout << "retracted: on all " << seen_runs(good_candidate)
              << " runs of each anchor they no longer differ (" << final_anchors.message
              << "); no cause is reported\n";
  } else {
    print_outcome(std::cout, deltas, isolation, refinements, probes);
    if (!boundary.is_null() && boundary_ok) {
      std::cout << "verified: the last good and the first bad candidate gave the same answers on a second run\n";
    }
    if (!boundary_ok) {
      std::cout << "NOT verified: a boundary candidate gave a different answer on its second run (the test is not "
                   "deterministic there); see the verify lines above\n";
    }
  }
  if (!effect.is_null() && !retracted) {
    char interval[96] = "no 95 % interval: too few runs";
    if (!effect["low"].is_null()) {
      std::snprintf(interval, sizeof interval, "95 %% CI %.3g-%.3g", effect["low"].get<double>(),
                    effect["high"].get<double>());
    }
    std::cout << "effect of the " << effect["of"].get<std::string>() << ": " << recipe.metric << " x"
              << stats::human_number(effect["ratio"].get<double>()) << " (" << interval << "; "
              << effect["method"].get<std::string>() << ", " << effect["from_runs"] << " vs " << effect["to_runs"]
              << " runs): " << effect["words"].get<std::string>() << "\n";
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.0f s", seconds);
  // Counters that count what they say: decided candidates of every stage, runs made in this session.
  std::cout << "decided " << decisions << (decisions == 1 ? " candidate" : " candidates") << " ("
            << isolation.evaluations << " while isolating), " << evaluator.attempts_run()
            << (evaluator.attempts_run() == 1 ? " benchmark run" : " benchmark runs") << " ("
            << evaluator.attempts_reused() << " reused from the journal), " << elapsed << "\n"
            << "result: " << run_dir << "/result.json, report: " << run_dir << "/report.html\n";
  // Exit 0 only for a verified cause whose refinements all ended on one first bad point.
  if (retracted) {
    return ExitCode::indistinct;
  }
  return result["outcome"] == "found" ? ExitCode::ok : ExitCode::inconclusive;
}

ExitCode run_run(const RunOptions& options) {
  RunOptions resolved = options;
  if (resolved.out_dir.empty()) {
    resolved.out_dir = default_run_dir();
  }
  if (const std::optional<std::string> holder = run_dir_holder(resolved.out_dir)) {
    throw Error(run_dir_busy_message(resolved.out_dir, *holder), ExitCode::environment);
  }
  if (path_exists(resolved.out_dir + "/journal.jsonl")) {
    throw Error(resolved.out_dir + ": already holds a run; use `envbisect resume " + resolved.out_dir +
                    "` or choose another --out",
                ExitCode::bad_input);
  }
  return execute(resolved, {}, Mode::run, nullptr);
}

}  // namespace envbisect
