#include "stats/effect.hpp"

#include <algorithm>
#include <cmath>

namespace envbisect::stats {

std::size_t mann_whitney_rank_cut(std::size_t m, std::size_t n, double confidence) {
  // counts[u]: arrangements of m and n values whose Mann-Whitney U is u; built one value at a time:
  // c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u).
  const std::size_t top = m * n;
  std::vector<std::vector<std::vector<double>>> c(m + 1, std::vector<std::vector<double>>(n + 1));
  for (std::size_t i = 0; i <= m; ++i) {
    for (std::size_t j = 0; j <= n; ++j) {
      c[i][j].assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        c[i][j][0] = 1.0;
        continue;
      }
      for (std::size_t u = 0; u <= i * j; ++u) {
        double ways = u < c[i][j - 1].size() ? c[i][j - 1][u] : 0.0;
        if (u >= j && u - j < c[i - 1][j].size()) {
          ways += c[i - 1][j][u - j];
        }
        c[i][j][u] = ways;
      }
    }
  }
  double total = 0;
  for (double ways : c[m][n]) {
    total += ways;
  }
  const double tail = (1.0 - confidence) / 2.0;
  std::size_t k = 0;
  double below = 0;  // P(U < k + 1) as k grows
  for (std::size_t u = 0; u <= top; ++u) {
    below += c[m][n][u] / total;
    if (below > tail + 1e-12) {
      break;
    }
    k = u + 1;
  }
  return k;
}

std::optional<RatioEffect> ratio_effect(const std::vector<double>& from, const std::vector<double>& to,
                                        double confidence) {
  std::vector<double> x;
  std::vector<double> y;
  for (double value : from) {
    if (value > 0 && std::isfinite(value)) {
      x.push_back(std::log(value));
    }
  }
  for (double value : to) {
    if (value > 0 && std::isfinite(value)) {
      y.push_back(std::log(value));
    }
  }
  if (x.empty() || y.empty()) {
    return std::nullopt;
  }
  std::vector<double> differences;
  for (double b : y) {
    for (double a : x) {
      differences.push_back(b - a);
    }
  }
  std::sort(differences.begin(), differences.end());
  const std::size_t count = differences.size();
  const double middle = count % 2 == 1 ? differences[count / 2]
                                       : (differences[count / 2 - 1] + differences[count / 2]) / 2.0;
  RatioEffect effect;
  effect.ratio = std::exp(middle);
  effect.confidence = confidence;
  effect.from_runs = x.size();
  effect.to_runs = y.size();
  // The interval's ends are the k-th smallest and k-th largest pairwise differences.
  const std::size_t k = mann_whitney_rank_cut(x.size(), y.size(), confidence);
  if (k >= 1 && k <= count) {
    effect.low = std::exp(differences[k - 1]);
    effect.high = std::exp(differences[count - k]);
  }
  return effect;
}

}  // namespace envbisect::stats
