// Rounds of the k-ary bisection with k slots, counted on a scripted oracle (no time is simulated: what
// k slots save in wall time is measured on real `envbisect run --slots k` runs by bench/parallel/run.sh).
//
//   bench_parallel   for k = 1, 2, 4 and N = 16, 64, 256, 1024 points (the first bad at every
//       position 1..N), bisect with kary_first_bad.
//       Prints one row per (k, N): worst and mean rounds, the target ceil(log_{k+1} N) and mean
//       evaluations; then a second table: commit DAGs with
//       merges, generated as bench/search generates them (same generator, seed 20261129), N = 64, 256,
//       1024 commits, every culprit, bisected with dag_first_bad_k for k = 1, 2, 4 (k = 1 asks what
//       git bisect asks): worst and mean rounds, the target ceil(log_{k+1} N), mean evaluations and
//       the mean rounds of k = 1 over those of k; then, last, "rounds_k4_n256: X" (the worst number of
//       rounds for k = 4, N = 256 over every culprit position of the linear axis).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../search/history.hpp"
#include "search/dag_bisect.hpp"
#include "search/kary.hpp"

namespace {

using envbisect::Verdict;

int target_rounds(std::size_t n, std::size_t k) {
  int rounds = 0;
  std::size_t reach = 1;
  while (reach < n) {
    reach *= k + 1;
    ++rounds;
  }
  return rounds;
}

struct Outcome {
  int rounds = 0;
  int evaluations = 0;
};

// Bisect an axis of n + 1 points (0 good, n bad) whose first bad is `culprit`, k questions a round.
Outcome bisect(std::size_t n, std::size_t k, std::size_t culprit) {
  auto oracle = [&](const std::vector<std::size_t>& indices) {
    std::vector<Verdict> verdicts;
    for (std::size_t index : indices) {
      verdicts.push_back(index >= culprit ? Verdict::bad : Verdict::good);
    }
    return verdicts;
  };
  envbisect::KaryBisection result = envbisect::kary_first_bad(n + 1, k, oracle);
  if (!result.bisection.found || result.bisection.first_bad != culprit) {
    std::fprintf(stderr, "wrong answer: n %zu k %zu culprit %zu got %zu\n", n, k, culprit, result.bisection.first_bad);
    std::exit(1);
  }
  Outcome out;
  out.rounds = result.rounds;
  out.evaluations = result.bisection.evaluations;
  return out;
}

// Return the range good..main of bench/search's "merges" history of `count` commits (its make_repo,
// same random draws): commits 1..count as nodes 0..count-1, the root (the good commit) left out.
std::vector<envbisect::DagNode> merge_dag(int count, unsigned seed) {
  std::mt19937 rng(seed);
  const std::vector<std::vector<int>> parents = envbisect::bench::generate_history(count, true, rng);
  std::vector<envbisect::DagNode> nodes;
  for (std::size_t commit = 1; commit < parents.size(); ++commit) {
    envbisect::DagNode node;
    for (int parent : parents[commit]) {
      if (parent > 0) {
        node.parents.push_back(static_cast<std::size_t>(parent) - 1);
      }
    }
    nodes.push_back(node);
  }
  return nodes;
}

// Bisect the DAG with first bad `culprit` (bad: the culprit and its descendants), k questions a round.
Outcome bisect_dag(const std::vector<envbisect::DagNode>& nodes, std::size_t k, std::size_t culprit) {
  std::vector<char> bad(nodes.size(), 0);
  for (std::size_t node = culprit; node < nodes.size(); ++node) {
    bad[node] = node == culprit ? 1 : 0;
    for (std::size_t parent : nodes[node].parents) {
      bad[node] = bad[node] != 0 || bad[parent] != 0 ? 1 : 0;
    }
  }
  auto oracle = [&](const std::vector<std::size_t>& batch) {
    std::vector<Verdict> verdicts;
    for (std::size_t node : batch) {
      verdicts.push_back(bad[node] != 0 ? Verdict::bad : Verdict::good);
    }
    return verdicts;
  };
  const envbisect::DagKaryBisection result = envbisect::dag_first_bad_k(nodes, k, oracle);
  if (!result.bisection.found || result.bisection.first_bad != culprit) {
    std::fprintf(stderr, "wrong answer on a DAG: n %zu k %zu culprit %zu got %zu\n", nodes.size(), k, culprit,
                 result.bisection.first_bad);
    std::exit(1);
  }
  Outcome out;
  out.rounds = result.rounds;
  out.evaluations = result.bisection.evaluations;
  return out;
}

// Print the DAG table: rounds of dag_first_bad_k for k = 1, 2, 4 over every culprit of each range.
void dag_table() {
  std::printf("\ncommit DAGs with merges (bench/search's generator, seed 20261129), every culprit position\n");
  std::printf("%-3s %-6s %-12s %-12s %-7s %-10s %s\n", "k", "N", "worst_rounds", "mean_rounds", "target",
              "mean_evals", "rounds_k1_over_k");
  std::map<int, double> k1_rounds;
  for (std::size_t k : {1, 2, 4}) {
    for (int n : {64, 256, 1024}) {
      const std::vector<envbisect::DagNode> nodes = merge_dag(n, 20261129U);
      int worst = 0;
      double rounds_sum = 0.0;
      double evals_sum = 0.0;
      for (std::size_t culprit = 0; culprit < nodes.size(); ++culprit) {
        const Outcome outcome = bisect_dag(nodes, k, culprit);
        worst = std::max(worst, outcome.rounds);
        rounds_sum += outcome.rounds;
        evals_sum += outcome.evaluations;
      }
      const double mean = rounds_sum / static_cast<double>(nodes.size());
      if (k == 1) {
        k1_rounds[n] = mean;
      }
      std::printf("%-3zu %-6d %-12d %-12.2f %-7d %-10.2f %.2fx\n", k, n, worst, mean,
                  target_rounds(static_cast<std::size_t>(n), k), evals_sum / static_cast<double>(nodes.size()),
                  k1_rounds[n] / mean);
    }
  }
}

}  // namespace

int main() {
  std::printf("linear axes, every culprit position\n");
  std::printf("%-3s %-6s %-12s %-12s %-7s %s\n", "k", "N", "worst_rounds", "mean_rounds", "target", "mean_evals");
  int rounds_k4_n256 = 0;
  for (std::size_t k : {1, 2, 4}) {
    for (std::size_t n : {16, 64, 256, 1024}) {
      int worst = 0;
      double rounds_sum = 0.0;
      double evals_sum = 0.0;
      for (std::size_t culprit = 1; culprit <= n; ++culprit) {
        const Outcome outcome = bisect(n, k, culprit);
        worst = std::max(worst, outcome.rounds);
        rounds_sum += outcome.rounds;
        evals_sum += outcome.evaluations;
      }
      if (k == 4 && n == 256) {
        rounds_k4_n256 = worst;
      }
      std::printf("%-3zu %-6zu %-12d %-12.2f %-7d %.2f\n", k, n, worst, rounds_sum / n, target_rounds(n, k),
                  evals_sum / n);
    }
  }
  dag_table();
  std::printf("rounds_k4_n256: %d\n", rounds_k4_n256);
  return 0;
}
