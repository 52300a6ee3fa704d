#pragma once

#include <cstddef>
#include <vector>

namespace envbisect::stats {

// The result of comparing two independent samples x and y with the Mann-Whitney U test.
struct RankTest {
  double u = 0.0;            // U of x: pairs with x_i > y_j, plus half the ties
  double p_two_sided = 1.0;  // P(|U - mean| >= observed) under "same distribution"
  double p_greater = 1.0;    // P(U >= observed): small when x tends to be larger than y
  double p_less = 1.0;       // P(U <= observed): small when x tends to be smaller than y
  bool exact = true;         // false when the normal approximation was used (large samples)
};

// The largest pooled sample size for which mann_whitney() enumerates the exact distribution.
inline constexpr std::size_t k_exact_limit = 60;

// Compare x with y by the Mann-Whitney U test. Exact for up to k_exact_limit pooled values: the
// permutation distribution of the rank sum, with mid-ranks for ties, so small samples get true
// p-values rather than the normal approximation. Beyond that, the tie-corrected normal
// approximation with continuity correction. An empty x or y gives p-values of 1.
RankTest mann_whitney(const std::vector<double>& x, const std::vector<double>& y);

// Return how many of the C(n1+n2, n1) arrangements without ties give U = 0, 1, ..., n1*n2: the
// null distribution that published critical-value tables are built from.
std::vector<double> u_null_counts(std::size_t n1, std::size_t n2);

// Return the two-sided p-value of Fisher's exact test for failures k1 of n1 runs against k2 of
// n2 runs (1 when either group is empty): small when the failure rates differ.
double fisher_exact(std::size_t k1, std::size_t n1, std::size_t k2, std::size_t n2);

// Return the one-sided p-value of Fisher's exact test that group 1 (k1 failures of n1 runs) fails
// less often than group 2 (k2 of n2): P(at most k1 of all failures fall in group 1); 1 when either
// group is empty.
double fisher_fewer(std::size_t k1, std::size_t n1, std::size_t k2, std::size_t n2);

}  // namespace envbisect::stats
