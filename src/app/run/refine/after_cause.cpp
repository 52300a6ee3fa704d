#include "app/run/refine/after_cause.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "app/run/decide/hold.hpp"
#include "app/run/refine/probes.hpp"
#include "app/run/refine/rate_probes.hpp"
#include "stats/anchors.hpp"
#include "stats/pass_fail.hpp"
#include "stats/rate.hpp"
#include "store/journal.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

// Return the axes to refine: all, or all but thread counts when the rate probes cover them.
std::vector<Axis> axes_to_refine(const std::vector<Axis>& axes, const std::vector<Delta>& deltas,
                                 ThreadCulprit threads) {
  std::vector<Axis> kept;
  for (const Axis& axis : axes) {
    if (threads == ThreadCulprit::refine || deltas[axis.delta].dimension != Dimension::threads) {
      kept.push_back(axis);
    }
  }
  return kept;
}

// How the parts of an interaction are held: the passes each must show at `level`, and the bad anchor
// runs that bar assumes. The bar rests on the low end of the bad anchor's failure rate, so a bad anchor
// with few runs (run by value per second) makes every part pass more: 18 passes a part at 1 % where
// bad failed 3 of 3, 13 where it failed 5 of 5. While the bad anchor has failed every run, one more of
// its runs is planned wherever it is expected to save more part runs than it costs.
struct PartsPlan {
  int passes = 0;         // what each part must pass, with the planned bad runs failing too
  int more_bad_runs = 0;  // bad anchor runs the plan assumes, run only once every part has passed
};

// Return the plan for `parts` parts, runs of each at least `good_runs` (nothing is measured).
PartsPlan plan_parts(Judge& judge, Evaluator& evaluator, std::size_t parts, double level, int good_runs) {
  const stats::SampleSet good = judge.samples(judge.good());
  const stats::SampleSet bad = judge.samples(judge.bad());
  PartsPlan plan;
  const double bad_seconds = mean_wall_seconds(evaluator.attempts(judge.bad()));
  for (;;) {
    const std::size_t runs = bad.size() + static_cast<std::size_t>(plan.more_bad_runs);
    const std::size_t failed = bad.failure_count() + static_cast<std::size_t>(plan.more_bad_runs);
    plan.passes = stats::passes_to_clear_part(good.failure_count(), good.size(), failed, runs, level, good_runs);
    if (parts == 0 || bad.failure_count() != bad.size()) {
      return plan;
    }
    const int after = stats::passes_to_clear_part(good.failure_count(), good.size(), failed + 1, runs + 1, level,
                                                  good_runs);
    const double saved = static_cast<double>(parts) * (plan.passes - after) * evaluator.mean_run_seconds();
    if (!(saved > bad_seconds)) {
      return plan;
    }
    ++plan.more_bad_runs;
  }
}

// One side of the answer: the anchor and every candidate the answer puts beside it.
struct Side {
  stats::SampleSet runs;  // every run of them
  std::size_t fixed = 0;  // runs whose side was set before they ran: all the anchor's, and each other
                          // candidate's runs after its first (that run put it on this side)
};

// Return the side of `anchor` and `candidates`, each candidate once.
Side side_of(Judge& judge, const Candidate& anchor, const std::vector<Candidate>& candidates) {
  Side side;
  side.runs = judge.samples(anchor);
  side.fixed = side.runs.size();
  std::vector<std::string> seen{anchor.hash};
  for (const Candidate& candidate : candidates) {
    if (std::find(seen.begin(), seen.end(), candidate.hash) != seen.end()) {
      continue;
    }
    seen.push_back(candidate.hash);
    const stats::SampleSet runs = judge.samples(candidate);
    side.runs.samples.insert(side.runs.samples.end(), runs.samples.begin(), runs.samples.end());
    side.fixed += runs.size() > 0 ? runs.size() - 1 : 0;
  }
  return side;
}

// With provisional anchors (taken as deterministic on their first two runs each), each side of the
// answer must show stats::least_runs_each() + 1 runs (4 by default) whose side was set before they
// ran, every good-side run passing and every bad-side run failing: the anchors' runs, and the re-runs
// of the candidates the answer calls good (the last good) or bad (the first bad). A candidate's first
// run chose its side, so it is no evidence that the test is deterministic. A test whose bad state
// fails in half its runs passes four such bad-side runs one time in sixteen, as it passes anchors run
// 6 + 4 by value per second. Further runs go to the answer's first good or first bad candidate, the
// short side first (both short: stats::cheaper_anchor_evidence). Return false when a run disagreed
// (one-run mode has ended then) or the budget stopped it; add the counts to `boundary`.
bool reach_pooled_level(Judge& judge, Evaluator& evaluator, const BoundarySides& sides, const RerunCandidate& rerun,
                        json& boundary) {
  const std::size_t floor = stats::least_runs_each(judge.policy()) + 1;
  const auto seconds = [&evaluator](const Candidate& candidate) { return mean_wall_seconds(evaluator.attempts(candidate)); };
  for (;;) {
    const Side good = side_of(judge, judge.good(), sides.good);
    const Side bad = side_of(judge, judge.bad(), sides.bad);
    const bool agree = stats::all_pass_all_fail(good.runs, bad.runs);
    const bool reached = agree && good.fixed >= floor && bad.fixed >= floor;
    if (reached || !agree || sides.good.empty() || sides.bad.empty()) {
      boundary["pooled"] = {{"good_runs", good.fixed}, {"bad_runs", bad.fixed}, {"each", floor}, {"reached", reached}};
      if (reached) {
        std::cout << "verify: " << good.fixed << " good-side runs passed and " << bad.fixed
                  << " bad-side runs failed whose side was set before they ran (the anchors' and the re-runs): the "
                     "test is taken as deterministic\n";
      }
      return reached;
    }
    const bool good_next = good.fixed < floor && (bad.fixed >= floor ||
                                                  stats::cheaper_anchor_evidence(good.fixed, bad.fixed, seconds(sides.good.front()),
                                                                                 seconds(sides.bad.front())) ==
                                                      stats::AnchorSide::good);
    const Candidate& candidate = good_next ? sides.good.front() : sides.bad.front();
    const std::string& label = good_next ? sides.good_labels.front() : sides.bad_labels.front();
    const Verdict verdict = rerun(candidate, label, judge.seen_runs(candidate) + 1);
    if (verdict != (good_next ? Verdict::good : Verdict::bad) || !judge.one_run()) {
      boundary["pooled"] = {{"good_runs", good.fixed}, {"bad_runs", bad.fixed}, {"each", floor}, {"reached", false}};
      return false;
    }
  }
}

}  // namespace

AfterIsolation verify_cause(Judge& judge, const StageContext& stages, const std::vector<Axis>& all_axes,
                            const Isolation& isolation, const EnvState& cause_state, ThreadCulprit threads,
                            int preflight_runs) {
  AfterIsolation after;
  if (!isolation.found || judge.budget_spent()) {
    return after;
  }
  const std::vector<Axis> axes = axes_to_refine(all_axes, stages.deltas, threads);
  if (!judge.one_run()) {
    after.hold_runs =
        good_runs_to_hold(judge, stages.journal, stages.evaluator.candidate(isolation.cause), preflight_runs);
    const DecideCandidate held = hold_good_verdicts(judge, after.hold_runs);
    const StageContext inside{stages.deltas, stages.evaluator, stages.journal, held, stages.decisions, stages.slots,
                              stages.min_runs, stages.stopped};
    after.refinements = refine_cause(inside, axes, isolation.cause, cause_state);
    return after;
  }
  after.refinements = refine_cause(stages, axes, isolation.cause, cause_state);
  if (judge.budget_spent()) {
    return after;
  }
  if (isolation.cause.size() > 1 && judge.provisional_anchors()) {
    // The parts of an interaction are held to a bar the anchors' failure counts set (plan_parts()):
    // two runs of each say too little of bad's rate.
    judge.complete_anchors(Completion::for_parts);
    if (!judge.one_run()) {
      return after;  // the anchors broke the pattern: the search asks again on statistics
    }
  }
  // Declared pass/fail (--deterministic, a pass-fail recipe): a second run, as git bisect's users
  // expect. Chosen by envbisect because the anchors looked deterministic: the candidate the answer
  // calls good must pass as many runs as the good anchor did.
  const int good_runs = judge.declared_pass_fail() ? 0 : judge.good_runs_to_match();
  RerunCandidate rerun = [&](const Candidate& candidate, const std::string& label, int runs) {
    const int wanted = std::max(judge.seen_runs(candidate) + 1, runs);
    if (!judge.see_until_failure(candidate, wanted)) {
      return Verdict::skip;
    }
    return judge.decide(candidate, "verify", label);
  };
  // A cause of several members says each part less a member is good. Against a part that carries the
  // failure at a quarter of the bad anchor's rate, taken at the low end of its interval (a few bad runs
  // can overstate it), its passes must leave that claim at most a fifth of the test's error level likely
  // to be wrong: 27 passes where bad failed 5 of 5 (stats::part_hypotheses says why a quarter).
  PartsPlan plan{good_runs, 0};
  const double level = judge.policy().rate_alpha / 5.0;
  if (good_runs > 0) {
    const std::size_t parts = isolation.cause.size() > 1 ? good_parts_of_cause(isolation).size() : 0;
    plan = plan_parts(judge, stages.evaluator, parts, level, good_runs);
  }
  const RunsInView in_view{[&](const Candidate& candidate) { return judge.seen_runs(candidate); },
                           [&](const Candidate& candidate, int runs) { return judge.passes_until(candidate, runs); },
                           [&](const Candidate& candidate, const std::string& label) {
                             return judge.decide(candidate, "verify", label);
                           }};
  BoundarySides sides;
  after.boundary = verify_boundary(stages, axes, isolation, after.refinements, cause_state, rerun, good_runs,
                                   plan.passes, &sides, &in_view);
  // The bad anchor runs the plan assumed, now that every part passed its planned runs (a part that
  // fails, as a race often does, spends none of them). The budget stopping them, or one that passes,
  // leaves the parts' bar resting on failures that did not come; such a pass ends one-run mode (the
  // search asks again on failure rates, every run kept).
  if (plan.more_bad_runs > 0 && after.boundary.value("ok", false) && judge.one_run() &&
      !judge.bad_anchor_keeps_failing(judge.seen_runs(judge.bad()) + plan.more_bad_runs)) {
    after.boundary["ok"] = false;
    after.boundary["parts_held"] = false;
  }
  if (judge.provisional_anchors() && after.boundary.value("ok", false) && judge.one_run() &&
      !reach_pooled_level(judge, stages.evaluator, sides, rerun, after.boundary)) {
    after.boundary["ok"] = false;
  }
  return after;
}

std::vector<DeltaSet> parts_not_held_on_rates(Judge& judge, const StageContext& stages, const Isolation& isolation) {
  std::vector<DeltaSet> unheld;
  if (!judge.rate_mode() || !isolation.found || isolation.cause.size() < 2) {
    return unheld;
  }
  const double level = judge.policy().rate_alpha / 5.0;
  // The parts run side by side, a run each per round: the first that carries the failure refutes the
  // interaction and ends the check (the search asks again on what it learnt), before a clean part has
  // paid for its stricter bar alone (35 runs at 1 % in tests/cli/run_rate_interaction_parts_held.sh).
  // Within a round the part with the most failures per run so far (a Laplace estimate) goes first.
  struct Part {
    DeltaSet applied;
    Candidate candidate;
    stats::Assessment call;
  };
  std::vector<Part> checked;
  for (const DeltaSet& part : good_parts_of_cause(isolation)) {
    checked.push_back({part, stages.evaluator.candidate(part), {}});
  }
  const auto rate = [&](const Part& part) {
    const stats::SampleSet runs = judge.samples(part.candidate);
    return (static_cast<double>(runs.failure_count()) + 0.5) / (static_cast<double>(runs.size()) + 1.0);
  };
  std::stable_sort(checked.begin(), checked.end(), [&](const Part& a, const Part& b) { return rate(a) > rate(b); });
  // A part failing significantly more often than good is not clean, whatever the bar says of its rate.
  const auto refutes = [](const Part& part) {
    return (part.call.decided && part.call.verdict != Verdict::good) || part.call.between_rates;
  };
  const auto clean = [](const Part& part) { return part.call.decided && part.call.verdict == Verdict::good; };
  bool refuted = false, stopped = false;
  while (!refuted && !stopped) {
    bool open = false;
    for (Part& part : checked) {
      if (clean(part)) {
        continue;
      }
      part.call = judge.assess_part_at(part.candidate, level);
      while (!refutes(part) && !part.call.decided && judge.top_up_anchor(part.call)) {
        part.call = judge.assess_part_at(part.candidate, level);
      }
      if (refutes(part)) {
        refuted = true;
        break;
      }
      if (clean(part)) {
        continue;
      }
      open = true;
      if (!judge.see_affordable(part.candidate, judge.seen_runs(part.candidate) + 1)) {
        stopped = true;
        break;
      }
    }
    if (!open) {
      break;
    }
  }
  json parts = json::array();
  for (const Part& part : checked) {
    const std::string label = "part of the cause " + describe_set(stages.deltas, part.applied);
    const std::string verdict = clean(part)          ? std::string("good")
                                : part.call.decided  ? std::string(to_string(part.call.verdict))
                                : refutes(part)      ? std::string("carries the failure")
                                                     : std::string("undecided");
    std::cout << "  " << verdict << "  " << label << "  (" << judge.seen_runs(part.candidate) << " runs; clean at "
              << level * 100 << " % error)\n";
    parts.push_back({{"label", label}, {"candidate", part.candidate.hash}, {"runs", judge.seen_runs(part.candidate)},
                     {"verdict", verdict}, {"reason", part.call.reason}});
    // Only a part decided good holds: one the stricter test left undecided (a rate between good's and
    // the bar, or a check ended by the budget or by another part's refutation) or called unstable has
    // not shown the member it lacks is needed.
    if (!clean(part)) {
      unheld.push_back(part.applied);
    }
  }
  if (!parts.empty()) {
    stages.journal.append({{"type", "parts"}, {"level", level}, {"parts", parts}, {"hold", unheld.empty()}});
  }
  return unheld;
}

void undecided_interaction(Isolation& isolation, const std::vector<DeltaSet>& unheld, const std::vector<Delta>& deltas) {
  isolation.outcome = IsolationOutcome::ambiguous;
  isolation.found = false;
  isolation.could_be = unheld;
  std::sort(isolation.could_be.begin(), isolation.could_be.end(),
            [](const DeltaSet& a, const DeltaSet& b) { return a.size() < b.size(); });
  isolation.could_be.push_back(isolation.cause);
  std::vector<std::string> names;
  for (const DeltaSet& part : unheld) {
    names.push_back(describe_set(deltas, part));
  }
  isolation.settle = "more runs of " + join(names, ", ") +
                     ": each fails more often than the good anchor yet was not shown to fail as often as the bar "
                     "(a quarter of the bad anchor's rate); with enough runs one is either clean (the interaction holds) "
                     "or carries the failure alone";
  isolation.note = "an interaction whose parts were not shown good: " + join(names, ", ");
}

json probe_when_it_bites(Judge& judge, const StageContext& stages, const Isolation& isolation,
                         const EnvState& cause_state, const RunOptions& options, const AfterIsolation& after) {
  if (!isolation.found || options.no_probe || judge.stop_reached()) {
    return json::array();
  }
  // The cause is written; the probes (thread counts, each with every cache state) measure against
  // anchors at the preflight's level.
  if (!cause_state.threads.empty()) {
    judge.complete_anchors(Completion::for_probes);
  }
  if (judge.rate_fallback()) {
    const stats::SampleSet good = judge.samples(judge.good());
    const stats::SampleSet bad = judge.samples(judge.bad());
    const RateProbeContext context{
        stages.evaluator,
        stages.journal,
        [&judge](const Candidate& candidate, int runs) { return judge.see_affordable(candidate, runs); },
        [&judge](const Candidate& candidate) { return judge.samples(candidate); },
        stats::rate_hypotheses(good.failure_count(), good.size(), bad.failure_count(), bad.size()),
        judge.policy().rate_alpha,
        k_rate_probe_runs};
    return probe_rates(context, isolation.cause, cause_state);
  }
  const ProbeMode probe_mode = probe_mode_from(options.probe);
  // A cell called good is held like the answer's own good side: to the good anchor's run count.
  const int good_runs =
      judge.one_run() ? (judge.declared_pass_fail() ? 0 : judge.good_runs_to_match()) : after.hold_runs;
  const DecideCandidate held = hold_good_verdicts(judge, good_runs);
  const bool one_run = judge.one_run();
  const StageContext probing{stages.deltas, stages.evaluator, stages.journal, held, stages.decisions, stages.slots,
                             stages.min_runs,
                             [&judge, one_run] { return judge.stop_reached() || judge.one_run() != one_run; }};
  return probe_modifiers(probing, isolation.cause, cause_state, probe_mode);
}

}  // namespace envbisect
