#include "app/run/decide/preflight.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>

#include "app/measure/diagnosis.hpp"
#include "app/run/result.hpp"
#include "report/load.hpp"
#include "report/report_model.hpp"
#include "stats/effect.hpp"
#include "stats/pass_fail.hpp"
#include "store/journal.hpp"
#include "util/error.hpp"
#include "util/words.hpp"

namespace envbisect {

namespace {

// While every good run passes and every bad one fails, the anchors are told apart by the exact test on
// failures alone, and which anchor runs next is free: each next run goes where it lowers that test's p
// most per second of run time (a bad anchor that crashes after a cold compile costs twice a good run:
// 6 good and 4 bad runs reach the level of 5 and 5 sooner). Return true when the anchors reached the
// preflight's level so, still looking deterministic; false when a run broke the pattern (or an anchor
// reached its cap), and the anchors go on interleaved.
bool anchors_by_value(Judge& judge, Evaluator& evaluator, const stats::VerdictPolicy& policy) {
  const int cap = std::max({policy.anchor_runs, policy.max_anchor_runs, policy.max_failure_anchor_runs});
  for (;;) {
    const stats::SampleSet good = judge.samples(judge.good());
    const stats::SampleSet bad = judge.samples(judge.bad());
    if (!stats::all_pass_all_fail(good, bad)) {
      return false;
    }
    if (stats::looks_deterministic(good, bad, policy) && judge.judge_anchors(AnchorTest::statistics).distinguishable) {
      return true;
    }
    // Each anchor gets the runs it needs to look deterministic first, then the cheaper evidence.
    const std::size_t least = stats::least_runs_each(policy);
    const stats::AnchorSide side =
        good.size() < least ? stats::AnchorSide::good
        : bad.size() < least
            ? stats::AnchorSide::bad
            : stats::cheaper_anchor_evidence(good.size(), bad.size(), mean_wall_seconds(evaluator.attempts(judge.good())),
                                             mean_wall_seconds(evaluator.attempts(judge.bad())));
    const Candidate& next = side == stats::AnchorSide::good ? judge.good() : judge.bad();
    if (judge.seen_runs(next) >= cap) {
      return false;
    }
    judge.measure_one_anchor(next);
  }
}


// Bring the anchors to the preflight's level (the runs each needs, by value per second while they
// look like a pass/fail test, interleaved otherwise) and judge them on all their runs. Throw Error
// (indistinct) when they cannot be told apart, the reports written first. At the start of a run this
// also decides how candidates are judged; completing provisional anchors (`why`) only sets what a
// disagreement goes on with (the judge leaves one-run mode itself).
void complete_preflight(Judge& judge, Evaluator& evaluator, Journal& journal, const std::string& run_dir,
                                    Mode mode, const stats::VerdictPolicy& policy, std::optional<Completion> why) {
  const bool pass_fail = judge.declared_pass_fail();
  // With one slot, anchors that look like a pass/fail test run where their runs buy the most per second.
  const bool by_value = !pass_fail && judge.slots() == 1 && anchors_by_value(judge, evaluator, policy);
  if (!by_value) {
    judge.measure_anchors(policy.anchor_runs);
  }
  stats::Preflight preflight = judge.judge_anchors(pass_fail ? AnchorTest::exit_status : AnchorTest::statistics);
  // The preflight knows each channel's cap (failures may extend the anchors past the metric's).
  const auto until_told_apart = [&] {
    while (!pass_fail && !preflight.distinguishable && preflight.more_runs_would_help) {
      judge.measure_anchors(judge.anchor_runs() + 1);
      preflight = judge.judge_anchors(AnchorTest::statistics);
    }
  };
  until_told_apart();
  // Anchors close for their spread get more runs before the search leans on them; anchors that look
  // deterministic do not (one run per candidate follows, and runs that disagree later switch to
  // failure rates or statistics with every run kept).
  const bool deterministic = !pass_fail && preflight.distinguishable &&
                             stats::looks_deterministic(judge.samples(judge.good()), judge.samples(judge.bad()), policy);
  if (!pass_fail && !deterministic && preflight.distinguishable &&
      preflight.anchor_runs_wanted > judge.anchor_runs()) {
    judge.measure_anchors(preflight.anchor_runs_wanted);
    preflight = judge.judge_anchors(AnchorTest::statistics);
    // Those runs can undo the level (a bad anchor failing 5 of 7 runs fails 5 of 10 after three more
    // passes): the anchors go on to their caps as before, never refused short of them.
    until_told_apart();
  }
  const int anchor_runs = judge.anchor_runs();
  const int good_runs = judge.seen_runs(judge.good()), bad_runs = judge.seen_runs(judge.bad());
  journal.append({{"type", "preflight"}, {"anchor_runs", anchor_runs}, {"good_runs", good_runs},
                  {"bad_runs", bad_runs}, {"preflight", preflight_to_json(preflight)}});
  // "5 runs each, interleaved" (or pass/fail), else how the report words anchors run by value per second.
  const std::string how = good_runs != bad_runs ? report::anchor_runs_words(good_runs, bad_runs)
                          : std::to_string(anchor_runs) + (anchor_runs == 1 ? " run each" : " runs each") +
                                (pass_fail ? ", pass/fail" : ", interleaved");
  std::cout << "anchors (" << how << "): " << preflight.message << "\n";
  // Noisy anchors make every verdict need more runs, and a small effect invisible: say so (a warning:
  // stderr, after the line above).
  std::cout << std::flush;
  for (const auto& [name, cv] : {std::pair{"good", preflight.good_cv}, std::pair{"bad", preflight.bad_cv}}) {
    if (!pass_fail && cv > stats::k_noisy_cv) {
      std::cerr << "envbisect: warning: the " << name << " anchor's runs are noisy (CV " << std::lround(cv * 1000) / 10.0
                << " % > " << stats::k_noisy_cv * 100 << " %): verdicts need more runs and small effects can hide; "
                   "a quieter machine or a longer benchmark helps\n";
    }
  }
  std::cout << std::flush;
  if (!preflight.distinguishable) {
    if (mode == Mode::run) {
      report::write_reports(run_dir);
    }
    throw Error(preflight.message, ExitCode::indistinct);
  }
  // Anchors told apart by failures alone: runs that disagree later make failure rates decide.
  judge.set_fallback(!pass_fail && preflight.by_failure && !preflight.by_metric ? Fallback::failure_rates
                                                                                : Fallback::statistics);
  judge.set_anchors_preflight(preflight);
  if (why) {
    return;
  }
  // Anchors that pass every time and fail every time need no statistics: one run per candidate from
  // here on, as a pass/fail test, and the boundary re-run at the end. A candidate whose runs disagree,
  // or that fails unlike any bad anchor run, sends the run back to statistics (Judge).
  judge.set_runs_per_candidate(pass_fail || deterministic ? RunsPerCandidate::one : RunsPerCandidate::until_decided);
  if (!judge.one_run() && judge.rate_fallback()) {
    // A bad anchor that fails in some runs only, with nothing else to tell it from good: the failure is
    // the regression, and a candidate carrying it at a lower rate (a race on fewer threads) is still
    // bad, not a part of a cause. The sequential test on failure counts decides from the start.
    std::cout << "anchors differ only in failures, and bad fails in some runs: failure rates decide (a "
                 "sequential test, every run counts)\n";
    judge.start_rate_mode("anchors differ only in failures, bad fails in some runs");
  }
  if (judge.one_run() && !pass_fail) {
    std::cout << "anchors look deterministic (every good run passed, every bad run failed): one "
                 "run per candidate, the boundary re-run at the end\n";
    journal.append({{"type", "mode"}, {"mode", "pass-fail"}, {"why", "anchors look deterministic"}});
  }
}

}  // namespace

void preflight_anchors(Judge& judge, Evaluator& evaluator, Journal& journal, const std::string& run_dir, Mode mode,
                       const stats::VerdictPolicy& policy) {
  const bool pass_fail = judge.declared_pass_fail();
  // Two runs of each anchor show a mistake in the inputs (an anchor that cannot be built, a recipe
  // every run fails the same way) before the remaining anchor runs are spent on it.
  judge.measure_anchors(std::min(2, policy.anchor_runs));
  if (const std::optional<std::string> problem =
          anchors_input_error(evaluator.attempts(judge.good()), evaluator.attempts(judge.bad()))) {
    journal.append({{"type", "stopped"}, {"why", "input_error"}, {"message", *problem}});
    if (mode == Mode::run) {
      report::write_reports(run_dir);
    }
    throw Error(with_hint(*problem, anchors_input_hint(evaluator.attempts(judge.good()), evaluator.recipe_metric())),
                ExitCode::bad_input);
  }
  // Lazy anchors: where those runs already pass every time on good and fail every time on bad, the
  // test is taken as deterministic for now, as git bisect takes it, and the anchors get no more runs
  // unless a candidate's runs disagree (then they are brought to the preflight's level before any
  // statistics). The boundary's re-runs, pooled with the anchors', reach that level at the end
  // (verify_cause()), so a deterministic test costs git bisect's runs plus eight, not plus fifteen.
  if (!pass_fail && judge.slots() == 1 &&
      stats::all_pass_all_fail(judge.samples(judge.good()), judge.samples(judge.bad()))) {
    stats::Preflight preflight = judge.judge_anchors(AnchorTest::exit_status);
    // "good passed 2 of 2 runs, bad failed 2 of 2 (signature)", without the pass/fail run's ending.
    preflight.message = preflight.message.substr(0, preflight.message.rfind(": pass/fail")) +
                        ": taken as deterministic for now";
    const int runs = judge.anchor_runs();
    journal.append({{"type", "preflight"}, {"anchor_runs", runs}, {"good_runs", runs}, {"bad_runs", runs},
                    {"provisional", true}, {"preflight", preflight_to_json(preflight)}});
    std::cout << "anchors (" << runs << " runs each, interleaved): " << preflight.message << "\n"
              << "anchors look deterministic so far (every good run passed, every bad run failed): one run per "
                 "candidate; the boundary's re-runs bring each side of the answer to the evidence of more anchor "
                 "runs, and runs that disagree bring the anchors to the preflight's level first\n";
    judge.set_runs_per_candidate(RunsPerCandidate::one);
    // Every bad run failed, so none gave a metric: the anchors differ in failures alone, as the
    // preflight on more runs would find while they keep to the pattern.
    judge.set_fallback(Fallback::failure_rates);
    journal.append({{"type", "mode"}, {"mode", "pass-fail"}, {"why", "anchors look deterministic so far"}});
    judge.set_provisional_anchors(
        [&judge, &evaluator, &journal, run_dir, mode, policy](Completion why) {
          const char* because = why == Completion::after_disagreement  ? "runs disagreed"
                                : why == Completion::for_one_candidate ? "a failure unlike the bad anchor's"
                                : why == Completion::for_parts         ? "an interaction's parts are held to the anchors' failure counts"
                                                                       : "the probes measure failure rates against the anchors";
          std::cout << because << ": the anchors are brought to the preflight's level first\n";
          complete_preflight(judge, evaluator, journal, run_dir, mode, policy, why);
        },
        preflight);
    return;
  }
  complete_preflight(judge, evaluator, journal, run_dir, mode, policy, std::nullopt);
}

}  // namespace envbisect
