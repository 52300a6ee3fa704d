#pragma once

#include <optional>
#include <string>
#include <vector>

namespace envbisect::stats {

// The effect of going from one sample to another, as a ratio of medians with its confidence interval.
struct RatioEffect {
  double ratio = 1.0;                 // Hodges-Lehmann estimate of to/from, on the log scale
  std::optional<double> low;          // the interval's ends; absent when the samples are too small
  std::optional<double> high;         // for any interval at this confidence
  double confidence = 0.95;           // the interval's exact coverage is at least this
  std::size_t from_runs = 0;
  std::size_t to_runs = 0;
};

// Return how many of the m*n (from, to) pairs the exact Mann-Whitney distribution puts below the
// interval: the largest k with P(U < k) <= (1 - confidence) / 2 for sample sizes m and n, no ties;
// 0 when even k = 1 is too likely (samples too small for this confidence).
std::size_t mann_whitney_rank_cut(std::size_t m, std::size_t n, double confidence);

// Return the ratio `to`/`from` as the Hodges-Lehmann shift of the logs (the median of all pairwise
// differences log(to_j) - log(from_i), exponentiated) with the exact distribution-free interval of the
// Mann-Whitney test inverted (Hollander & Wolfe). Values <= 0 are left out (no log); nullopt when either
// side has none left.
std::optional<RatioEffect> ratio_effect(const std::vector<double>& from, const std::vector<double>& to,
                                        double confidence = 0.95);

// A CV above this marks a candidate's runs as noisy in the terminal and the report (10 %).
constexpr double k_noisy_cv = 0.10;

}  // namespace envbisect::stats
