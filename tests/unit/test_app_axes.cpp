#include "app/run/plan/axes.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/isolate.hpp"

using envbisect::Axis;
using envbisect::Bisection;
using envbisect::KaryBisection;
using envbisect::Verdict;

namespace {

// A commit axis with merges: points 0 (the good end) .. 14 (the bad end), each point's in-range
// parents as indices into points (the DAG of test_search_dag_bisect's merges(), shifted by one).
//   1 - 2 - 3 ------ 7 - 8 --------- 13 - 14
//        \          /     \         /
//         4 - 5 - 6        9 - 10 - 11     12 (branched from 2, merged at 14)
Axis merge_axis() {
  Axis axis;
  axis.kind = "commits";
  for (int point = 0; point <= 14; ++point) {
    axis.points.push_back("c" + std::to_string(point));
  }
  axis.parents = {{}, {1}, {2}, {2}, {4}, {5}, {3, 6}, {7}, {8}, {9}, {10}, {2}, {8, 11}, {13, 12}};
  return axis;
}

// Return whether point `point` of the axis is `culprit` or descends from it.
bool descends(const Axis& axis, std::size_t point, std::size_t culprit) {
  if (point == culprit) {
    return true;
  }
  for (std::size_t parent : axis.parents[point - 1]) {
    if (descends(axis, parent, culprit)) {
      return true;
    }
  }
  return false;
}

// Bisect the axis k points a round with first bad `culprit`; no point is asked twice, no end asked.
KaryBisection run_k(const Axis& axis, std::size_t k, std::size_t culprit) {
  std::set<std::size_t> asked;
  return envbisect::bisect_axis_k(axis, k, [&](const std::vector<std::size_t>& indices) {
    CHECK(indices.size() <= std::max<std::size_t>(k, 1));
    std::vector<Verdict> verdicts;
    for (std::size_t index : indices) {
      CHECK(asked.insert(index).second);
      CHECK(index > 0);
      CHECK(index + 1 < axis.points.size());
      verdicts.push_back(descends(axis, index, culprit) ? Verdict::bad : Verdict::good);
    }
    return verdicts;
  });
}

}  // namespace

TEST_CASE("bisect_axis_k finds bisect_axis's first bad on a merge DAG, in fewer rounds", "[app][axes]") {
  const Axis axis = merge_axis();
  for (std::size_t culprit = 1; culprit <= 14; ++culprit) {
    INFO("culprit " << culprit);
    const Bisection serial =
        envbisect::bisect_axis(axis, [&](std::size_t index) { return descends(axis, index, culprit) ? Verdict::bad : Verdict::good; });
    REQUIRE(serial.found);
    CHECK(serial.first_bad == culprit);
    // One slot asks the same points in the same order.
    const KaryBisection one = run_k(axis, 1, culprit);
    REQUIRE(one.bisection.steps.size() == serial.steps.size());
    for (std::size_t i = 0; i < serial.steps.size(); ++i) {
      CHECK(one.bisection.steps[i].index == serial.steps[i].index);
    }
    CHECK(one.rounds == serial.evaluations);
    for (std::size_t k : {2U, 4U}) {
      const KaryBisection batched = run_k(axis, k, culprit);
      REQUIRE(batched.bisection.found);
      CHECK(batched.bisection.first_bad == culprit);
      CHECK(batched.bisection.last_good == serial.last_good);  // the first bad's first parent
      CHECK(batched.rounds <= serial.evaluations);
      // The assumed ends come first, then the questions in the axis's indices.
      REQUIRE(batched.bisection.steps.size() >= 2);
      CHECK(batched.bisection.steps[0].assumed);
      CHECK(batched.bisection.steps[1].index == 14);
      CHECK(batched.bisection.evaluations == static_cast<int>(batched.bisection.steps.size()) - 2);
    }
  }
}

TEST_CASE("bisect_axis_k searches a chain k points a round", "[app][axes]") {
  Axis axis;
  axis.kind = "numbers";
  for (int point = 1; point <= 28; ++point) {
    axis.points.push_back(std::to_string(point));
  }
  const KaryBisection result = envbisect::bisect_axis_k(axis, 2, [](const std::vector<std::size_t>& indices) {
    std::vector<Verdict> verdicts;
    for (std::size_t index : indices) {
      verdicts.push_back(index >= 20 ? Verdict::bad : Verdict::good);
    }
    return verdicts;
  });
  REQUIRE(result.bisection.found);
  CHECK(result.bisection.first_bad == 20);
  CHECK(result.bisection.last_good == 19);
  CHECK(result.rounds == 3);  // 27 gaps, 3 slots' worth of thirds: log_3(27)
}

TEST_CASE("a thread knob from 1 to 10^7 or 2^63-1 is a range, bisected by arithmetic", "[app][axes]") {
  for (const std::int64_t top : {std::int64_t{10000000}, std::numeric_limits<std::int64_t>::max()}) {
    INFO("top " << top);
    envbisect::EnvState good;
    envbisect::EnvState bad;
    good.threads["workers"] = 1;
    bad.threads["workers"] = top;
    const std::vector<envbisect::Delta> deltas = envbisect::diff_states(good, bad);
    const std::vector<Axis> axes = envbisect::plan_axes(deltas, good, bad, {}, envbisect::FirstParent::no);
    REQUIRE(axes.size() == 1);
    const Axis& axis = axes.front();
    CHECK(axis.kind == "numbers");
    CHECK(axis.points.empty());  // nothing listed
    CHECK(axis.size() == static_cast<std::size_t>(top));
    CHECK(axis.point(0) == "1");
    CHECK(axis.point(axis.size() - 1) == std::to_string(top));
    CHECK(axis.point(41) == "42");
    CHECK_THROWS(axis.point(axis.size()));
    CHECK(envbisect::describe_axis_points(axis, 64) ==
          "1 < 2 < ... < " + std::to_string(top - 1) + " < " + std::to_string(top) + " (" + std::to_string(top) + " points)");
    CHECK(envbisect::axis_points_json(axis)["count"] == axis.size());
    // The first bad thread count is found in about log2(size) questions, serially and k at a time.
    const std::size_t culprit = axis.size() / 3 + 7;
    const Bisection serial = envbisect::bisect_axis(axis, [&](std::size_t index) {
      return index >= culprit ? Verdict::bad : Verdict::good;
    });
    REQUIRE(serial.found);
    CHECK(serial.first_bad == culprit);
    CHECK(serial.evaluations <= 64);
    const KaryBisection batched = envbisect::bisect_axis_k(axis, 4, [&](const std::vector<std::size_t>& indices) {
      std::vector<Verdict> verdicts;
      for (std::size_t index : indices) {
        verdicts.push_back(index >= culprit ? Verdict::bad : Verdict::good);
      }
      return verdicts;
    });
    REQUIRE(batched.bisection.found);
    CHECK(batched.bisection.first_bad == culprit);
    CHECK(batched.rounds <= 32);
    CHECK(envbisect::with_axis_point(good, deltas, axis, culprit).threads.at("workers") ==
          static_cast<std::int64_t>(culprit) + 1);
    // Untestable points around the middle are stepped over without listing the interval.
    const Bisection skipping = envbisect::bisect_axis(axis, [&](std::size_t index) {
      const std::size_t mid = (axis.size() - 1) / 2;
      if (index + 3 >= mid && index <= mid + 3) {
        return Verdict::skip;
      }
      return index >= culprit ? Verdict::bad : Verdict::good;
    });
    CHECK(skipping.found);
    CHECK(skipping.first_bad == culprit);
  }
  // A downward range counts down.
  envbisect::EnvState good;
  envbisect::EnvState bad;
  good.threads["t"] = 9;
  bad.threads["t"] = 3;
  const std::vector<Axis> axes = envbisect::plan_axes(envbisect::diff_states(good, bad), good, bad, {}, envbisect::FirstParent::no);
  REQUIRE(axes.size() == 1);
  CHECK(envbisect::describe_axis_points(axes.front(), 64) == "9 < 8 < 7 < 6 < 5 < 4 < 3");
  CHECK(envbisect::axis_points_json(axes.front()) == nlohmann::json({"9", "8", "7", "6", "5", "4", "3"}));
}

TEST_CASE("isolation_worst_case holds for every placement of 1 to 3 culprits among 1 to 9 differences",
          "[app][axes]") {
  // The promise --dry-run prints and --budget counts on: no placement asks more, and one difference
  // (the whole cause is the anchors' difference) asks nothing.
  // Both ways of asking: plain, and on failure rates (bad minus the first needed delta first).
  CHECK(envbisect::isolation_worst_case(1, 1) == 0);
  for (const bool complement : {false, true}) {
    envbisect::IsolateOptions options;
    if (complement) {
      options.complement_first = [] { return true; };
    }
    for (std::size_t d = 1; d <= 9; ++d) {
      for (std::size_t k = 1; k <= std::min<std::size_t>(3, d); ++k) {
        int worst = 0;
        std::vector<char> pick(d, 0);
        std::fill(pick.end() - static_cast<std::ptrdiff_t>(k), pick.end(), 1);
        do {
          const envbisect::Isolation isolation = envbisect::isolate(d, [&](const envbisect::DeltaSet& applied) {
            for (std::size_t i = 0; i < d; ++i) {
              if (pick[i] != 0 && std::find(applied.begin(), applied.end(), i) == applied.end()) {
                return Verdict::good;
              }
            }
            return Verdict::bad;
          }, options);
          REQUIRE(isolation.found);
          worst = std::max(worst, isolation.evaluations);
        } while (std::next_permutation(pick.begin(), pick.end()));
        INFO("D = " << d << ", K = " << k << (complement ? ", bad minus the needed delta first" : ""));
        CHECK(worst <= envbisect::isolation_worst_case(d, k));
      }
    }
  }
}
