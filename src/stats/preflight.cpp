#include "stats/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "stats/anchors.hpp"
#include "stats/density.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/quantity.hpp"
#include "stats/tail.hpp"

namespace envbisect::stats {

namespace {

// How many times more lenient than Bonferroni each preflight look of a channel may be (see
// look_alpha()): calibrated so that the looks from 5 to 20 runs (30 for failures) together spend
// preflight_alpha on identical anchors.
constexpr double k_metric_look_factor = 3.5;
constexpr double k_failure_look_factor = 9.0;

// Return one anchor's summary for the preflight message.
std::string anchor_words(const char* name, const SampleSet& set, double med, double cv, const std::string& unit) {
  std::string words = std::string(name) + ": ";
  if (set.metrics().empty()) {
    words += "no run produced a metric";
  } else {
    words += "median " + human_number(med) + (unit.empty() ? "" : " " + unit) + ", CV " +
             reason_number(100.0 * cv, "%.1f") + "%";
  }
  words += ", failed " + runs_of(set.failure_count(), set.size());
  const std::vector<std::string> signatures = set.failure_signatures();
  if (!signatures.empty()) {
    words += " (" + signatures.front() + (signatures.size() > 1 ? ", ..." : "") + ")";
  }
  return words;
}

// Return 2 / C(2n, n): the smallest two-sided rank-test p that n runs per anchor can give.
double smallest_p(std::size_t n) {
  double arrangements = 1.0;
  for (std::size_t i = 1; i <= n; ++i) {
    arrangements = arrangements * static_cast<double>(n + i) / static_cast<double>(i);
  }
  return 2.0 / arrangements;
}

// Return the number of clean runs after which failures alone clear a candidate as good, or 0
// when clean runs carry no evidence.
int runs_to_clear(const Anchors& a, const VerdictPolicy& policy) {
  const double per_run = (1.0 - a.bad_rate) / (1.0 - a.good_rate);
  if (per_run >= 1.0) {
    return 0;
  }
  return static_cast<int>(std::ceil(std::log(policy.failure_alpha) / std::log(per_run)));
}

// Return the advice printed when the anchors cannot be told apart after `runs` runs of each: never a
// budget already spent.
std::string advice(const Preflight& p, std::size_t runs) {
  std::string words = "cannot tell good from bad: rank test p=" + reason_number(p.metric_p) + " (need <= " +
                      reason_number(p.look_alpha) + "), failure test p=" + reason_number(p.failure_p) + " (need <= " +
                      reason_number(p.failure_look_alpha) + "), one-sided at this look. Try: ";
  // With very few anchor runs no outcome can reach the level.
  const std::size_t n = std::max<std::size_t>(runs, 1);
  if (smallest_p(n) / 2.0 > p.look_alpha) {
    words += "more anchor runs (" + std::to_string(n) + " each can never reach the level); ";
  }
  words += "more runs of each anchor (--anchor-runs " + std::to_string(2 * n) + ", after " + std::to_string(n) +
           " each here), a longer benchmark (less noise";
  words += p.good_cv > 0.0 ? ", good CV " + reason_number(100.0 * p.good_cv, "%.1f") + "%" : "";
  words += "), or check that the bad state really differs";
  return words;
}

}  // namespace

double look_alpha(const VerdictPolicy& policy, Channel channel, std::size_t runs) {
  const int first = std::max(policy.anchor_runs, 1);
  const int cap = std::max(first, channel == Channel::metric
                                      ? policy.max_anchor_runs
                                      : std::max(policy.max_anchor_runs, policy.max_failure_anchor_runs));
  // The looks share most of their runs, so their false alarms coincide: Bonferroni over the looks
  // spent about a third of the level on identical anchors (metric: 1.5 % of 5 %; failures: 0.5-1.5 %).
  // Simulating the null (identical anchors through preflight(): rank and tail tests, failure rates
  // 10-50 %; the unit test "preflight's looks together spend about its level on identical anchors"
  // replays it) gave the number of looks that count as independent for 5..20 runs (30 for
  // failures): the looks divided by these factors. At the default 5..40 the same factors spend
  // about 1 % on identical anchors: a level nearer 5 % there (1 + 2.58 ln(cap / first) independent
  // looks) measured worse on bench/verdicts (right_rate 0.9894 against 0.9912, crash-only 926 against
  // 968 of 1000), so the stricter level stays (docs/PERFORMANCE.md).
  (void)runs;
  const double factor = channel == Channel::metric ? k_metric_look_factor : k_failure_look_factor;
  const int looks = cap - first + 1;
  // Every look at the same level (Pocock): a level that dropped at a later look turned anchors told
  // apart early indistinguishable again once the search gave them more runs, and every verdict after
  // that unstable. Never more lenient than one look at the whole level.
  return policy.preflight_alpha / std::max(1.0, static_cast<double>(looks) / factor);
}

Preflight preflight(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy) {
  Preflight p;
  const std::vector<double> g = good.metrics(), b = bad.metrics();
  p.good_median = median(g);
  p.bad_median = median(b);
  p.good_cv = coefficient_of_variation(g);
  p.bad_cv = coefficient_of_variation(b);
  p.good_fail_rate = good.failure_rate();
  p.bad_fail_rate = bad.failure_rate();
  // Effect as "times worse": > 1 when bad is slower (or lower throughput) than good.
  if (p.good_median > 0.0 && p.bad_median > 0.0) {
    p.effect = policy.higher_is_better ? p.good_median / p.bad_median : p.bad_median / p.good_median;
  }
  const Scale scale = all_positive(g) && all_positive(b) ? Scale::log : Scale::linear;
  const Anchors a = prepare_anchors(good, bad, policy, scale);
  p.metric_p = metric_worse_p(a.good, a.bad, policy);
  p.tail_p = tail_worse_p(a.good, a.bad, policy, scale);
  p.failure_p = fisher_fewer(good.failure_count(), good.size(), bad.failure_count(), bad.size());
  // The levels the channels were decided at, so the message states what was tested.
  p.look_alpha = a.metric_level;
  p.failure_look_alpha = a.failure_level;
  p.by_metric = a.metric_reliable;
  p.by_failure = a.failure_reliable;
  p.checksum_mismatch = good.checksum_mismatch() || bad.checksum_mismatch();
  const bool skipped = good.any_skipped() || bad.any_skipped();
  // A bad anchor that measures better than good is most likely mislabelled: stop unless asked not to.
  // Not one that fails more often than good: its failures may be the regression (a race that crashes
  // some runs, the others as fast or faster), and more runs let the failure channel tell.
  p.bad_is_better = !policy.any_change && !p.by_failure && bad.failure_rate() <= good.failure_rate() &&
                    !a.good.empty() && !a.bad.empty() && metric_better_p(a.good, a.bad, policy) <= p.look_alpha;
  p.distinguishable = (p.by_metric || p.by_failure) && !skipped && !p.bad_is_better;
  const std::size_t fewest = std::min(good.size(), bad.size());
  // The failure channel may extend the anchors on its own while bad fails more often than good.
  const bool failures_lean_bad = bad.failure_rate() > good.failure_rate();
  const int cap = failures_lean_bad ? std::max(policy.max_anchor_runs, policy.max_failure_anchor_runs)
                                    : policy.max_anchor_runs;
  p.more_runs_would_help = !p.distinguishable && !skipped && !p.bad_is_better && fewest < static_cast<std::size_t>(cap);

  p.message = anchor_words("good", good, p.good_median, p.good_cv, policy.unit) + "; " +
              anchor_words("bad", bad, p.bad_median, p.bad_cv, policy.unit);
  if (p.effect > 0.0) {
    // The factor is never below 1x: "bad is 1.96x better", not "0.51x better (!)".
    const Better better = policy.higher_is_better ? Better::higher : Better::lower;
    p.message += "; bad is " + comparison_words(p.good_median, p.bad_median, better, "");
  }
  if (skipped) {
    p.message += ". An anchor run exited 125 (skip): the benchmark cannot test an anchor";
  } else if (p.bad_is_better) {
    p.message += ". The bad anchor measures better than good (rank test p=" +
                 reason_number(metric_better_p(a.good, a.bad, policy)) +
                 "): check which state is bad and the recipe's direction, or pass --any-change to bisect any change";
  } else if (p.distinguishable) {
    p.message += std::string(". Distinguishable by ") +
                 (p.by_metric && p.by_failure ? "metric and failures" : p.by_metric ? "metric" : "failures") +
                 " (rank test p=" + reason_number(p.metric_p) +
                 (p.tail_p < p.metric_p ? ", runs beyond the anchors' common reach p=" + reason_number(p.tail_p)
                                        : std::string()) +
                 " at " + reason_number(p.look_alpha) + ", failure test p=" + reason_number(p.failure_p) + " at " +
                 reason_number(p.failure_look_alpha) + ": this look's levels)";
  } else {
    p.message += ". " + advice(p, fewest);
  }
  if (p.distinguishable) {
    const double spread = std::max(std::min(robust_sd(a.good), robust_sd(a.bad)), 1e-12);
    const bool close = !p.by_metric || a.tail_active || std::abs(a.gap) < 5.0 * spread;
    p.anchor_runs_wanted = static_cast<int>(fewest);
    if (close) {
      p.anchor_runs_wanted = std::max(p.anchor_runs_wanted, std::min(2 * policy.anchor_runs, policy.max_anchor_runs));
    }
    if (a.tail_active) {
      // A bad anchor slow in only some runs: the tail channel weighs a candidate's runs by both anchors'
      // rates of runs beyond good's reach, and the re-check before reporting tests the anchors again;
      // both need the anchors' full runs, so they get them before the search.
      p.anchor_runs_wanted = std::max(p.anchor_runs_wanted, policy.max_anchor_runs);
    }
  }
  // Failures alone can call a candidate good only after enough clean runs; say so if the cap is lower.
  const int clear = runs_to_clear(a, policy);
  if (p.distinguishable && !p.by_metric && clear > policy.max_runs) {
    p.message += ". Only failures tell the anchors apart: calling a candidate good needs " + std::to_string(clear) +
                 " clean runs, more than --max-runs " + std::to_string(policy.max_runs);
  }
  if (p.checksum_mismatch) {
    p.message += ". Warning: an anchor's fixed-seed checksum varied between runs (nondeterminism)";
  }
  return p;
}

}  // namespace envbisect::stats
