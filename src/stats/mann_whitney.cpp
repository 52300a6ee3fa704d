#include "stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace envbisect::stats {

namespace {

// Return twice the mid-rank of every pooled value (x first, then y): integers even with ties.
std::vector<long> doubled_midranks(const std::vector<double>& pooled) {
  std::vector<std::size_t> order(pooled.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return pooled[a] < pooled[b]; });
  std::vector<long> ranks(pooled.size());
  std::size_t i = 0;
  while (i < order.size()) {
    std::size_t j = i;
    while (j + 1 < order.size() && pooled[order[j + 1]] == pooled[order[i]]) {
      ++j;
    }
    // Ranks i+1 .. j+1 share their mean; doubled it is (i+1)+(j+1).
    for (std::size_t k = i; k <= j; ++k) {
      ranks[order[k]] = static_cast<long>(i + j + 2);
    }
    i = j + 1;
  }
  return ranks;
}

// Return ways[s]: how many n1-subsets of the scores have score sum s (the exact null law).
std::vector<double> subset_sum_counts(const std::vector<long>& scores, std::size_t n1) {
  const long total = std::accumulate(scores.begin(), scores.end(), 0L);
  std::vector<std::vector<double>> ways(n1 + 1, std::vector<double>(total + 1, 0.0));
  ways[0][0] = 1.0;
  for (long score : scores) {
    // Walk k downwards so each score is used at most once (0/1 knapsack).
    for (std::size_t k = n1; k >= 1; --k) {
      for (long s = total; s >= score; --s) {
        ways[k][s] += ways[k - 1][s - score];
      }
    }
  }
  return ways[n1];
}

// Fill the p-values of `test` from the exact permutation law of the doubled rank sum.
void exact_p_values(const std::vector<long>& ranks, std::size_t n1, long observed, RankTest& test) {
  const std::vector<double> ways = subset_sum_counts(ranks, n1);
  const double all = std::accumulate(ways.begin(), ways.end(), 0.0);
  // Doubled expected rank sum: n1 * (N + 1).
  const long mean2 = static_cast<long>(n1 * (ranks.size() + 1));
  const long distance = std::labs(observed - mean2);
  double ge = 0.0, le = 0.0, two = 0.0;
  for (long s = 0; s < static_cast<long>(ways.size()); ++s) {
    if (ways[s] == 0.0) {
      continue;
    }
    ge += s >= observed ? ways[s] : 0.0;
    le += s <= observed ? ways[s] : 0.0;
    two += std::labs(s - mean2) >= distance ? ways[s] : 0.0;
  }
  test.p_greater = ge / all;
  test.p_less = le / all;
  test.p_two_sided = two / all;
}

// Fill the p-values of `test` from the tie-corrected normal approximation.
void normal_p_values(const std::vector<long>& ranks, std::size_t n1, std::size_t n2, RankTest& test) {
  const double n = static_cast<double>(n1 + n2);
  const double a = static_cast<double>(n1), b = static_cast<double>(n2);
  std::vector<long> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  double tie_term = 0.0;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) {
      ++j;
    }
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double sd = std::sqrt(a * b / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0))));
  const double mean = a * b / 2.0;
  if (sd == 0.0) {
    return;  // every value tied: no evidence either way, p-values stay 1
  }
  const auto upper_tail = [](double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); };
  test.p_greater = upper_tail((test.u - mean - 0.5) / sd);
  test.p_less = upper_tail((mean - test.u - 0.5) / sd);
  test.p_two_sided = std::min(1.0, 2.0 * upper_tail((std::fabs(test.u - mean) - 0.5) / sd));
  test.exact = false;
}

}  // namespace

RankTest mann_whitney(const std::vector<double>& x, const std::vector<double>& y) {
  RankTest test;
  if (x.empty() || y.empty()) {
    return test;
  }
  std::vector<double> pooled = x;
  pooled.insert(pooled.end(), y.begin(), y.end());
  const std::vector<long> ranks = doubled_midranks(pooled);
  // Doubled rank sum of x; U = R_x - n1(n1+1)/2.
  const long observed = std::accumulate(ranks.begin(), ranks.begin() + static_cast<long>(x.size()), 0L);
  const double n1 = static_cast<double>(x.size());
  test.u = static_cast<double>(observed) / 2.0 - n1 * (n1 + 1.0) / 2.0;
  if (pooled.size() <= k_exact_limit) {
    exact_p_values(ranks, x.size(), observed, test);
  } else {
    normal_p_values(ranks, x.size(), y.size(), test);
  }
  return test;
}

std::vector<double> u_null_counts(std::size_t n1, std::size_t n2) {
  // Without ties the doubled ranks are 2, 4, ..., 2N; U = R/2 - n1(n1+1)/2.
  std::vector<long> scores(n1 + n2);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    scores[i] = static_cast<long>(2 * (i + 1));
  }
  const std::vector<double> ways = subset_sum_counts(scores, n1);
  std::vector<double> counts(n1 * n2 + 1, 0.0);
  const long offset = static_cast<long>(n1 * (n1 + 1));  // doubled minimum rank sum
  for (std::size_t u = 0; u < counts.size(); ++u) {
    counts[u] = ways[static_cast<std::size_t>(offset + 2 * static_cast<long>(u))];
  }
  return counts;
}

namespace {

// Return the hypergeometric probability of k failures in the first group.
double hypergeometric(std::size_t k, std::size_t n1, std::size_t failures, std::size_t total) {
  const auto log_choose = [](double n, double r) {
    return std::lgamma(n + 1.0) - std::lgamma(r + 1.0) - std::lgamma(n - r + 1.0);
  };
  const double lp = log_choose(static_cast<double>(failures), static_cast<double>(k)) +
                    log_choose(static_cast<double>(total - failures), static_cast<double>(n1 - k)) -
                    log_choose(static_cast<double>(total), static_cast<double>(n1));
  return std::exp(lp);
}

}  // namespace

double fisher_exact(std::size_t k1, std::size_t n1, std::size_t k2, std::size_t n2) {
  if (n1 == 0 || n2 == 0) {
    return 1.0;
  }
  const std::size_t failures = k1 + k2, total = n1 + n2;
  const double observed = hypergeometric(k1, n1, failures, total);
  const std::size_t lo = failures > n2 ? failures - n2 : 0;
  const std::size_t hi = std::min(failures, n1);
  double p = 0.0;
  // Two-sided: every table at most as likely as the observed one.
  for (std::size_t k = lo; k <= hi; ++k) {
    const double q = hypergeometric(k, n1, failures, total);
    p += q <= observed * (1.0 + 1e-7) ? q : 0.0;
  }
  return std::min(1.0, p);
}

double fisher_fewer(std::size_t k1, std::size_t n1, std::size_t k2, std::size_t n2) {
  if (n1 == 0 || n2 == 0) {
    return 1.0;
  }
  const std::size_t failures = k1 + k2, total = n1 + n2;
  const std::size_t lo = failures > n2 ? failures - n2 : 0;
  double p = 0.0;
  for (std::size_t k = lo; k <= k1; ++k) {
    p += hypergeometric(k, n1, failures, total);
  }
  return std::min(1.0, p);
}

}  // namespace envbisect::stats
