#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "stats/mann_whitney.hpp"

using namespace envbisect::stats;

namespace {

// Return P(U <= u) from the null counts of (n1, n2).
double cumulative(std::size_t n1, std::size_t n2, std::size_t u) {
  const std::vector<double> counts = u_null_counts(n1, n2);
  const double all = std::accumulate(counts.begin(), counts.end(), 0.0);
  return std::accumulate(counts.begin(), counts.begin() + static_cast<long>(u) + 1, 0.0) / all;
}

// Return the critical U of a two-tailed test at 0.05: the largest u with 2 P(U <= u) <= 0.05, or -1.
int critical_u(std::size_t n1, std::size_t n2) {
  int critical = -1;
  for (std::size_t u = 0; u <= n1 * n2 / 2; ++u) {
    if (2.0 * cumulative(n1, n2, u) <= 0.05 + 1e-12) {
      critical = static_cast<int>(u);
    }
  }
  return critical;
}

}  // namespace

TEST_CASE("u_null_counts gives the permutation law of U", "[stats][mann_whitney]") {
  CHECK(u_null_counts(3, 3) == std::vector<double>{1, 1, 2, 3, 3, 3, 3, 2, 1, 1});
  const std::vector<double> counts = u_null_counts(5, 5);
  CHECK(std::accumulate(counts.begin(), counts.end(), 0.0) == 252.0);  // C(10, 5)
}

TEST_CASE("exact P(U <= u) matches Mann & Whitney (1947), table I, n=m=4", "[stats][mann_whitney]") {
  const double published[] = {0.014, 0.029, 0.057, 0.100, 0.171, 0.243, 0.343, 0.443, 0.557};
  for (std::size_t u = 0; u < 9; ++u) {
    CHECK(cumulative(4, 4, u) == Approx(published[u]).margin(0.0005));
  }
  // n=3, m=5 (same table): P(U <= 0) = 1/56 = .018, P(U <= 2) = .071.
  CHECK(cumulative(3, 5, 0) == Approx(0.018).margin(0.0005));
  CHECK(cumulative(3, 5, 2) == Approx(0.071).margin(0.0005));
}

TEST_CASE("critical U values match the published two-tailed 0.05 table", "[stats][mann_whitney]") {
  struct Row { std::size_t n1, n2; int u; };
  // Standard Mann-Whitney critical-value table, alpha = 0.05 two-tailed ("-": none, -1 here).
  const Row table[] = {{3, 3, -1}, {3, 5, 0}, {3, 6, 1}, {3, 8, 2}, {3, 10, 3}, {4, 4, 0},
                       {4, 5, 1},  {4, 6, 2}, {4, 8, 4}, {4, 10, 5}, {5, 5, 2}, {5, 7, 5},
                       {5, 10, 8}, {6, 6, 5}, {6, 9, 10}, {7, 7, 8}, {7, 10, 14}, {8, 8, 13},
                       {8, 10, 17}, {10, 10, 23}};
  for (const Row& row : table) {
    INFO("n1=" << row.n1 << " n2=" << row.n2);
    CHECK(critical_u(row.n1, row.n2) == row.u);
  }
}

TEST_CASE("mann_whitney gives exact p-values for separated samples", "[stats][mann_whitney]") {
  const RankTest t = mann_whitney({1, 2, 3}, {4, 5, 6, 7, 8});
  CHECK(t.exact);
  CHECK(t.u == 0.0);
  CHECK(t.p_less == Approx(1.0 / 56.0));
  CHECK(t.p_two_sided == Approx(2.0 / 56.0));
  CHECK(t.p_greater == Approx(1.0));
  // Five against five without overlap: the smallest two-sided p, 2/252.
  CHECK(mann_whitney({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}).p_two_sided == Approx(2.0 / 252.0));
}

TEST_CASE("mann_whitney uses mid-ranks and the exact law with ties", "[stats][mann_whitney]") {
  // Pooled {1,2,2,2,3,3}: mid-ranks 1,3,3,3,5.5,5.5; x = {1,2,2} has rank sum 7, U = 1.
  // Of the C(6,3) = 20 equally likely splits, 3 reach a sum <= 7 ({1,3,3} in 3 ways).
  const RankTest t = mann_whitney({1, 2, 2}, {2, 3, 3});
  CHECK(t.u == 1.0);
  CHECK(t.p_less == Approx(3.0 / 20.0));
  CHECK(mann_whitney({5, 5}, {5, 5}).p_two_sided == Approx(1.0));
}

TEST_CASE("mann_whitney is symmetric in its arguments", "[stats][mann_whitney]") {
  const std::vector<double> x{1.1, 0.9, 1.3, 1.0}, y{1.2, 1.5, 1.4, 1.6, 0.95};
  CHECK(mann_whitney(x, y).p_less == Approx(mann_whitney(y, x).p_greater));
  CHECK(mann_whitney(x, y).p_two_sided == Approx(mann_whitney(y, x).p_two_sided));
  CHECK(mann_whitney(x, y).u + mann_whitney(y, x).u == Approx(20.0));
}

TEST_CASE("mann_whitney falls back to the normal approximation for large samples", "[stats][mann_whitney]") {
  std::vector<double> x, y;
  for (int i = 0; i < 40; ++i) {
    x.push_back(i);
    y.push_back(i + 30);
  }
  const RankTest t = mann_whitney(x, y);
  CHECK_FALSE(t.exact);
  CHECK(t.p_less < 1e-6);
  CHECK(mann_whitney({}, {1.0}).p_two_sided == 1.0);
}

TEST_CASE("fisher_exact compares failure counts", "[stats][mann_whitney]") {
  CHECK(fisher_exact(0, 5, 5, 5) == Approx(2.0 / 252.0));
  CHECK(fisher_exact(0, 5, 2, 5) == Approx(20.0 / 45.0));  // 2 of 5 crashes: not told apart
  CHECK(fisher_exact(0, 5, 0, 5) == Approx(1.0));
  CHECK(fisher_exact(0, 0, 1, 5) == 1.0);
}
