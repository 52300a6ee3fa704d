// k-ary bisection with k slots on a simulated oracle whose every run takes a fixed time.
//
//   bench_parallel RUN_MS   for k = 1, 2, 4 and N = 16, 64, 256, 1024 points (the first bad at every
//       position 1..N), bisect with kary_first_bad; each round's k questions run side by side on k
//       threads, each sleeping RUN_MS (a benchmark run). Wall time is measured for every N on a sample
//       of 8 culprit positions (rounds and evaluations over all positions, which need no sleeping).
//       Prints one row per (k, N): worst and mean rounds, the target ceil(log_{k+1} N), mean
//       evaluations, mean wall seconds, and speed-up over k = 1; then a second table: commit DAGs with
//       merges, generated as bench/search generates them (same generator, seed 20261129), N = 64, 256,
//       1024 commits, every culprit, bisected with dag_first_bad_k for k = 1, 2, 4 (k = 1 asks what
//       git bisect asks): worst and mean rounds, the target ceil(log_{k+1} N), mean evaluations and
//       the mean rounds of k = 1 over those of k; then, last, "rounds_k4_n256: X" (the worst number of
//       rounds for k = 4, N = 256 over every culprit position of the linear axis).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>
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
  double wall = 0.0;
};

// Bisect an axis of n + 1 points (0 good, n bad) whose first bad is `culprit`; with `run_ms` > 0 each
// question sleeps that long on its own thread, the questions of one round side by side.
Outcome bisect(std::size_t n, std::size_t k, std::size_t culprit, int run_ms) {
  const auto start = std::chrono::steady_clock::now();
  auto oracle = [&](const std::vector<std::size_t>& indices) {
    std::vector<Verdict> verdicts(indices.size());
    std::vector<std::thread> slots;
    for (std::size_t i = 0; i < indices.size(); ++i) {
      slots.emplace_back([&, i] {
        if (run_ms > 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(run_ms));
        }
        verdicts[i] = indices[i] >= culprit ? Verdict::bad : Verdict::good;
      });
    }
    for (std::thread& slot : slots) {
      slot.join();
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
  out.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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

int main(int argc, char** argv) {
  const int run_ms = argc > 1 ? std::atoi(argv[1]) : 50;
  std::printf("simulated run time %d ms; every culprit position for rounds, 8 positions timed\n", run_ms);
  std::printf("%-3s %-6s %-12s %-12s %-7s %-10s %-11s %s\n", "k", "N", "worst_rounds", "mean_rounds", "target",
              "mean_evals", "mean_wall_s", "speedup_vs_k1");
  std::map<std::size_t, double> k1_wall;
  int rounds_k4_n256 = 0;
  for (std::size_t k : {1, 2, 4}) {
    for (std::size_t n : {16, 64, 256, 1024}) {
      int worst = 0;
      double rounds_sum = 0.0;
      double evals_sum = 0.0;
      for (std::size_t culprit = 1; culprit <= n; ++culprit) {
        const Outcome outcome = bisect(n, k, culprit, 0);
        worst = std::max(worst, outcome.rounds);
        rounds_sum += outcome.rounds;
        evals_sum += outcome.evaluations;
      }
      double wall_sum = 0.0;
      for (std::size_t sample = 1; sample <= 8; ++sample) {
        wall_sum += bisect(n, k, std::max<std::size_t>(1, sample * n / 8 - sample + 1), run_ms).wall;
      }
      const double wall = wall_sum / 8;
      if (k == 1) {
        k1_wall[n] = wall;
      }
      if (k == 4 && n == 256) {
        rounds_k4_n256 = worst;
      }
      std::printf("%-3zu %-6zu %-12d %-12.2f %-7d %-10.2f %-11.3f %.2fx\n", k, n, worst, rounds_sum / n,
                  target_rounds(n, k), evals_sum / n, wall, k1_wall[n] / wall);
    }
  }
  dag_table();
  std::printf("rounds_k4_n256: %d\n", rounds_k4_n256);
  return 0;
}
