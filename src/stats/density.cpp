#include "stats/density.hpp"

#include <algorithm>
#include <cmath>

#include "stats/samples.hpp"

namespace envbisect::stats {

double robust_sd(const std::vector<double>& values) {
  const double centre = median(values);
  std::vector<double> deviations;
  for (double v : values) {
    deviations.push_back(std::abs(v - centre));
  }
  return 1.4826 * median(deviations);
}

double kernel_width(const std::vector<double>& good, const std::vector<double>& bad) {
  const double gap = std::abs(median(bad) - median(good));
  const double spread = std::min(robust_sd(good), robust_sd(bad));
  const double n = static_cast<double>(std::min(good.size(), bad.size()));
  return std::max(1.06 * spread * std::pow(n, -0.2), gap / 20.0);
}

double density(const std::vector<double>& anchor, double x, double width) {
  if (anchor.empty() || width <= 0.0) {
    return 0.0;
  }
  double sum = 0.0;
  for (double v : anchor) {
    const double z = (x - v) / width;
    sum += std::exp(-0.5 * z * z);
  }
  return sum / static_cast<double>(anchor.size());
}

double log_likelihood_ratio(const std::vector<double>& c, const std::vector<double>& x_anchor, double x_shift,
                            const std::vector<double>& y_anchor, double y_shift, double width) {
  double sum = 0.0;
  for (double v : c) {
    const double fx = density(x_anchor, v - x_shift, width), fy = density(y_anchor, v - y_shift, width);
    if (fx > 0.0 && fy > 0.0) {
      sum += std::clamp(std::log(fx / fy), -k_run_evidence_bound, k_run_evidence_bound);
    } else if (fx > 0.0) {
      sum += k_run_evidence_bound;
    } else if (fy > 0.0) {
      sum -= k_run_evidence_bound;
    }  // a run far from every run of both anchors (beyond ~38 widths) is unlike both: no evidence
  }
  return sum;
}

}  // namespace envbisect::stats
