#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "search/bisect.hpp"
#include "search/kary.hpp"

using envbisect::KaryBisection;
using envbisect::Verdict;

namespace {

// A scripted ordered axis asked in batches: bad from `first_bad` on, untestable at `untestable`. Fails
// the test when an index is asked twice, an end is asked, or a batch is larger than k.
struct ScriptedBatchAxis {
  std::size_t count;
  std::size_t first_bad;
  std::size_t k;
  std::set<std::size_t> untestable;
  std::map<std::size_t, int> asked;

  std::vector<Verdict> operator()(const std::vector<std::size_t>& indices) {
    CHECK(!indices.empty());
    CHECK(indices.size() <= k);
    std::vector<Verdict> out;
    for (std::size_t index : indices) {
      CHECK(++asked[index] == 1);
      CHECK(index > 0);
      CHECK(index < count - 1);
      out.push_back(untestable.count(index) != 0 ? Verdict::skip
                    : index >= first_bad         ? Verdict::bad
                                                 : Verdict::good);
    }
    return out;
  }
};

KaryBisection run(ScriptedBatchAxis& axis) {
  return envbisect::kary_first_bad(axis.count, axis.k, [&axis](const std::vector<std::size_t>& i) { return axis(i); });
}

// ceil(log_{k+1}(n)) with integers only: the smallest r with (k+1)^r >= n.
int rounds_bound(std::size_t n, std::size_t k) {
  int r = 0;
  std::size_t reach = 1;
  while (reach < n) {
    reach *= k + 1;
    ++r;
  }
  return r;
}

}  // namespace

TEST_CASE("kary_first_bad finds every boundary within ceil(log_{k+1}(n-1)) rounds", "[search][kary]") {
  for (std::size_t k : {1, 2, 3, 4, 8}) {
    for (std::size_t n : {2, 3, 5, 8, 17, 100, 257}) {
      for (std::size_t first = 1; first < n; ++first) {
        ScriptedBatchAxis axis{n, first, k, {}, {}};
        KaryBisection result = run(axis);
        INFO("k " << k << " n " << n << " first bad " << first);
        CHECK(result.bisection.found);
        CHECK(result.bisection.first_bad == first);
        CHECK(result.bisection.last_good == first - 1);
        CHECK(result.rounds <= rounds_bound(n - 1, k));
        CHECK(result.bisection.evaluations == static_cast<int>(axis.asked.size()));
      }
    }
  }
}

TEST_CASE("kary_first_bad with k = 1 asks exactly what first_bad asks", "[search][kary]") {
  for (std::size_t n : {3, 10, 64, 100}) {
    for (std::size_t first = 1; first < n; ++first) {
      ScriptedBatchAxis axis{n, first, 1, {}, {}};
      KaryBisection kary = run(axis);
      envbisect::Bisection serial =
          envbisect::first_bad(n, [first](std::size_t i) { return i >= first ? Verdict::bad : Verdict::good; });
      REQUIRE(kary.bisection.steps.size() == serial.steps.size());
      for (std::size_t i = 0; i < serial.steps.size(); ++i) {
        CHECK(kary.bisection.steps[i].index == serial.steps[i].index);
      }
    }
  }
}

TEST_CASE("kary_probes spreads k points evenly and skips points already asked", "[search][kary]") {
  CHECK(envbisect::kary_probes(0, 10, 1, {}) == std::vector<std::size_t>{5});
  CHECK(envbisect::kary_probes(0, 9, 2, {}) == std::vector<std::size_t>{3, 6});
  CHECK(envbisect::kary_probes(0, 256, 4, {}) == std::vector<std::size_t>{51, 102, 153, 204});
  CHECK(envbisect::kary_probes(0, 3, 4, {}) == std::vector<std::size_t>{1, 2});  // fewer points than slots
  CHECK(envbisect::kary_probes(0, 10, 1, {5}) == std::vector<std::size_t>{4});
  CHECK(envbisect::kary_probes(4, 5, 3, {}).empty());
}

TEST_CASE("kary_first_bad steps around untestable points and reports a box when boxed in", "[search][kary]") {
  ScriptedBatchAxis around{20, 9, 2, {6, 7, 13}, {}};
  KaryBisection found = run(around);
  CHECK(found.bisection.found);
  CHECK(found.bisection.first_bad == 9);

  ScriptedBatchAxis boxed{12, 6, 3, {4, 5}, {}};
  KaryBisection box = run(boxed);
  CHECK_FALSE(box.bisection.found);
  CHECK(box.bisection.last_good == 3);
  CHECK(box.bisection.first_bad == 6);
  CHECK(box.bisection.note.find("could be any of 4 to 6 (3)") != std::string::npos);
}

TEST_CASE("kary_first_bad treats intermediate as bad and notes it", "[search][kary]") {
  KaryBisection result = envbisect::kary_first_bad(30, 3, [](const std::vector<std::size_t>& indices) {
    std::vector<Verdict> out;
    for (std::size_t i : indices) {
      out.push_back(i >= 20 ? Verdict::bad : i >= 11 ? Verdict::intermediate : Verdict::good);
    }
    return out;
  });
  CHECK(result.bisection.found);
  CHECK(result.bisection.first_bad == 11);
  CHECK(result.bisection.note.find("intermediate at") != std::string::npos);
}
