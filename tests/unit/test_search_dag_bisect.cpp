#include "search/dag_bisect.hpp"

#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
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

// Return whether `node` is `culprit` or descends from it.
bool descends(const std::vector<DagNode>& nodes, std::size_t node, std::size_t culprit) {
  if (node == culprit) {
    return true;
  }
  for (std::size_t parent : nodes[node].parents) {
    if (descends(nodes, parent, culprit)) {
      return true;
    }
  }
  return false;
}

// Bisect `nodes` with culprit `culprit`, checking no node is asked twice and the tip never.
DagBisection run(const std::vector<DagNode>& nodes, std::size_t culprit, const std::set<std::size_t>& skipped = {}) {
  std::set<std::size_t> asked;
  return envbisect::dag_first_bad(nodes, [&](std::size_t node) {
    REQUIRE(asked.insert(node).second);
    REQUIRE(node != nodes.size() - 1);
    if (skipped.count(node) != 0) {
      return Verdict::skip;
    }
    return descends(nodes, node, culprit) ? Verdict::bad : Verdict::good;
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
