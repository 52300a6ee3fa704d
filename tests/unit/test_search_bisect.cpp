#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "search/bisect.hpp"

using envbisect::Bisection;
using envbisect::Verdict;

namespace {

// A scripted ordered axis: bad from `first_bad` on, untestable at `untestable`. Fails the test when an
// index is asked twice or an assumed end is asked.
struct ScriptedAxis {
  std::size_t count;
  std::size_t first_bad;
  std::set<std::size_t> untestable;
  std::map<std::size_t, int> asked;

  Verdict operator()(std::size_t index) {
    CHECK(++asked[index] == 1);
    CHECK(index > 0);
    CHECK(index < count - 1);
    if (untestable.count(index) != 0) {
      return Verdict::skip;
    }
    return index >= first_bad ? Verdict::bad : Verdict::good;
  }
};

Bisection run(ScriptedAxis& axis) {
  return envbisect::first_bad(axis.count, [&axis](std::size_t i) { return axis(i); });
}

}  // namespace

TEST_CASE("first_bad finds every boundary within ceil(log2(n-1)) evaluations", "[search][bisect]") {
  for (std::size_t n : {2, 3, 8, 16, 17, 100, 1000}) {
    const int bound = static_cast<int>(std::ceil(std::log2(static_cast<double>(n - 1))));
    for (std::size_t boundary = 1; boundary < n; ++boundary) {
      ScriptedAxis axis{n, boundary, {}, {}};
      const Bisection result = run(axis);
      INFO("n " << n << " boundary " << boundary);
      REQUIRE(result.found);
      REQUIRE(result.first_bad == boundary);
      REQUIRE(result.last_good == boundary - 1);
      REQUIRE(result.evaluations <= bound);
      REQUIRE(result.note.empty());
    }
  }
}

TEST_CASE("first_bad records assumed ends and explains each question", "[search][bisect]") {
  ScriptedAxis axis{16, 11, {}, {}};
  const Bisection result = run(axis);
  REQUIRE(result.steps.size() == static_cast<std::size_t>(result.evaluations) + 2);
  CHECK(result.steps[0].assumed);
  CHECK(result.steps[0].index == 0);
  CHECK(result.steps[1].assumed);
  CHECK(result.steps[1].index == 15);
  CHECK(result.steps[2].index == 7);
  CHECK(result.steps[2].why == "bisect 1 to 15 (15): test midpoint 7");
}

TEST_CASE("first_bad probes the neighbours of an untestable midpoint", "[search][bisect]") {
  ScriptedAxis axis{16, 11, {7}, {}};
  const Bisection result = run(axis);
  CHECK(result.found);
  CHECK(result.first_bad == 11);
  REQUIRE(result.steps.size() >= 4);
  CHECK(result.steps[2].index == 7);
  CHECK(result.steps[3].index == 8);
  CHECK(result.steps[3].why == "bisect 1 to 15 (15): midpoint 7 untestable, test neighbour 8");
  CHECK(result.note.find("skip at 7") != std::string::npos);
  CHECK(result.evaluations <= 5);
}

TEST_CASE("first_bad steps over untestable points away from the boundary", "[search][bisect]") {
  ScriptedAxis axis{12, 9, {5, 6}, {}};
  const Bisection result = run(axis);
  CHECK(result.found);
  CHECK(result.first_bad == 9);
  CHECK(result.last_good == 8);
}

TEST_CASE("first_bad cannot see through untestable points at the boundary", "[search][bisect]") {
  // 5 and 6 untestable, first bad 7: the first bad could be 5, 6 or 7.
  ScriptedAxis axis{12, 7, {5, 6}, {}};
  const Bisection result = run(axis);
  CHECK_FALSE(result.found);
  CHECK(result.last_good == 4);
  CHECK(result.first_bad == 7);
  CHECK(result.note.find("could be any of 5 to 7 (3)") != std::string::npos);
}

TEST_CASE("first_bad boxed in by untestable points gives the range", "[search][bisect]") {
  ScriptedAxis axis{12, 6, {4, 5, 6, 7}, {}};
  const Bisection result = run(axis);
  CHECK_FALSE(result.found);
  CHECK(result.last_good == 3);
  CHECK(result.first_bad == 8);
  CHECK(result.note.find("could be any of 4 to 8 (5)") != std::string::npos);
}

TEST_CASE("first_bad treats unstable as untestable and intermediate as bad", "[search][bisect]") {
  const Bisection result = envbisect::first_bad(10, [](std::size_t index) {
    if (index == 4) {
      return Verdict::unstable;
    }
    if (index == 6) {
      return Verdict::intermediate;
    }
    return index >= 6 ? Verdict::bad : Verdict::good;
  });
  CHECK(result.found);
  CHECK(result.first_bad == 6);
  CHECK(result.note.find("unstable at 4") != std::string::npos);
  CHECK(result.note.find("intermediate at 6") != std::string::npos);
}

TEST_CASE("first_bad with fewer than two points finds nothing", "[search][bisect]") {
  const Bisection result = envbisect::first_bad(1, [](std::size_t) { return Verdict::bad; });
  CHECK_FALSE(result.found);
  CHECK(result.evaluations == 0);
}

TEST_CASE("first_bad is deterministic", "[search][bisect]") {
  auto once = [] {
    ScriptedAxis axis{50, 31, {25, 26, 30}, {}};
    return run(axis);
  };
  const Bisection a = once();
  const Bisection b = once();
  REQUIRE(a.steps.size() == b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    CHECK(a.steps[i].index == b.steps[i].index);
    CHECK(a.steps[i].why == b.steps[i].why);
  }
  CHECK(a.first_bad == 31);
}

TEST_CASE("first_bad asks first what git rev-list --bisect picks on a chain", "[search][bisect]") {
  // `git rev-list --bisect c_n ^c_0` on a linear history c_0..c_9 (git 2.39) picks, for n = 2..9:
  // c1 c2 c2 c2 c3 c3 c4 c4 -- with three candidates the newer of the two inner ones, not the older.
  const std::map<std::size_t, std::size_t> git = {{2, 1}, {3, 2}, {4, 2}, {5, 2}, {6, 3}, {7, 3}, {8, 4}, {9, 4}};
  for (const auto& [n, pick] : git) {
    std::vector<std::size_t> asked;
    envbisect::first_bad(n + 1, [&](std::size_t index) {
      asked.push_back(index);
      return Verdict::bad;
    });
    INFO("n " << n);
    REQUIRE_FALSE(asked.empty());
    CHECK(asked.front() == pick);
  }
}

TEST_CASE("first_bad names points through the caller's labels, never by index", "[search][bisect]") {
  // Versions v0..v11, first bad v7, v5 and v6 untestable: the note names the versions.
  const envbisect::PointLabel label = [](std::size_t index) { return "v" + std::to_string(index); };
  const Bisection result = envbisect::first_bad(
      12, [](std::size_t index) { return index == 5 || index == 6 ? Verdict::skip : index >= 7 ? Verdict::bad : Verdict::good; },
      label);
  CHECK_FALSE(result.found);
  CHECK(result.note.find("could be any of v5 to v7 (3)") != std::string::npos);
  CHECK(result.note.find("skip at v5: untestable") != std::string::npos);
  CHECK(result.steps[2].why.find("test midpoint v") != std::string::npos);
  CHECK(envbisect::describe_points(label, 3, 4) == "v3,v4");
  CHECK(envbisect::describe_points(label, 3, 3) == "v3");
}
