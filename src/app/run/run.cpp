#include "app/run/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/measure/diagnosis.hpp"
#include "app/measure/evaluate.hpp"
#include "app/measure/progress.hpp"
#include "app/measure/host_context.hpp"
#include "app/run/plan/estimate.hpp"
#include "app/inputs/load.hpp"
#include "app/remote/remote_build.hpp"
#include "app/inputs/restore_check.hpp"
#include "app/run/execute.hpp"
#include "app/run/guard.hpp"
#include "app/run/decide/hold.hpp"
#include "app/run/decide/judge.hpp"
#include "app/run/decide/preflight.hpp"
#include "app/run/plan/budget.hpp"
#include "app/run/plan/plan.hpp"
#include "app/run/plan/units.hpp"
#include "app/run/refine/after_cause.hpp"
#include "app/run/result.hpp"
#include "app/run/refine/stages.hpp"
#include "core/delta.hpp"
#include "env/store.hpp"
#include "env/store_lock.hpp"
#include "exec/attempt_cgroup.hpp"
#include "exec/runner.hpp"
#include "exec/staging.hpp"
#include "report/delta_table.hpp"
#include "report/load.hpp"
#include "app/run/plan/axes.hpp"
#include "search/bisect.hpp"
#include "search/isolate.hpp"
#include "search/kary.hpp"
#include "stats/effect.hpp"
#include "stats/pass_fail.hpp"
#include "stats/quantity.hpp"
#include "stats/verdict.hpp"
#include "store/journal.hpp"
#include "store/run_folder.hpp"
#include "store/run_lock.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "util/words.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

std::string default_run_dir() {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  return std::string("runs/") + stamp;
}

// Return whether the candidate was measured again after its first verdict, up to the good anchor's
// run count at the preflight (Judge::preflight_good_runs(), the count the hold asks for): a search asked again on
// statistics (one-run verdicts that disagreed) meets candidates whose first verdict came at one run
// and which the hold then ran until they had passed that many runs. Those later runs are the
// re-measurement a re-check asks for; three more would ask the same question a third time (run15:
// "bad minus the cause" went from 6 runs to 9, 31 s).
bool remeasured_since_first_verdict(Judge& judge, const Candidate& candidate) {
  for (const json& decision : judge.verdict_log()) {
    if (decision.value("candidate", std::string()) == candidate.hash) {
      const int first = decision.value("runs", 0);
      const int now = judge.seen_runs(candidate);
      return now > first && now >= judge.preflight_good_runs();
    }
  }
  return false;
}

// Isolate the minimal cause among `units` (single deltas, or packages pinned to each other, which
// move together), each question a candidate the judge decides; return the isolation with every set
// naming deltas again.
Isolation search_cause(Judge& judge, Evaluator& evaluator, const std::vector<Delta>& deltas,
                       const std::vector<std::vector<std::size_t>>& units, const RunOptions& options, int min_runs) {
  auto expand = [&](const DeltaSet& unit_set) {
    DeltaSet applied;
    for (std::size_t unit : unit_set) {
      applied.insert(applied.end(), units[unit].begin(), units[unit].end());
    }
    std::sort(applied.begin(), applied.end());
    return applied;
  };
  // Questions answered skip because the budget was spent: no step of the answer.
  std::vector<DeltaSet> unanswered;
  // A search begun on one-run verdicts is asked again from the start once one-run mode ends (runs that
  // disagreed): what it asks after that point only finishes an answer that is thrown away. Those
  // questions are answered skip, unmeasured (a re-check of that answer on failure rates cost 10 to 21
  // runs a candidate, for candidates the search asked again did not ask).
  bool first_search_one_run = judge.one_run();
  const auto abandoned = [&] { return first_search_one_run && !judge.one_run(); };
  Oracle oracle = [&](const DeltaSet& unit_set) {
    if (abandoned()) {
      return Verdict::skip;
    }
    DeltaSet applied = expand(unit_set);
    const Verdict verdict = judge.decide(evaluator.candidate(applied), "isolate", describe_set(deltas, applied));
    if (judge.budget_spent() && verdict == Verdict::skip) {
      unanswered.push_back(unit_set);
    }
    return verdict;
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
  // Bad without an added package may still need a removed one back (a rename): revert those first.
  isolate_options.partners = [&](const DeltaSet& unit_set) { return rename_partners(deltas, units, unit_set); };
  // On failure rates a good verdict takes many clean runs and a bad one a few failures: the informed
  // search asks "bad minus the needed delta" first, which is also the reverse check of a one-delta cause.
  isolate_options.complement_first = [&judge] { return judge.rate_mode() && !judge.one_run(); };
  // With k slots each bisection step's k sets get their first runs side by side, then are decided.
  isolate_options.slots = static_cast<std::size_t>(options.execution.slots);
  isolate_options.prefetch = [&](const std::vector<DeltaSet>& unit_sets) {
    if (abandoned()) {
      return;
    }
    std::vector<Candidate> batch;
    for (const DeltaSet& unit_set : unit_sets) {
      batch.push_back(evaluator.candidate(expand(unit_set)));
    }
    // Side by side they take about one run's time per round of slots.
    const int rounds = (static_cast<int>(batch.size()) + options.execution.slots - 1) / options.execution.slots;
    if (batch.empty() || judge.stop_reached() || !judge.budget().fits(rounds * min_runs * evaluator.mean_run_seconds())) {
      return;  // decide() stops at the budget, one candidate at a time
    }
    evaluator.measure_all(batch, min_runs, options.execution.slots);
  };
  // Before an answer is trusted, what it rests on is measured again: more runs of each cause, of each
  // cause without one member, and of bad minus the causes (one more run each for a pass/fail test).
  isolate_options.recheck = [&](const DeltaSet& unit_set) {
    if (abandoned()) {
      return Verdict::skip;
    }
    const Candidate candidate = evaluator.candidate(expand(unit_set));
    if (judge.replicated(candidate.hash)) {
      // Its verdict rests on its replication beside fresh anchor runs, which stands (Judge::decide).
      return judge.decide(candidate, "recheck", describe_set(deltas, candidate.applied));
    }
    // On failure rates the sequential test's verdict already stands on every run with its stated error:
    // a re-check asks it again on those runs, and it adds runs only where they are short.
    const int more = judge.rate_mode() ? 0 : judge.one_run() ? 1 : remeasured_since_first_verdict(judge, candidate) ? 0 : min_runs;
    if (more > 0 && !judge.see_affordable(candidate, judge.seen_runs(candidate) + more)) {
      unanswered.push_back(unit_set);
      return Verdict::skip;
    }
    return judge.decide(candidate, "recheck", describe_set(deltas, candidate.applied));
  };
  Isolation isolation = isolate(units.size(), oracle, isolate_options);
  // A one-run search that ends without an answer may rest on one run a race got wrong: runs of a
  // contradiction that disagree end one-run mode here, and the search is asked again below.
  if (isolation.outcome != IsolationOutcome::found) {
    rerun_contradictions(judge, evaluator, deltas, judge.preflight_good_runs());
  }
  if (abandoned()) {
    // What the search concluded rests partly on one-run verdicts: ask every question again.
    first_search_one_run = false;
    isolation = isolate(units.size(), oracle, isolate_options);
  }
  // The anchors were re-measured during the search, and a bad anchor that is only sometimes slow may
  // show it late: every verdict is judged again on all anchor runs (replicated ones excepted: they
  // were judged beside their own anchor runs). Where one no longer holds, the search asks its
  // questions again, keeping every run; undecided candidates get more.
  for (int pass = 0; pass < 2 && !judge.one_run() && !judge.stop_reached(); ++pass) {
    std::string stale;
    for (const SearchStep& step : isolation.steps) {
      const Candidate candidate = evaluator.candidate(expand(step.applied));
      if (step.assumed || step.verdict == Verdict::skip || judge.replicated(candidate.hash)) {
        continue;
      }
      const stats::Assessment again = judge.assess_now(candidate);
      if (!again.decided || again.verdict != step.verdict) {
        stale = describe_set(deltas, candidate.applied) + " (" + std::string(to_string(step.verdict)) + ", now " +
                (again.decided ? std::string(to_string(again.verdict)) : std::string("undecided")) + ")";
        break;
      }
    }
    if (stale.empty()) {
      break;
    }
    judge.note_stale(stale);
    isolation = isolate(units.size(), oracle, isolate_options);
  }
  // A question the budget left unanswered is no step of the answer.
  std::erase_if(isolation.steps, [&](const SearchStep& step) {
    const bool cut = !step.assumed && std::find(unanswered.begin(), unanswered.end(), step.applied) != unanswered.end();
    isolation.evaluations -= cut ? 1 : 0;
    return cut;
  });
  // From here on, every set names deltas again.
  isolation.cause = expand(isolation.cause);
  for (DeltaSet& cause : isolation.causes) {
    cause = expand(cause);
  }
  for (DeltaSet& coupled : isolation.coupled) {
    coupled = expand(coupled);
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
  return isolation;
}

// Take the run folder: make it, refuse a second process in it (`held` is the lock when the caller
// took it already) and a new run over an old one's journal. Return the folder's absolute path.
std::string take_run_dir(const RunOptions& options, const std::vector<json>& previous, Mode mode, const RunLock* held,
                         std::optional<RunLock>& own_lock) {
  make_dirs(options.out_dir);
  std::string run_dir = absolute_path(options.out_dir, ".");
  check_run_folder_trust(run_dir);  // a link planted in it would take the run's writes elsewhere
  // One process at a time in a run folder: a second `run --out` or a `resume` is refused, naming us.
  if (mode == Mode::run && held == nullptr) {
    own_lock.emplace(run_dir, "run");
    if (previous.empty() && path_exists(run_dir + "/journal.jsonl")) {
      throw Error(options.out_dir + ": already holds a run; use `envbisect resume " + options.out_dir +
                      "` or choose another --out",
                  ExitCode::bad_input);
    }
  }
  return run_dir;
}

// The journal's first record of a session: the run's options, the version, the differences, and
// (when `host` is given: a run, not a replay) the machine as it was: load, clocks and free memory
// explain a slow or noisy run later.
json start_record(const json& run_doc, const std::vector<Delta>& deltas, const std::vector<json>& previous,
                  Runner* host, const std::string& run_dir) {
  json start = {{"type", "start"}, {"run", run_doc}, {"version", ENVBISECT_VERSION}, {"deltas", json::array()},
                {"resumed", !previous.empty()}};
  for (const Delta& delta : deltas) {
    start["deltas"].push_back(delta_to_json(delta));
  }
  if (host != nullptr) {
    start["host"] = host_context(*host, run_dir);
    start["containment"] = describe_attempt_containment();  // what ends all a local attempt started
  }
  return start;
}

// Return the effect of the cause (its runs against the good anchor's), else of the bad anchor.
// A regression that shows as failures gets their counts too ("failures": from, from_runs, to, to_runs):
// the metric of the runs that finished says nothing of those that did not.
json effect_of(Judge& judge, const Evaluator& evaluator, const Isolation& isolation, const Recipe& recipe) {
  const Candidate cause_candidate = evaluator.candidate(isolation.cause);
  const bool of_cause = isolation.found && !judge.samples(cause_candidate).metrics().empty();
  json effect = cause_effect(judge.samples(judge.good()).metrics(),
                             judge.samples(of_cause ? cause_candidate : judge.bad()).metrics(),
                             of_cause ? EffectOf::cause : EffectOf::anchors, recipe);
  const bool cause_ran = isolation.found && judge.samples(cause_candidate).size() > 0;
  const stats::SampleSet& from = judge.samples(judge.good());
  const stats::SampleSet& to = judge.samples(cause_ran ? cause_candidate : judge.bad());
  if (to.size() > 0 && from.size() > 0 && to.failure_count() * from.size() > from.failure_count() * to.size()) {
    if (effect.is_null()) {
      effect = {{"of", cause_ran ? "cause" : "anchors"}};
    }
    effect["failures"] = {{"from", from.failure_count()}, {"from_runs", from.size()}, {"to", to.failure_count()},
                          {"to_runs", to.size()}};
  }
  return effect;
}

// Return what a run stopped by its budget has left: the worst case still ahead (decisions not made
// yet at their first runs, at the mean run time so far) and a resume command with room for it.
json budget_left(const Judge& judge, const Evaluator& evaluator, const PlannedRun& plan, const RunOptions& options,
                 double seconds) {
  const int worst = worst_case_decisions(plan.axes, plan.units.size());
  int left = worst - judge.decisions();
  // A search that asks its questions again (runs that disagreed in one-run mode, verdicts that went
  // stale) may need a whole pass more, whatever was decided before: never "0 more" when it stopped.
  if (left < 1 || judge.fell_back()) {
    left = std::max(left, worst);
  }
  const double left_s = left * plan.policy.min_runs * evaluator.mean_run_seconds();
  const long minutes = static_cast<long>(std::ceil((left_s * 1.5 + 60) / 60));
  return {{"budget_s", options.budget_s}, {"spent_s", seconds}, {"decisions", judge.decisions()},
          {"worst_case_left", {{"decisions", left}, {"runs", left * plan.policy.min_runs}, {"seconds", left_s}}},
          {"resume", "envbisect resume " + options.out_dir + " --budget " + std::to_string(minutes) + "m"}};
}

}  // namespace

// Where a run's result goes: its mode, the earlier session's journal (a replay compares with it), the
// run folder, the journal, stdout as muted by -q, and whether the budget stopped the run before any probe.
struct FinishAt {
  Mode mode;
  const std::vector<json>& previous;
  const std::string& run_dir;
  Journal& journal;
  MutedStdout& muted;
  bool stopped_before_probes = false;
};

// Judge the anchors on all their runs, as finish_run() does before any cause is reported. Where they
// are not told apart at this look but more runs would (a race's bad anchor, topped up by the rate
// decisions, failed 14 of 28 runs against the good anchor's 0 of 7), a found cause is not withdrawn
// for want of runs: the anchor with fewer runs runs once more (both where they have as many), to the
// preflight's cap and within the budget, until the look tells them apart or says more would not.
stats::Preflight judge_anchors_on_all_runs(Judge& judge, const Isolation& isolation) {
  const AnchorTest test = judge.one_run() ? AnchorTest::exit_status : AnchorTest::statistics;
  stats::Preflight anchors = judge.judge_anchors(test);
  bool said = false;
  while (test == AnchorTest::statistics && isolation.found && !anchors.distinguishable && anchors.more_runs_would_help &&
         std::min(judge.seen_runs(judge.good()), judge.seen_runs(judge.bad())) < judge.policy().max_anchor_runs &&
         !judge.stop_reached()) {
    if (!said) {
      std::cout << "anchors on all their runs: " << anchors.message
                << "; more runs would tell: the anchor with fewer runs runs again\n";
      said = true;
    }
    const int good_runs = judge.seen_runs(judge.good());
    const int bad_runs = judge.seen_runs(judge.bad());
    if ((good_runs <= bad_runs && !judge.see_affordable(judge.good(), good_runs + 1)) ||
        (bad_runs <= good_runs && !judge.see_affordable(judge.bad(), bad_runs + 1))) {
      break;
    }
    anchors = judge.judge_anchors(test);
  }
  return anchors;
}

// Judge the anchors on all their runs, size the effect, and write the result (result.json, journal,
// reports) and the summary; a replay compares instead. Return the exit code.
ExitCode finish_run(Judge& judge, Evaluator& evaluator, const PlannedRun& plan, const RunOptions& options,
                    const Isolation& isolation, const AfterIsolation& after, const stats::Preflight& preflight,
                    std::chrono::steady_clock::time_point started, const FinishAt& at) {
  // The anchors were re-measured during the search: judge them again on all their runs before any
  // cause is reported. If they no longer differ, every verdict above compared against noise.
  const stats::Preflight final_anchors = judge_anchors_on_all_runs(judge, isolation);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The effect people quote: the cause's runs (good + cause) against the good anchor's, else the bad
  // anchor's (stats/effect.hpp).
  json effect = effect_of(judge, evaluator, isolation, plan.recipe);
  if (judge.one_run() && !effect.is_null()) {
    // One run per candidate: the failures are the result; a metric of so few runs is no effect size.
    effect = effect.contains("failures") ? json{{"of", effect["of"]}, {"failures", effect["failures"]}} : json();
  }
  // Past the budget: what is known, and what would settle it.
  const json budget = at.stopped_before_probes ? budget_left(judge, evaluator, plan, options, seconds) : json();
  // Write the result, then the summary.
  const Findings findings{plan.deltas, plan.recipe, isolation, after.refinements, after.probes, after.boundary, effect, preflight, final_anchors,
                          judge.verdict_log(), judge.one_run(), judge.anchor_runs(), judge.decisions(),
                          evaluator.attempts_run(), evaluator.attempts_reused(), seconds, budget,
                          judge.rate_mode()};
  const json result = result_json(findings);
  if (at.mode == Mode::replay) {
    at.journal.append({{"type", "result"}, {"result", result}});
    return compare_replay(at.previous, judge.verdict_log(), result, at.run_dir);
  }
  write_file_atomic(at.run_dir + "/result.json", result_file_text(result));
  at.journal.append({{"type", "result"}, {"result", result}});
  // The postmortem is rendered from the journal alone, so `envbisect report` gives the same bytes.
  const std::optional<report::Answer> answer = report::write_reports(at.run_dir);

  at.muted.restore();  // the result is what -q prints
  // Noise and load as the report words them, one line each.
  print_summary(std::cout, findings, result, at.run_dir, answer ? caveat_lines(*answer) : std::vector<std::string>());
  // Exit 0 only for a verified cause whose refinements all ended on one first bad point.
  if (result["outcome"] == "retracted") {
    return ExitCode::indistinct;
  }
  return result["outcome"] == "found" ? ExitCode::ok : ExitCode::inconclusive;
}

// Write a verified cause before any probe: result.json (probes still to come), a "cause" record in
// the journal, and one line on the terminal. Nothing when the cause is not (yet) verified, or in a
// replay (its result is compared, not written).
void write_cause_first(Judge& judge, const Evaluator& evaluator, const PlannedRun& plan, const Isolation& isolation,
                       const AfterIsolation& after, const stats::Preflight& preflight,
                       std::chrono::steady_clock::time_point started, Mode mode, const std::string& run_dir,
                       Journal& journal) {
  if (mode == Mode::replay || !isolation.found || judge.budget_spent()) {
    return;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const Findings findings{plan.deltas, plan.recipe, isolation, after.refinements, json::array(), after.boundary,
                          effect_of(judge, evaluator, isolation, plan.recipe), preflight,
                          judge.judge_anchors(judge.one_run() ? AnchorTest::exit_status : AnchorTest::statistics),
                          judge.verdict_log(), judge.one_run(), judge.anchor_runs(), judge.decisions(),
                          evaluator.attempts_run(), evaluator.attempts_reused(), seconds, json(), judge.rate_mode()};
  json result = result_json(findings);
  if (result["outcome"] != "found") {
    return;
  }
  result["probes_pending"] = true;
  write_file_atomic(run_dir + "/result.json", result_file_text(result));
  journal.append({{"type", "verified_cause"}, {"deltas", result["cause"]}, {"seconds", seconds}, {"runs", evaluator.attempts_run()}});
  std::vector<std::string> names;
  for (const json& delta : result["cause"]) {
    names.push_back(delta["dimension"].get<std::string>() + "/" + delta["name"].get<std::string>());
  }
  // Every difference as the cause: its two checks are the anchors re-read, so it is found, not verified.
  const bool rereads = result.value("rereads_anchors", false);
  std::cout << (rereads ? "cause found after " : "verified cause after ") << std::lround(seconds) << " s: {"
            << join(names, ", ") << "}"
            << (rereads ? " (every difference: its checks re-read the anchors)" : "")
            << " (written to result.json before any probe)\n"
            << std::flush;
}

ExitCode execute(RunOptions options, const std::vector<json>& previous, Mode mode, const RunLock* held,
                 Runner* machine) {
  // Validate every input first; nothing is written before this passes.
  PlannedRun plan = plan_run(options);
  const EnvState& good = plan.good;
  const EnvState& bad = plan.bad;
  const Recipe& recipe = plan.recipe;
  const std::vector<Delta>& deltas = plan.deltas;
  const bool pass_fail = plan.pass_fail;
  const stats::VerdictPolicy& policy = plan.policy;
  const std::vector<Axis>& axes = plan.axes;
  const std::vector<std::vector<std::size_t>>& units = plan.units;
  // At this point every input is valid.
  if (options.dry_run) {
    print_restore_plan(plan.restore.plan, std::cout);
    print_plan(plan);
    print_time_estimate(std::cout, axes, units.size(), policy, options.run_seconds, options.budget_s);
    return ExitCode::ok;
  }

  // The executor first: a bad option is refused before anything is written.
  Execution execution = make_execution(execution_for(options, recipe, good, bad));
  Runner& spawner = machine != nullptr ? *machine : *execution.runner;

  // Record the run so `resume` can continue it.
  std::optional<RunLock> own_lock;
  const std::string run_dir = take_run_dir(options, previous, mode, held, own_lock);
  std::vector<std::string> wheel_dirs;
  for (const std::string& dir : options.wheel_dirs) {
    wheel_dirs.push_back(absolute_path(dir, "."));
  }
  const json run_doc = run_document(options, plan.restore, wheel_dirs);
  if (previous.empty()) {
    write_file_atomic(run_dir + "/run.json", run_doc.dump(2) + "\n");
  }
  // A replay writes its own journal beside the original, which it never touches.
  std::string journal_path = mode != Mode::replay          ? run_dir + "/journal.jsonl"
                             : options.replay_journal.empty() ? run_dir + "/replay.jsonl"
                                                              : options.replay_journal;
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
    recording.emplace(spawner, run_dir, static_cast<std::uint64_t>(options.max_log_mb) << 20);
    if (options.builder == "store" && execution.staging == nullptr) {
      // `store gc` keeps the shared environments while this is held.
      store_in_use.emplace(options.store_dir.empty() ? default_store_dir() : options.store_dir);
    }
  }
  Runner& runner = recording ? static_cast<Runner&>(*recording) : spawner;
  journal.append(start_record(run_doc, deltas, previous, mode == Mode::run ? &spawner : nullptr, run_dir));

  RunSetup setup{good, bad, deltas, recipe, sha256_hex(read_file(options.recipe_path)), wheel_dirs, run_dir,
                 mode == Mode::replay ? MissingAttempt::refuse : MissingAttempt::run,
                 StoreOptions{options.store_dir, options.uv_caches},
                 options.builder == "installer" ? Builder::installer : Builder::store, options.index_url};
  // -q: only the result reaches stdout. Progress goes to stderr: a status line on a terminal, else lines.
  MutedStdout muted(options.quiet ? MuteStdout::yes : MuteStdout::no);
  const Verbosity verbosity = options.quiet ? Verbosity::quiet : options.verbose ? Verbosity::verbose : Verbosity::normal;
  Progress progress(std::cerr, mode == Mode::replay ? ProgressStyle::quiet : choose_progress_style(verbosity));
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

  DeltaSet all(deltas.size());
  std::iota(all.begin(), all.end(), 0);
  Judge judge(evaluator, journal, progress,
              JudgeOptions{policy, pass_fail, options.explain, options.execution.slots, options.budget_s,
                           options.stop_after_decisions},
              evaluator.candidate({}), evaluator.candidate(all));
  progress.label(judge.good().hash, "good anchor");
  progress.label(judge.bad().hash, "bad anchor");
  progress.expect(judge.good().hash, policy.anchor_runs);
  progress.expect(judge.bad().hash, policy.anchor_runs);
  progress.plan(worst_case_decisions(axes, units.size()), policy.min_runs);
  progress.unit(recipe.unit);
  progress.phase("anchors");
  preflight_anchors(judge, evaluator, journal, run_dir, mode, policy);

  // Search: every question becomes a candidate measured until its verdict is decided, and a journaled
  // decision. Every few decisions the anchors run once more, to catch drift on a shared machine.
  Isolation isolation = search_cause(judge, evaluator, deltas, units, options, policy.min_runs);
  // Whether the search ended on one-run verdicts (runs that disagreed during it made it search again
  // on statistics already, inside search_cause).
  const bool one_run_search = judge.one_run();
  // At this point the minimal cause is known (or the search said why not).

  // Refine each culprit inside its ordered axis, the other culprits held at their bad values, and
  // verify a one-run answer by running again what it rests on.
  EnvState cause_state = apply_deltas(good, bad, deltas, isolation.cause);
  DecideCandidate decide_candidate = [&](const Candidate& candidate, const std::string& stage,
                                         const std::string& label) { return judge.decide(candidate, stage, label); };
  StageContext stages{deltas, evaluator, journal, decide_candidate, judge.verdict_log(), options.execution.slots,
                      policy.min_runs, [&judge] { return judge.budget_spent() || judge.stop_reached(); }};
  // Anchors told apart by failures alone: "when it bites" is a failure rate per cell, and a thread
  // count in the cause is left to those probes (refined by single runs only without them).
  const ThreadCulprit threads =
      judge.rate_fallback() && !options.no_probe ? ThreadCulprit::leave_to_rate_probes : ThreadCulprit::refine;
  AfterIsolation after = verify_cause(judge, stages, axes, isolation, cause_state, threads, judge.preflight_good_runs());
  if (one_run_search && !judge.one_run() && !judge.budget_spent() && !judge.stop_reached()) {
    // The verification's own runs disagreed: the cause and its refinement rest on one-run verdicts.
    // Every question is asked again on failure rates or statistics, every run kept.
    isolation = search_cause(judge, evaluator, deltas, units, options, policy.min_runs);
    cause_state = apply_deltas(good, bad, deltas, isolation.cause);
    after = verify_cause(judge, stages, axes, isolation, cause_state, threads, judge.preflight_good_runs());
  }
  // An interaction on failure rates: each part alone is good at a stricter level before the cause is
  // written, or the search asks again (once) with the runs that showed a part carries the failure.
  std::vector<DeltaSet> unheld = parts_not_held_on_rates(judge, stages, isolation);
  if (!unheld.empty() && !judge.stop_reached()) {
    std::cout << "a part of the cause was not shown good: the search asks its questions again, every run kept\n";
    isolation = search_cause(judge, evaluator, deltas, units, options, policy.min_runs);
    cause_state = apply_deltas(good, bad, deltas, isolation.cause);
    after = verify_cause(judge, stages, axes, isolation, cause_state, threads, judge.preflight_good_runs());
    unheld = parts_not_held_on_rates(judge, stages, isolation);
  }
  if (!unheld.empty()) {
    // Asked twice (or stopped by the budget), an interaction whose parts are not shown good is no answer.
    undecided_interaction(isolation, unheld, deltas);
  }
  // Cause first: a verified cause is written before any probe spends what is left of the budget; a
  // budget the probes end is no stop of the run (they report what they measured).
  // The anchors' preflight as it stands now: provisional anchors may have been completed since.
  write_cause_first(judge, evaluator, plan, isolation, after, judge.anchors_preflight(), started, mode, run_dir, journal);
  const bool stopped_before_probes = judge.budget_spent();
  after.probes = probe_when_it_bites(judge, stages, isolation, cause_state, options, after);
  return finish_run(judge, evaluator, plan, options, isolation, after, judge.anchors_preflight(), started,
                    FinishAt{mode, previous, run_dir, journal, muted, stopped_before_probes});
}

ExitCode run_on(const RunOptions& options, Runner& machine) {
  return execute(options, {}, Mode::run, nullptr, &machine);
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
