// Compare envbisect's searches with the tools people use today, counting evaluations.
//
//   bench_search repo N linear|merges CULPRIT SEED   print a `git fast-import` stream: a root commit
//       (tag `good`), then commits 1..N on refs/heads/main (the tip is bad); file `marker` says "bad"
//       in commit CULPRIT and every descendant of it, "good" elsewhere; tag `culprit` marks CULPRIT.
//       "merges" adds side branches merged back into main (about one commit in three is on a side).
//   bench_search dag REPO PREDICATE                   bisect `good..main` of REPO with dag_first_bad over
//       commits_between; every question checks the commit out (checkout_commit) and runs
//       `sh PREDICATE` in it, as `git bisect run` would. Print "evaluations E first_bad ID".
//   bench_search chain REPO PREDICATE                 the same along the first-parent chain with the chain
//       bisection (first_bad), as a linear commit axis of `envbisect run` is searched.
//   bench_search sets SEED                            K = 1, 2, 3 interacting culprits among D = 8, 16,
//       40 deltas (bad iff all K present): isolate()'s evaluations vs textbook ddmin's over many
//       placements; print a table and, last, "ddmin_worst_ratio R" (worst over (K, D) of the ratio of
//       mean evaluations, ours / ddmin).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "history.hpp"
#include "env/git_checkout.hpp"
#include "env/git_history.hpp"
#include "exec/runner.hpp"
#include "search/bisect.hpp"
#include "search/dag_bisect.hpp"
#include "search/isolate.hpp"
#include "util/error.hpp"

namespace {

namespace fs = std::filesystem;
using envbisect::DeltaSet;
using envbisect::Verdict;

// ---- repo: the generated history -------------------------------------------------------------

int make_repo(int count, const std::string& shape, int culprit, unsigned seed) {
  std::mt19937 rng(seed);
  // parents[i] for commits 0..count (0 is the good root); creation order is a topological order.
  const std::vector<std::vector<int>> parents = envbisect::bench::generate_history(count, shape == "merges", rng);
  std::vector<char> bad(parents.size(), 0);
  for (std::size_t i = 1; i < parents.size(); ++i) {
    bad[i] = static_cast<int>(i) == culprit ? 1 : 0;
    for (int parent : parents[i]) {
      bad[i] = bad[i] != 0 || bad[static_cast<std::size_t>(parent)] != 0 ? 1 : 0;
    }
  }
  // Only main's tip is a ref; commits are marks 1..count+1 (mark = commit number + 1).
  for (std::size_t i = 0; i < parents.size(); ++i) {
    const std::string marker = bad[i] != 0 ? "bad\n" : "good\n";
    std::printf("commit refs/heads/main\nmark :%zu\ncommitter t <t@example.com> %zu +0000\n", i + 1,
                static_cast<std::size_t>(1700000000) + i * 60);
    const std::string message = "commit " + std::to_string(i) + "\n";
    std::printf("data %zu\n%s", message.size(), message.c_str());
    if (!parents[i].empty()) {
      std::printf("from :%d\n", parents[i][0] + 1);
      for (std::size_t p = 1; p < parents[i].size(); ++p) {
        std::printf("merge :%d\n", parents[i][p] + 1);
      }
    }
    const std::string id = std::to_string(i) + "\n";  // the predicate logs it: the question sequence
    std::printf("deleteall\nM 644 inline marker\ndata %zu\n%s\nM 644 inline id\ndata %zu\n%s\n", marker.size(),
                marker.c_str(), id.size(), id.c_str());
  }
  // Main's tip is the last commit made.
  std::printf("reset refs/heads/main\nfrom :%d\n\n", count + 1);
  std::printf("reset refs/tags/good\nfrom :1\n\nreset refs/tags/culprit\nfrom :%d\n\n", culprit + 1);
  return 0;
}

// ---- dag: envbisect over the generated history ----------------------------------------------

int bisect_repo(const std::string& repo, const std::string& predicate, bool chain) {
  const envbisect::CommitRange range =
      envbisect::commits_between(repo, "good", "main", chain ? envbisect::FirstParent::yes : envbisect::FirstParent::no);
  std::vector<envbisect::DagNode> nodes;
  for (const envbisect::RangeCommit& commit : range.commits) {
    nodes.push_back(envbisect::DagNode{commit.parents});
  }
  const fs::path scratch = fs::temp_directory_path() / ("bench-search-" + std::to_string(::getpid()));
  envbisect::LocalRunner runner;
  int asked = 0;
  const envbisect::DagOracle oracle = [&](std::size_t node) {
    const fs::path dir = scratch / std::to_string(asked++);
    envbisect::checkout_commit(repo, range.commits[node].id, dir.string());
    envbisect::ProcessSpec spec;
    spec.argv = {"sh", predicate};
    spec.env = envbisect::allowed_parent_env();
    if (const char* log = std::getenv("PREDICATE_LOG"); log != nullptr) {
      spec.env["PREDICATE_LOG"] = log;  // the predicate counts its runs there, for both tools alike
    }
    spec.cwd = dir.string();
    const envbisect::ProcessResult result = runner.run(spec);
    fs::remove_all(dir);
    if (!result.spawned || result.signal != 0 || result.exit_code >= 128) {
      throw envbisect::Error("predicate " + predicate + " did not run", envbisect::ExitCode::environment);
    }
    return result.exit_code == 0 ? Verdict::good : result.exit_code == 125 ? Verdict::skip : Verdict::bad;
  };
  if (chain) {
    // The chain code of a linear (or first-parent) commit axis: point 0 is the good commit, point i
    // the range's commit i-1, the last point the bad tip.
    const envbisect::Bisection found =
        envbisect::first_bad(nodes.size() + 1, [&](std::size_t index) { return oracle(index - 1); });
    fs::remove_all(scratch);
    std::printf("commits %zu evaluations %d first_bad %s\n", nodes.size(), found.evaluations,
                found.found ? range.commits[found.first_bad - 1].id.c_str() : "none");
    return 0;
  }
  const envbisect::DagBisection found = envbisect::dag_first_bad(nodes, oracle);
  fs::remove_all(scratch);
  std::printf("commits %zu evaluations %d first_bad %s\n", nodes.size(), found.evaluations,
              found.found ? range.commits[found.first_bad].id.c_str() : "none");
  return 0;
}

// ---- sets: isolate() vs ddmin ---------------------------------------------------------------

// A memoising test function over delta sets; counts distinct sets asked.
struct SetTester {
  std::vector<std::size_t> culprits;
  std::map<DeltaSet, bool> memo;
  int asked = 0;

  // Return true when `set` fails (contains every culprit).
  bool fails(DeltaSet set) {
    std::sort(set.begin(), set.end());
    if (auto it = memo.find(set); it != memo.end()) {
      return it->second;
    }
    const bool bad = std::all_of(culprits.begin(), culprits.end(),
                                 [&](std::size_t c) { return std::binary_search(set.begin(), set.end(), c); });
    memo.emplace(set, bad);
    ++asked;
    return bad;
  }
};

// Zeller & Hildebrandt 2002, ddmin: reduce to a failing subset, else a failing complement, else
// double the granularity, until the granularity reaches the set size. The full set is assumed to fail
// (recorded, not counted); every distinct test after that is counted once (a cache, as in the paper).
DeltaSet ddmin(std::size_t count, SetTester& tester) {
  DeltaSet current(count);
  for (std::size_t i = 0; i < count; ++i) {
    current[i] = i;
  }
  tester.memo.emplace(current, true);
  std::size_t n = 2;
  while (current.size() >= 2) {
    std::vector<DeltaSet> subsets;
    const std::size_t size = current.size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t begin = i * size / n;
      const std::size_t end = (i + 1) * size / n;
      subsets.emplace_back(current.begin() + static_cast<std::ptrdiff_t>(begin),
                           current.begin() + static_cast<std::ptrdiff_t>(end));
    }
    bool reduced = false;
    for (const DeltaSet& subset : subsets) {
      if (tester.fails(subset)) {
        current = subset;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      for (const DeltaSet& subset : subsets) {
        DeltaSet complement;
        std::set_difference(current.begin(), current.end(), subset.begin(), subset.end(),
                            std::back_inserter(complement));
        if (tester.fails(complement)) {
          current = complement;
          n = std::max<std::size_t>(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= size) {
        break;
      }
      n = std::min(n * 2, size);
    }
  }
  return current;
}

int compare_sets(unsigned seed) {
  std::mt19937 rng(seed);
  double worst_ratio = 0.0;
  double worst_single = 0.0;
  double worst_info = 0.0;
  std::printf("%-3s %-3s %-10s %-9s %-9s %-10s %-9s %-8s %-9s %-13s %-11s %-10s %s\n", "K", "D", "placements", "ours_mean",
              "ours_max", "ddmin_mean", "ddmin_max", "ratio", "K*log2D", "ours_vs_KlogD", "verify_mean", "info_bound",
              "vs_info_bound");
  for (std::size_t k : {1U, 2U, 3U}) {
    for (std::size_t d : {8U, 16U, 40U}) {
      // Every placement when there are few, else 300 seeded random ones.
      std::vector<std::vector<std::size_t>> placements;
      const double combos = std::round(std::tgamma(d + 1.0) / (std::tgamma(k + 1.0) * std::tgamma(d - k + 1.0)));
      if (combos <= 300) {
        std::vector<char> pick(d, 0);
        std::fill(pick.end() - static_cast<std::ptrdiff_t>(k), pick.end(), 1);
        do {
          std::vector<std::size_t> placement;
          for (std::size_t i = 0; i < d; ++i) {
            if (pick[i] != 0) {
              placement.push_back(i);
            }
          }
          placements.push_back(placement);
        } while (std::next_permutation(pick.begin(), pick.end()));
      } else {
        for (int p = 0; p < 300; ++p) {
          std::vector<std::size_t> all(d);
          for (std::size_t i = 0; i < d; ++i) {
            all[i] = i;
          }
          std::shuffle(all.begin(), all.end(), rng);
          all.resize(k);
          std::sort(all.begin(), all.end());
          placements.push_back(all);
        }
      }
      long ours_total = 0;
      long ddmin_total = 0;
      long verify_total = 0;  // isolate()'s questions that verify a found cause (ddmin verifies nothing)
      int ours_max = 0;
      int ddmin_max = 0;
      for (const std::vector<std::size_t>& culprits : placements) {
        SetTester tester{culprits, {}, 0};
        const DeltaSet minimal = ddmin(d, tester);
        if (minimal != culprits) {
          std::printf("ddmin found %s, expected %s\n", envbisect::describe(minimal).c_str(),
                      envbisect::describe(culprits).c_str());
          return 1;
        }
        const envbisect::Oracle oracle = [&](const DeltaSet& applied) {
          return std::all_of(culprits.begin(), culprits.end(),
                             [&](std::size_t c) { return std::binary_search(applied.begin(), applied.end(), c); })
                     ? Verdict::bad
                     : Verdict::good;
        };
        const envbisect::Isolation isolation = envbisect::isolate(d, oracle);
        if (!isolation.found || isolation.cause != culprits) {
          std::printf("isolate found %s, expected %s\n", envbisect::describe(isolation.cause).c_str(),
                      envbisect::describe(culprits).c_str());
          return 1;
        }
        for (const envbisect::SearchStep& step : isolation.steps) {
          verify_total += !step.assumed && step.why.rfind("verify", 0) == 0 ? 1 : 0;
        }
        ours_total += isolation.evaluations;
        ddmin_total += tester.asked;
        ours_max = std::max(ours_max, isolation.evaluations);
        ddmin_max = std::max(ddmin_max, tester.asked);
        worst_single = std::max(worst_single, static_cast<double>(isolation.evaluations) / tester.asked);
      }
      const double count = static_cast<double>(placements.size());
      const double ratio = static_cast<double>(ours_total) / static_cast<double>(ddmin_total);
      const double bound = static_cast<double>(k) * std::log2(static_cast<double>(d));
      worst_ratio = std::max(worst_ratio, ratio);
      // The information bound: telling C(D, K) placements apart takes ceil(log2 C(D, K)) yes/no answers,
      // plus one to confirm; the mean counts every question isolate() asks, its verification included.
      const double info_bound = std::ceil(std::log2(combos)) + 1.0;
      const double vs_info = static_cast<double>(ours_total) / count / info_bound;
      worst_info = std::max(worst_info, vs_info);
      std::printf("%-3zu %-3zu %-10zu %-9.2f %-9d %-10.2f %-9d %-8.3f %-9.2f %-13.2f %-11.2f %-10.0f %.2f\n", k, d,
                  placements.size(), static_cast<double>(ours_total) / count, ours_max,
                  static_cast<double>(ddmin_total) / count, ddmin_max, ratio, bound,
                  static_cast<double>(ours_total) / count / bound, static_cast<double>(verify_total) / count, info_bound,
                  vs_info);
    }
  }
  std::printf("worst single placement ratio %.3f\n", worst_single);
  std::printf("ddmin_worst_ratio %.3f\n", worst_ratio);
  std::printf("info_bound_worst_ratio %.3f\n", worst_info);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 5 && args[0] == "repo") {
      return make_repo(std::stoi(args[1]), args[2], std::stoi(args[3]), static_cast<unsigned>(std::stoul(args[4])));
    }
    if (args.size() == 3 && (args[0] == "dag" || args[0] == "chain")) {
      return bisect_repo(args[1], args[2], args[0] == "chain");
    }
    if (args.size() == 2 && args[0] == "sets") {
      return compare_sets(static_cast<unsigned>(std::stoul(args[1])));
    }
  } catch (const envbisect::Error& error) {
    std::fprintf(stderr, "bench_search: error: %s\n", error.what());
    return 2;
  }
  std::fprintf(stderr, "usage: bench_search repo N linear|merges CULPRIT SEED | dag|chain REPO PREDICATE | sets SEED\n");
  return 2;
}
