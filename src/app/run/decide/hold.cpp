#include "app/run/decide/hold.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "search/verify.hpp"
#include "stats/samples.hpp"
#include "store/journal.hpp"

namespace envbisect {

int good_runs_to_hold(Judge& judge, Journal& journal, const Candidate& cause, int preflight_runs) {
  if (judge.samples(judge.good()).failure_count() > 0) {
    return 0;  // the good anchor fails too: the failure channel already weighs every run
  }
  auto some = [&](const Candidate& candidate) {
    const stats::SampleSet runs = judge.samples(candidate);
    const std::size_t failed = runs.failure_count();
    return failed > 0 && failed < runs.size() ? std::to_string(failed) + " of its " + std::to_string(runs.size())
                                              : std::string();
  };
  std::string why;
  if (const std::string counts = some(cause); !counts.empty()) {
    why = "the cause failed in " + counts + " runs";
  } else if (const std::string anchor = some(judge.bad()); !anchor.empty()) {
    why = "the bad anchor failed in " + anchor + " runs";
  } else if (judge.fell_back()) {
    why = "a candidate's runs disagreed";
  } else {
    return 0;
  }
  // What "good" can then mean: N clean runs rule out a failure rate above 1 - 0.05^(1/N) at 95 %,
  // no lower (6 runs: 39 %). A point called good inside the cause fails less often, perhaps never.
  const double bound = 1.0 - std::pow(0.05, 1.0 / std::max(preflight_runs, 1));
  char bound_text[16];
  std::snprintf(bound_text, sizeof bound_text, "%.0f %%", 100.0 * bound);
  std::cout << why << ": failures come at a rate here, so a point or probe called good inside the cause must pass "
            << preflight_runs
            << " runs, as the good anchor did (a smaller dose of a race fails in fewer runs, not none); "
            << preflight_runs << " clean runs still allow a failure rate up to " << bound_text
            << " (95 %), so good there means rarer, not shown never\n";
  journal.append({{"type", "hold"}, {"good_runs", preflight_runs}, {"why", why}, {"rate_bound", bound}});
  return preflight_runs;
}

DecideCandidate hold_good_verdicts(Judge& judge, int runs) {
  const bool one_run = judge.one_run();
  return [&judge, runs, one_run](const Candidate& candidate, const std::string& stage, const std::string& label) {
    Verdict verdict = judge.decide(candidate, stage, label);
    if (verdict == Verdict::good && judge.one_run() == one_run && judge.seen_runs(candidate) < runs) {
      if (!judge.see_until_failure(candidate, runs)) {
        return Verdict::skip;
      }
      verdict = judge.decide(candidate, stage, label + " (runs like the good anchor)");
    }
    return verdict;
  };
}

bool rerun_contradictions(Judge& judge, Evaluator& evaluator, const std::vector<Delta>& deltas, int good_runs) {
  if (!judge.one_run() || judge.declared_pass_fail()) {
    return false;
  }
  std::vector<SetVerdict> verdicts;
  for (const nlohmann::json& decision : judge.verdict_log()) {
    // Only good and bad are sides of a contradiction; any other last verdict of a set hides its earlier ones.
    const std::string word = decision.value("verdict", std::string());
    const Verdict verdict = word == to_string(Verdict::good) ? Verdict::good
                            : word == to_string(Verdict::bad) ? Verdict::bad
                                                               : Verdict::unstable;
    if (decision.contains("applied")) {
      verdicts.push_back({decision["applied"].get<DeltaSet>(), verdict});
    }
  }
  // A few pairs: each costs up to good_runs + 1 runs, and one run that disagrees settles the mode.
  constexpr std::size_t k_most_pairs = 3;
  for (const Contradiction& pair : monotone_contradictions(verdicts, k_most_pairs)) {
    if (judge.stop_reached()) {
      break;
    }
    const Candidate good = evaluator.candidate(pair.good_side);
    const Candidate bad = evaluator.candidate(pair.bad_side);
    const std::string good_label = describe_set(deltas, pair.good_side);
    const std::string bad_label = describe_set(deltas, pair.bad_side);
    std::cout << good_label << " passed where " << bad_label
              << ", which it holds, failed: a one-run verdict may be a race's; both run again\n";
    judge.journal().append({{"type", "contradiction"}, {"good_side", pair.good_side}, {"bad_side", pair.bad_side}});
    if (!judge.see_until_failure(good, std::max(good_runs, judge.seen_runs(good) + 1))) {
      break;
    }
    judge.decide(good, "recheck", good_label + " (a contradiction)");
    if (!judge.one_run()) {
      return true;
    }
    if (!judge.see_affordable(bad, judge.seen_runs(bad) + 1)) {
      break;
    }
    judge.decide(bad, "recheck", bad_label + " (a contradiction)");
    if (!judge.one_run()) {
      return true;
    }
  }
  return false;
}

}  // namespace envbisect
