#include "stats/tail.hpp"

#include <algorithm>
#include <cmath>

#include "stats/density.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/samples.hpp"

namespace envbisect::stats {

std::size_t beyond(const std::vector<double>& values, double threshold, Side side) {
  return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [&](double v) {
    return side == Side::above ? v > threshold : v < threshold;
  }));
}

double tail_worse_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy,
                    Scale scale) {
  if (good.size() < 3 || bad.empty()) {
    return 1.0;
  }
  std::vector<double> pooled(good);
  pooled.insert(pooled.end(), bad.begin(), bad.end());
  const double centre = median(pooled);
  const double floor = scale == Scale::log ? 0.01 : 0.01 * std::abs(centre);
  const double reach = 3.0 * std::max(robust_sd(pooled), floor);
  auto p_towards = [&](Side side) {
    const double threshold = centre + (side == Side::above ? reach : -reach);
    return fisher_fewer(beyond(good, threshold, side), good.size(), beyond(bad, threshold, side), bad.size());
  };
  if (policy.any_change) {
    return std::min(1.0, 2.0 * std::min(p_towards(Side::above), p_towards(Side::below)));
  }
  return p_towards(policy.higher_is_better ? Side::below : Side::above);
}

}  // namespace envbisect::stats
