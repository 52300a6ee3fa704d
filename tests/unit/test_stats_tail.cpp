#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "stats/tail.hpp"
#include "stats/verdict.hpp"

using namespace envbisect::stats;

namespace {

// Seconds per step (lower is better) around `level`, with a small repeating jitter.
std::vector<double> runs(int n, double level, int phase) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(level * (1.0 + 0.03 * std::sin(1.7 * (i + phase))));
  }
  return out;
}

// The hypergeometric probability that all k events of 2n runs fall in one named half.
double all_in_one_half(int n, int k) {
  double p = 1.0;
  for (int i = 0; i < k; ++i) {
    p *= static_cast<double>(n - i) / static_cast<double>(2 * n - i);
  }
  return p;
}

}  // namespace

TEST_CASE("tail_worse_p: the threshold is drawn from both anchors, so the count test is exact", "[stats][tail]") {
  VerdictPolicy policy;
  policy.higher_is_better = false;
  const std::vector<double> good = runs(10, 1.0, 0);
  std::vector<double> bad = runs(4, 1.0, 20);
  for (double v : runs(6, 3.0, 40)) {
    bad.push_back(v);
  }
  // Six of bad's ten runs three times slower, none of good's: exactly C(10,6)/C(20,6). A threshold drawn
  // from good alone, with good's count raised by one for caution, gave about six times that.
  CHECK(tail_worse_p(good, bad, policy, envbisect::stats::Scale::log) == Approx(all_in_one_half(10, 6)).epsilon(1e-9));
  CHECK(tail_worse_p(good, bad, policy, envbisect::stats::Scale::log) < 0.006);
  // The other direction sees nothing.
  policy.higher_is_better = true;
  CHECK(tail_worse_p(good, bad, policy, envbisect::stats::Scale::log) == Approx(1.0));
}

TEST_CASE("tail_worse_p: identical anchors pass at no more than the test's level", "[stats][tail]") {
  VerdictPolicy policy;
  policy.higher_is_better = false;
  std::mt19937_64 rng(20261202);
  std::lognormal_distribution<double> noise(0.0, 0.15);
  int passed = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> good, bad;
    for (int i = 0; i < 10; ++i) {
      good.push_back(noise(rng));
      bad.push_back(noise(rng));
    }
    passed += tail_worse_p(good, bad, policy, envbisect::stats::Scale::log) <= 0.05 ? 1 : 0;
  }
  CHECK(static_cast<double>(passed) / trials <= 0.05);
}
