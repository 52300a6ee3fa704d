#include "search/dag_bisect.hpp"

#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

using envbisect::DagBisection;
using envbisect::DagNode;
using envbisect::Verdict;

namespace {

// A chain 0 <- 1 <- ... <- count-1.
std::vector<DagNode> chain(std::size_t count) {
  std::vector<DagNode> nodes(count);
  for (std::size_t i = 1; i < count; ++i) {
    nodes[i].parents = {i - 1};
  }
  return nodes;
}

// A range with merges (topological order; 13 is the tip):
//   0 - 1 - 2 ------ 6 - 7 --------- 12 - 13
//        \          /     \         /
//         3 - 4 - 5        8 - 9 - 10      11 (branched from 1, merged at 13)
std::vector<DagNode> merges() {
  return {{{}}, {{0}}, {{1}}, {{1}}, {{3}}, {{4}}, {{2, 5}}, {{6}}, {{7}}, {{8}}, {{9}}, {{1}}, {{7, 10}}, {{12, 11}}};
}

// Return, per node, whether it is `culprit` or descends from it (one pass in topological order).
std::vector<char> bad_commits(const std::vector<DagNode>& nodes, std::size_t culprit) {
  std::vector<char> bad(nodes.size(), 0);
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    bad[node] = node == culprit ? 1 : 0;
    for (std::size_t parent : nodes[node].parents) {
      bad[node] = bad[node] != 0 || bad[parent] != 0 ? 1 : 0;
    }
  }
  return bad;
}

// Bisect `nodes` with culprit `culprit`, checking no node is asked twice and the tip never.
DagBisection run(const std::vector<DagNode>& nodes, std::size_t culprit, const std::set<std::size_t>& skipped = {}) {
  std::set<std::size_t> asked;
  const std::vector<char> bad = bad_commits(nodes, culprit);
  return envbisect::dag_first_bad(nodes, [&](std::size_t node) {
    REQUIRE(asked.insert(node).second);
    REQUIRE(node != nodes.size() - 1);
    if (skipped.count(node) != 0) {
      return Verdict::skip;
    }
    return bad[node] != 0 ? Verdict::bad : Verdict::good;
  });
}

}  // namespace

TEST_CASE("dag_first_bad finds every culprit of a chain within ceil(log2(n)) questions", "[search][dag_bisect]") {
  for (std::size_t count = 1; count <= 40; ++count) {
    const std::vector<DagNode> nodes = chain(count);
    const int bound = static_cast<int>(std::ceil(std::log2(static_cast<double>(count))));
    for (std::size_t culprit = 0; culprit < count; ++culprit) {
      INFO("count " << count << " culprit " << culprit);
      const DagBisection result = run(nodes, culprit);
      REQUIRE(result.found);
      CHECK(result.first_bad == culprit);
      CHECK(result.evaluations <= bound);
      CHECK(result.evaluations == static_cast<int>(result.steps.size()));
    }
  }
}

TEST_CASE("dag_first_bad asks what git bisect asks: the first commit within one of halfway", "[search][dag_bisect]") {
  // 8 candidates: node 3 reaches 4 of them, an exact half.
  CHECK(run(chain(8), 7).steps.front().node == 3);
  CHECK(run(chain(8), 7).steps.front().why == "8 candidates: test 3, reaching 4 of them");
  // 5 candidates: nodes 1 (reach 2) and 2 (reach 3) are both within one of halfway (2w - 5 = -1, 1);
  // git's oldest-first sweep meets 1 first.
  CHECK(run(chain(5), 0).steps.front().node == 1);
}

TEST_CASE("dag_first_bad finds every culprit of a DAG with merges", "[search][dag_bisect]") {
  const std::vector<DagNode> nodes = merges();
  for (std::size_t culprit = 0; culprit < nodes.size(); ++culprit) {
    INFO("culprit " << culprit);
    const DagBisection result = run(nodes, culprit);
    REQUIRE(result.found);
    CHECK(result.first_bad == culprit);
    CHECK(result.evaluations <= 5);  // 14 commits: 4 on a chain, one more for the merges here
  }
  // First question: node 6 reaches {0..6}, 7 of 14 candidates.
  CHECK(run(nodes, 13).steps.front().node == 6);
}

TEST_CASE("dag_first_bad counts only the candidates left after good and bad answers", "[search][dag_bisect]") {
  const std::vector<DagNode> nodes = merges();
  // Culprit 11 (the late side branch): 6 is good, so {0..6} leave; then 7..13 and 11 remain.
  const DagBisection result = run(nodes, 11);
  REQUIRE(result.steps.size() >= 2);
  CHECK(result.steps[0].node == 6);
  CHECK(result.steps[0].verdict == Verdict::good);
  CHECK(result.steps[1].why.rfind("7 candidates:", 0) == 0);
  CHECK(result.first_bad == 11);
}

TEST_CASE("dag_first_bad moves to the next best split when one is untestable", "[search][dag_bisect]") {
  // Best split 3 is skipped; 2 and 4 tie at min 3; the newer, 4, is asked next.
  const DagBisection result = run(chain(8), 5, {3});
  REQUIRE(result.found);
  CHECK(result.first_bad == 5);
  REQUIRE(result.steps.size() >= 2);
  CHECK(result.steps[0].verdict == Verdict::skip);
  CHECK(result.steps[1].node == 4);
  CHECK(result.steps[1].why == "8 candidates: test 4, reaching 5 of them (best split 3 is untestable)");
  CHECK(result.note == "skip at 3: untestable");
}

TEST_CASE("dag_first_bad says 'could be any of' when boxed in by skips", "[search][dag_bisect]") {
  const DagBisection result = run(chain(8), 5, {4, 5});
  CHECK_FALSE(result.found);
  CHECK(result.could_be == std::vector<std::size_t>{4, 5, 6});
  CHECK(result.first_bad == 6);
  CHECK(result.note.rfind("boxed in by untestable commits: the first bad could be any of 4,5,6", 0) == 0);

  // In a DAG: everything but the tip untestable leaves the whole range.
  const std::vector<DagNode> nodes = merges();
  const DagBisection all = run(nodes, 13, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  CHECK_FALSE(all.found);
  CHECK(all.evaluations == 13);
  CHECK(all.could_be.size() == 14);
}

TEST_CASE("dag_first_bad finds culprits of a DAG around skipped commits", "[search][dag_bisect]") {
  const std::vector<DagNode> nodes = merges();
  for (std::size_t culprit = 0; culprit < nodes.size(); ++culprit) {
    if (culprit == 6 || culprit == 7) {
      continue;  // 7's only parent is 6: checked below
    }
    INFO("culprit " << culprit);
    const DagBisection result = run(nodes, culprit, {6});
    REQUIRE(result.found);
    CHECK(result.first_bad == culprit);
  }
  // Culprit 6 or 7 with 6 untestable: either could be first bad, as git would say.
  for (std::size_t culprit : {6U, 7U}) {
    const DagBisection boxed = run(nodes, culprit, {6});
    CHECK_FALSE(boxed.found);
    CHECK(boxed.could_be == std::vector<std::size_t>{6, 7});
  }
}

TEST_CASE("dag_first_bad treats intermediate as bad and unstable as untestable", "[search][dag_bisect]") {
  const DagBisection result = envbisect::dag_first_bad(chain(8), [](std::size_t node) {
    if (node == 5) {
      return Verdict::unstable;
    }
    return node >= 4 ? Verdict::intermediate : Verdict::good;
  });
  REQUIRE(result.found);
  CHECK(result.first_bad == 4);
  CHECK(result.note.find("unstable at 5: untestable") != std::string::npos);
  CHECK(result.note.find("intermediate at 4: treated as bad") != std::string::npos);
}

TEST_CASE("dag_first_bad asks nothing for a single commit and refuses unordered input", "[search][dag_bisect]") {
  const DagBisection single = envbisect::dag_first_bad(chain(1), [](std::size_t) -> Verdict {
    FAIL("asked");
    return Verdict::bad;
  });
  CHECK(single.found);
  CHECK(single.first_bad == 0);
  CHECK(single.evaluations == 0);
  CHECK_FALSE(envbisect::dag_first_bad({}, [](std::size_t) { return Verdict::bad; }).found);
  const std::vector<DagNode> unordered{{{1}}, {{}}};
  CHECK_THROWS_AS(envbisect::dag_first_bad(unordered, [](std::size_t) { return Verdict::bad; }), envbisect::Error);
}

// ---- k questions a round: dag_first_bad_k ----------------------------------------------------

using envbisect::DagKaryBisection;

namespace {

// A range shaped like bench/search's "merges" histories: a main line with side branches of 1..4
// commits forked from it and merged back (main moving on 0..3 commits meanwhile), about one step in
// three; topological order, the last node the tip. Deterministic in `seed`.
std::vector<DagNode> random_merges(std::size_t count, unsigned seed) {
  unsigned state = seed * 2654435761U + 1U;
  auto next_random = [&state] {
    state = state * 1103515245U + 12345U;
    return (state >> 16) & 0x7fffU;
  };
  std::vector<DagNode> nodes;
  auto add = [&nodes](std::vector<std::size_t> parents) {
    nodes.push_back(DagNode{std::move(parents)});
    return nodes.size() - 1;
  };
  std::size_t head = add({});
  while (nodes.size() < count) {
    const std::size_t left = count - nodes.size();
    if (left >= 4 && next_random() % 3 == 0) {
      const std::size_t side_len = std::min<std::size_t>(1 + next_random() % 4, left - 2);
      const std::size_t main_len = std::min<std::size_t>(next_random() % 4, left - 1 - side_len);
      std::size_t side = head;
      for (std::size_t i = 0; i < main_len; ++i) {
        head = add({head});
      }
      for (std::size_t i = 0; i < side_len; ++i) {
        side = add({side});
      }
      head = add({head, side});
    } else {
      head = add({head});
    }
  }
  return nodes;
}

// Bisect `nodes` k at a time with culprit `culprit`, checking that no node is asked twice, the tip
// never, no batch is empty or larger than k, and that rounds count the batches.
DagKaryBisection run_k(const std::vector<DagNode>& nodes, std::size_t k, std::size_t culprit,
                       const std::set<std::size_t>& skipped = {}) {
  std::set<std::size_t> asked;
  const std::vector<char> bad = bad_commits(nodes, culprit);
  int batches = 0;
  bool well_asked = true;  // one assertion per bisection, not per question: thousands run here
  DagKaryBisection result = envbisect::dag_first_bad_k(nodes, k, [&](const std::vector<std::size_t>& batch) {
    ++batches;
    well_asked = well_asked && !batch.empty() && batch.size() <= k;
    std::vector<Verdict> verdicts;
    for (std::size_t node : batch) {
      well_asked = well_asked && asked.insert(node).second && node != nodes.size() - 1;
      verdicts.push_back(skipped.count(node) != 0 ? Verdict::skip : bad[node] != 0 ? Verdict::bad : Verdict::good);
    }
    return verdicts;
  });
  REQUIRE(well_asked);
  CHECK(result.rounds == batches);
  CHECK(result.bisection.evaluations == static_cast<int>(asked.size()));
  return result;
}

// Require that two bisections asked the same questions and came to the same answer.
void require_same(const DagBisection& serial, const DagBisection& batched) {
  REQUIRE(serial.steps.size() == batched.steps.size());
  for (std::size_t i = 0; i < serial.steps.size(); ++i) {
    CHECK(serial.steps[i].node == batched.steps[i].node);
    CHECK(serial.steps[i].verdict == batched.steps[i].verdict);
    CHECK(serial.steps[i].why == batched.steps[i].why);
  }
  CHECK(serial.found == batched.found);
  CHECK(serial.first_bad == batched.first_bad);
  CHECK(serial.could_be == batched.could_be);
  CHECK(serial.note == batched.note);
  CHECK(serial.evaluations == batched.evaluations);
}

// The smallest r with (k+1)^r >= n: the rounds a (k+1)-way split needs for n candidates.
int log_k1_ceil(std::size_t n, std::size_t k) {
  int rounds = 0;
  for (std::size_t reach = 1; reach < n; reach *= k + 1) {
    ++rounds;
  }
  return rounds;
}

}  // namespace

TEST_CASE("dag_first_bad_k with k = 1 asks exactly dag_first_bad's questions", "[search][dag_bisect]") {
  std::vector<std::vector<DagNode>> ranges = {merges()};
  for (std::size_t count : {1U, 2U, 3U, 8U, 17U, 40U}) {
    ranges.push_back(chain(count));
  }
  for (unsigned seed = 1; seed <= 12; ++seed) {
    ranges.push_back(random_merges(10 + 7 * seed, seed));
  }
  for (const std::vector<DagNode>& nodes : ranges) {
    for (std::size_t culprit = 0; culprit < nodes.size(); ++culprit) {
      // Without skips, then with every third commit from the culprit's neighbourhood untestable.
      for (const std::set<std::size_t>& skipped :
           {std::set<std::size_t>{}, std::set<std::size_t>{culprit / 3, culprit / 2, (culprit + nodes.size()) / 2}}) {
        INFO("nodes " << nodes.size() << " culprit " << culprit << " skips " << skipped.size());
        const DagBisection serial = run(nodes, culprit, skipped);
        const DagKaryBisection batched = run_k(nodes, 1, culprit, skipped);
        require_same(serial, batched.bisection);
        CHECK(batched.rounds == serial.evaluations);
      }
    }
  }
}

TEST_CASE("dag_first_bad_k finds the serial culprit for every k, DAG and culprit", "[search][dag_bisect]") {
  std::vector<std::vector<DagNode>> ranges = {merges(), chain(30)};
  for (unsigned seed = 1; seed <= 16; ++seed) {
    ranges.push_back(random_merges(8 + 5 * seed, seed));
  }
  for (const std::vector<DagNode>& nodes : ranges) {
    for (std::size_t culprit = 0; culprit < nodes.size(); ++culprit) {
      const DagBisection serial = run(nodes, culprit);
      REQUIRE(serial.found);
      for (std::size_t k = 1; k <= 4; ++k) {
        INFO("nodes " << nodes.size() << " culprit " << culprit << " k " << k);
        const DagKaryBisection batched = run_k(nodes, k, culprit);
        REQUIRE(batched.bisection.found);
        CHECK(batched.bisection.first_bad == serial.first_bad);
        CHECK(batched.rounds <= serial.evaluations);
      }
    }
  }
}

TEST_CASE("dag_first_bad_k around skips: never a wrong culprit, the true one among 'could be'", "[search][dag_bisect]") {
  for (unsigned seed = 1; seed <= 16; ++seed) {
    const std::vector<DagNode> nodes = random_merges(12 + 4 * seed, seed);
    for (std::size_t culprit = 0; culprit < nodes.size(); ++culprit) {
      const std::set<std::size_t> skipped = {culprit, (culprit + 1) % (nodes.size() - 1), nodes.size() / 2,
                                             (culprit * 7 + seed) % (nodes.size() - 1)};
      const DagBisection serial = run(nodes, culprit, skipped);
      for (std::size_t k = 1; k <= 4; ++k) {
        INFO("seed " << seed << " culprit " << culprit << " k " << k);
        const DagBisection batched = run_k(nodes, k, culprit, skipped).bisection;
        if (batched.found) {
          CHECK(batched.first_bad == culprit);
        } else {
          CHECK(std::count(batched.could_be.begin(), batched.could_be.end(), culprit) == 1);
          CHECK(batched.note.rfind("boxed in by untestable commits", 0) == 0);
        }
        if (serial.found && batched.found) {
          CHECK(serial.first_bad == batched.first_bad);
        }
      }
    }
  }
}

TEST_CASE("dag_first_bad_k on a chain needs about log_{k+1} rounds", "[search][dag_bisect]") {
  for (std::size_t k : {2U, 3U, 4U}) {
    for (std::size_t count : {2U, 5U, 9U, 16U, 27U, 64U, 100U, 125U, 257U}) {
      const std::vector<DagNode> nodes = chain(count);
      int worst = 0;
      for (std::size_t culprit = 0; culprit < count; ++culprit) {
        INFO("k " << k << " count " << count << " culprit " << culprit);
        const DagKaryBisection result = run_k(nodes, k, culprit);
        REQUIRE(result.bisection.found);
        CHECK(result.bisection.first_bad == culprit);
        worst = std::max(worst, result.rounds);
      }
      INFO("k " << k << " count " << count);
      CHECK(worst <= log_k1_ceil(count, k) + 1);
    }
  }
  // 27 commits, 2 slots: 27 -> 9 -> 3 -> 1 candidates, exactly log_3(27) rounds for every culprit.
  for (std::size_t culprit = 0; culprit < 27; ++culprit) {
    CHECK(run_k(chain(27), 2, culprit).rounds <= 3);
  }
}

TEST_CASE("dag_first_bad_k spreads a round's questions over the candidates", "[search][dag_bisect]") {
  // 9 commits, 2 slots: reaches closest to 3 and 6 -- nodes 2 and 5 -- both asked in round 1.
  const DagKaryBisection result = run_k(chain(9), 2, 8);
  REQUIRE(result.bisection.steps.size() >= 2);
  CHECK(result.bisection.steps[0].node == 2);
  CHECK(result.bisection.steps[1].node == 5);
  CHECK(result.bisection.steps[0].why == "round 1, 2 at once over 9 candidates: test 2, reaching 3 of them (aim 3)");
  CHECK(result.bisection.steps[1].why == "round 1, 2 at once over 9 candidates: test 5, reaching 6 of them (aim 6)");
  // Round 2 over 6..8 (7 and 6 untested) asks both: found in two rounds.
  CHECK(result.rounds == 2);
  CHECK(result.bisection.first_bad == 8);
}

TEST_CASE("dag_first_bad_k intersects the ancestries of bad commits on different lines", "[search][dag_bisect]") {
  //   0 - 1 - 2 - 4 (tip)
  //        \     /
  //         3 --
  const std::vector<DagNode> nodes{{{}}, {{0}}, {{1}}, {{1}}, {{2, 3}}};
  // 3 slots ask 0, 3 and 2: 0 good, 2 and 3 bad leave only their common ancestor 1, never asked.
  const DagKaryBisection inferred = run_k(nodes, 3, 1);
  REQUIRE(inferred.bisection.found);
  CHECK(inferred.bisection.first_bad == 1);
  CHECK(inferred.rounds == 1);
  CHECK(inferred.bisection.evaluations == 3);
  CHECK(inferred.bisection.note == "1 inferred, not asked: the only candidate ancestor of the bad commits 2,3");

  // 4 slots ask all four; 1 untestable is then boxed in by its bad children, as git would list it.
  const DagKaryBisection boxed = run_k(nodes, 4, 1, {1});
  CHECK_FALSE(boxed.bisection.found);
  CHECK(boxed.bisection.could_be == std::vector<std::size_t>{1, 2, 3});
  CHECK(boxed.bisection.first_bad == 2);
  CHECK(boxed.bisection.note.rfind("boxed in by untestable commits: the first bad could be any of 1,2,3", 0) == 0);

  // 0 and 1 both untestable under bad 2 and 3: both could be first bad, and (were they good) 2 or 3.
  const DagKaryBisection two_left = run_k(nodes, 4, 0, {0, 1});
  CHECK_FALSE(two_left.bisection.found);
  CHECK(two_left.bisection.could_be == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(two_left.bisection.first_bad == 2);
}

TEST_CASE("dag_first_bad_k: intermediate is bad, contradictions end the search", "[search][dag_bisect]") {
  const DagKaryBisection result = envbisect::dag_first_bad_k(chain(8), 2, [](const std::vector<std::size_t>& batch) {
    std::vector<Verdict> verdicts;
    for (std::size_t node : batch) {
      verdicts.push_back(node >= 4 ? Verdict::intermediate : Verdict::good);
    }
    return verdicts;
  });
  REQUIRE(result.bisection.found);
  CHECK(result.bisection.first_bad == 4);
  CHECK(result.bisection.note.find("intermediate at 4: treated as bad") != std::string::npos);

  // 0 bad but its descendant 1 good: no commit can be the first bad.
  const std::vector<DagNode> nodes{{{}}, {{0}}, {{1}}, {{1}}, {{2, 3}}};
  const DagKaryBisection contradiction = envbisect::dag_first_bad_k(nodes, 4, [](const std::vector<std::size_t>& batch) {
    std::vector<Verdict> verdicts;
    for (std::size_t node : batch) {
      verdicts.push_back(node == 1 ? Verdict::good : Verdict::bad);
    }
    return verdicts;
  });
  CHECK_FALSE(contradiction.bisection.found);
  CHECK(contradiction.bisection.first_bad == 0);
  CHECK(contradiction.bisection.could_be == std::vector<std::size_t>{0});
  CHECK(contradiction.bisection.note.rfind("contradictory verdicts", 0) == 0);

  // A short answer counts the missing verdicts as skips; k = 0 is taken as 1.
  const DagKaryBisection short_answer =
      envbisect::dag_first_bad_k(chain(4), 0, [](const std::vector<std::size_t>&) { return std::vector<Verdict>{}; });
  CHECK_FALSE(short_answer.bisection.found);
  CHECK(short_answer.bisection.evaluations == 3);
  CHECK(short_answer.rounds == 3);
}

TEST_CASE("dag_first_bad names commits through the caller's labels in its notes and reasons", "[search][dag_bisect]") {
  const std::vector<DagNode> nodes = chain(8);
  const std::vector<char> bad = bad_commits(nodes, 5);
  const DagBisection result = envbisect::dag_first_bad(
      nodes,
      [&](std::size_t node) { return node == 4 || node == 5 ? Verdict::skip : bad[node] != 0 ? Verdict::bad : Verdict::good; },
      [](std::size_t node) { return "c" + std::to_string(node); });
  CHECK_FALSE(result.found);
  CHECK(result.note.rfind("boxed in by untestable commits: the first bad could be any of c4,c5,c6", 0) == 0);
  CHECK(result.note.find("skip at c4: untestable") != std::string::npos);
  REQUIRE_FALSE(result.steps.empty());
  CHECK(result.steps.front().why.find(": test c") != std::string::npos);
}
