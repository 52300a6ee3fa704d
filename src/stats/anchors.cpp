#include "stats/anchors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "stats/density.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/quantity.hpp"
#include "stats/tail.hpp"

namespace envbisect::stats {

namespace {

// Return the Wilson score bound (one standard error, `side` -1 lower, +1 upper) of a failure rate.
// The bad anchor's rate is taken at its lower bound and the good one's at its upper bound, so that
// five anchor runs, which say little about a rate, make every failure and every clean run count for
// less: 0 of 5 is "up to 17%", not "never", and 2 of 5 is "at least 22%".
double wilson_bound(std::size_t failures, std::size_t runs, double side) {
  const double n = static_cast<double>(std::max<std::size_t>(runs, 1));
  const double rate = static_cast<double>(failures) / n;
  const double spread = std::sqrt(rate * (1.0 - rate) / n + 1.0 / (4.0 * n * n));
  return (rate + 1.0 / (2.0 * n) + side * spread) / (1.0 + 1.0 / n);
}

}  // namespace

std::string reason_number(double value, const char* format) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string runs_of(std::size_t k, std::size_t n) {
  return std::to_string(k) + " of " + std::to_string(n);
}

bool all_positive(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return v > 0.0; });
}

std::vector<double> on_scale(std::vector<double> values, Scale scale) {
  if (scale == Scale::log) {
    for (double& v : values) {
      v = std::log(v);
    }
  }
  return values;
}

double metric_worse_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy) {
  const RankTest test = mann_whitney(bad, good);
  if (policy.any_change) {
    return test.p_two_sided;
  }
  return policy.higher_is_better ? test.p_less : test.p_greater;
}

double metric_better_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy) {
  const RankTest test = mann_whitney(bad, good);
  return policy.higher_is_better ? test.p_greater : test.p_less;
}

Anchors prepare_anchors(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy, Scale scale) {
  Anchors a;
  a.good = on_scale(good.metrics(), scale);
  a.bad = on_scale(bad.metrics(), scale);
  a.gap = hodges_lehmann_shift(a.bad, a.good);
  const std::size_t looked = std::min(good.size(), bad.size());
  a.good_median = median(a.good);
  // The channels count only in the direction the user called bad (any direction with any_change), at
  // the level the preflight tested them.
  a.metric_level = look_alpha(policy, Channel::metric, looked);
  a.failure_level = look_alpha(policy, Channel::failure, looked);
  a.metric_reliable = a.gap != 0.0 && (metric_worse_p(a.good, a.bad, policy) <= a.metric_level ||
                                       tail_worse_p(a.good, a.bad, policy, scale) <= a.metric_level);
  a.failure_reliable =
      fisher_fewer(good.failure_count(), good.size(), bad.failure_count(), bad.size()) <= a.failure_level;
  a.good_failures = good.failure_count();
  a.bad_failures = bad.failure_count();
  a.bad_runs = bad.size();
  a.good_rate = wilson_bound(good.failure_count(), good.size(), +1.0);
  a.bad_rate = std::max(a.good_rate, wilson_bound(bad.failure_count(), bad.size(), -1.0));
  if (a.metric_reliable && !a.good.empty() && !a.bad.empty()) {
    // The threshold is three robust spreads of good's beyond its median, so good's own slow outliers
    // neither move it nor hide the channel; good's runs beyond it, and one more for caution, set good's
    // event rate.
    a.tail_side = a.gap > 0.0 ? Side::above : Side::below;
    const double reach = 3.0 * std::max(robust_sd(a.good), std::abs(a.gap) / 20.0);
    a.tail_threshold = a.good_median + (a.tail_side == Side::above ? reach : -reach);
    const std::size_t events = beyond(a.bad, a.tail_threshold, a.tail_side);
    // Active when bad has two modes: a tenth of its runs or more inside good's reach, a tenth or more
    // twice as far out, and few in between (a plain shift, however noisy, leaves no such gap). There the
    // median and the likelihood of a few runs cannot see the regression, so good must clear this channel too.
    const double far = a.good_median + (a.tail_side == Side::above ? 2.0 * reach : -2.0 * reach);
    const std::size_t far_runs = beyond(a.bad, far, a.tail_side);
    const std::size_t inside = a.bad.size() - events;
    a.tail_active = 10 * inside >= a.bad.size() && 10 * far_runs >= a.bad.size() &&
                    10 * (inside + far_runs) >= 8 * a.bad.size();
    // Good's rate as a Laplace estimate ((events + 1) / (runs + 2)), bad's at its cautious lower bound:
    // overrating bad's rate is what makes a few clean runs clear a cause; cautious bounds on both
    // sides made a clean run worth so little that an innocent candidate stayed unstable at the cap.
    const double good_events = static_cast<double>(beyond(a.good, a.tail_threshold, a.tail_side));
    a.tail_good_rate = (good_events + 1.0) / (static_cast<double>(a.good.size()) + 2.0);
    a.tail_bad_rate = std::max(a.tail_good_rate, wilson_bound(events, a.bad.size(), -1.0));
  }
  if (a.metric_reliable && a.good.size() >= 3 && a.bad.size() >= 3) {
    a.bandwidth = kernel_width(a.good, a.bad);
  }
  for (const std::string& s : good.failure_signatures()) {
    a.good_signatures.insert(s);
  }
  for (const std::string& s : bad.failure_signatures()) {
    a.bad_signatures.insert(s);
  }
  return a;
}

}  // namespace envbisect::stats
