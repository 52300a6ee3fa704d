#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "search/informed.hpp"
#include "search/isolate.hpp"
#include "util/error.hpp"

using envbisect::DeltaSet;
using envbisect::InformedAnswer;
using envbisect::Isolation;
using envbisect::Verdict;

namespace {

bool contains_all(const DeltaSet& applied, const DeltaSet& needed) {
  return std::includes(applied.begin(), applied.end(), needed.begin(), needed.end());
}

std::string plain_name(const DeltaSet& set) { return envbisect::describe(set); }

// Every k-subset of 0..n-1.
std::vector<DeltaSet> subsets(std::size_t n, std::size_t k) {
  std::vector<DeltaSet> out;
  std::vector<char> pick(n, 0);
  std::fill(pick.end() - static_cast<std::ptrdiff_t>(k), pick.end(), 1);
  do {
    DeltaSet set;
    for (std::size_t i = 0; i < n; ++i) {
      if (pick[i] != 0) {
        set.push_back(i);
      }
    }
    out.push_back(set);
  } while (std::next_permutation(pick.begin(), pick.end()));
  return out;
}

// Run the informed search on a monotone world with one cause; fail on a repeated or anchor question.
std::optional<DeltaSet> informed(std::size_t n, const DeltaSet& cause, int* asked = nullptr) {
  std::set<DeltaSet> seen;
  DeltaSet all(n);
  std::iota(all.begin(), all.end(), std::size_t{0});
  auto result = envbisect::informed_cause(
      n,
      [&](const DeltaSet& applied, const std::string& why) {
        CHECK(std::is_sorted(applied.begin(), applied.end()));
        CHECK(seen.insert(applied).second);
        CHECK(!applied.empty());
        CHECK(applied != all);
        CHECK(!why.empty());
        return contains_all(applied, cause) ? InformedAnswer::bad : InformedAnswer::good;
      },
      plain_name);
  if (asked != nullptr) {
    *asked = static_cast<int>(seen.size());
  }
  return result;
}

}  // namespace

TEST_CASE("prefix length weights favour the lengths where small causes end", "[search][informed]") {
  // Nothing found: length 0 is the good anchor; length j holds every cause whose last member is j-1.
  const std::vector<double> first = envbisect::prefix_length_weights(8, 0, 8);
  REQUIRE(first.size() == 9);
  CHECK(first[0] == 0.0);
  CHECK(std::is_sorted(first.begin() + 1, first.end()));  // later lengths end more causes
  // One found: length 0 (the found delta alone is the cause) weighs what a single cause weighs.
  const std::vector<double> second = envbisect::prefix_length_weights(8, 1, 5);
  CHECK(second[0] > 0.0);
  CHECK(second[0] == Approx(first[1]));  // one particular cause of one member
  CHECK(second[0] > second[1]);          // a pair is less likely than the single cause
}

TEST_CASE("threshold trees bisect evenly weighted outcomes and lean toward heavy ones within their limits", "[search][informed]") {
  const std::vector<double> even(8, 1.0);
  const envbisect::ThresholdTree balanced(even, 0, 8, 8);
  REQUIRE_FALSE(balanced.infeasible());
  CHECK(balanced.split(0, 7, 0) == 3);  // "at most 3?" halves 0..7
  CHECK(balanced.split(4, 7, 1) == 5);
  std::vector<double> heavy(8, 1.0);
  heavy[7] = 100.0;
  CHECK(envbisect::ThresholdTree(heavy, 0, 8, 8).split(0, 7, 0) == 6);  // the heavy outcome settled first
  // At most three questions deep: eight outcomes leave no room to lean, the split stays in the middle.
  CHECK(envbisect::ThresholdTree(heavy, 0, 3, 3).split(0, 7, 0) == 3);
  // Outcome 0 within one question: it is asked first, whatever its weight.
  std::vector<double> light_zero(8, 1.0);
  light_zero[0] = 0.01;
  CHECK(envbisect::ThresholdTree(light_zero, 0, 1, 8).split(0, 7, 0) == 0);
  CHECK(envbisect::ThresholdTree(light_zero, 0, 8, 8).split(0, 7, 0) != 0);
  // Eight outcomes cannot be told apart in two questions.
  CHECK(envbisect::ThresholdTree(even, 0, 2, 2).infeasible());
}

TEST_CASE("informed search finds every cause of one to three members exactly", "[search][informed]") {
  for (std::size_t n = 1; n <= 14; ++n) {
    for (std::size_t k = 1; k <= std::min<std::size_t>(3, n); ++k) {
      for (const DeltaSet& cause : subsets(n, k)) {
        INFO(n << " deltas, cause " << envbisect::describe(cause));
        const std::optional<DeltaSet> found = informed(n, cause);
        REQUIRE(found);
        REQUIRE(*found == cause);
      }
    }
  }
}

TEST_CASE("informed search finds random causes among up to 64 deltas", "[search][informed]") {
  std::mt19937 rng(20261202);
  for (std::size_t n : {20U, 40U, 64U}) {
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<std::size_t> order(n);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::shuffle(order.begin(), order.end(), rng);
      DeltaSet cause(order.begin(), order.begin() + 1 + trial % 5);  // 1..5 members
      std::sort(cause.begin(), cause.end());
      INFO(n << " deltas, cause " << envbisect::describe(cause));
      const std::optional<DeltaSet> found = informed(n, cause);
      REQUIRE(found);
      REQUIRE(*found == cause);
    }
  }
}

TEST_CASE("informed search gives up on an untestable answer", "[search][informed]") {
  for (std::size_t n : {8U, 20U}) {
    int asked = 0;
    const auto skipped = envbisect::informed_cause(
        n, [&](const DeltaSet&, const std::string&) { return ++asked, InformedAnswer::other; }, plain_name);
    CHECK_FALSE(skipped);
    CHECK(asked == 1);  // nothing more is asked after the first untestable answer
  }
  CHECK_THROWS_AS(informed(0, {0}), envbisect::Error);
  CHECK_THROWS_AS(informed(65, {0}), envbisect::Error);
}

TEST_CASE("isolate finds the exact cause for every placement among few deltas, whatever its size", "[search][isolate]") {
  // The informed search, its fallback (four or more members) and the robust search agree with the
  // world: every placement, every size, found and verified both ways, no question asked twice.
  for (std::size_t n = 1; n <= 9; ++n) {
    for (std::size_t k = 1; k <= n; ++k) {
      for (const DeltaSet& cause : subsets(n, k)) {
        std::map<DeltaSet, int> asked;
        const Isolation result = envbisect::isolate(n, [&](const DeltaSet& applied) {
          CHECK(++asked[applied] == 1);
          return contains_all(applied, cause) ? Verdict::bad : Verdict::good;
        });
        INFO(n << " deltas, cause " << envbisect::describe(cause));
        REQUIRE(result.found);
        REQUIRE(result.causes == std::vector<DeltaSet>{cause});
        REQUIRE(result.verified_forward);
        REQUIRE(result.verified_reverse);
        REQUIRE(result.evaluations == static_cast<int>(asked.size()));
      }
    }
  }
}

TEST_CASE("isolate finds two independent causes among few deltas", "[search][isolate]") {
  // Bad when either cause is applied: the informed search names one (or falls back), the robust
  // search the other.
  for (const auto& causes : std::vector<std::vector<DeltaSet>>{{{1}, {6}}, {{0, 3}, {5}}, {{2, 4}, {1, 7}}}) {
    const Isolation result = envbisect::isolate(8, [&](const DeltaSet& applied) {
      return std::any_of(causes.begin(), causes.end(), [&](const DeltaSet& c) { return contains_all(applied, c); })
                 ? Verdict::bad
                 : Verdict::good;
    });
    INFO("causes " << envbisect::describe(causes[0]) << " " << envbisect::describe(causes[1]));
    CHECK(result.found);
    std::vector<DeltaSet> got = result.causes;
    std::sort(got.begin(), got.end());
    std::vector<DeltaSet> want = causes;
    std::sort(want.begin(), want.end());
    CHECK(got == want);
  }
}

TEST_CASE("isolate asks at most one question more than the plain bisection at worst, fewer on average for pairs and triples", "[search][isolate]") {
  // Every placement of K interacting deltas among D (verification included). Means measured with the
  // informed search (docs/PERFORMANCE.md, bench/search); the plain prefix bisection took 4.75, 8.00
  // and 11.00 for one, two and three among 8, 5.875, 10.16 and 14.24 among 16, 7.35 and 13.01 for one
  // and two among 40. The worst case is one question more than the plain bisection's,
  // K*(ceil(log2 D)+1)+2, what --dry-run and --budget count on (isolation_worst_case).
  struct Row {
    std::size_t deltas;
    std::size_t members;
    double mean;
  };
  for (const Row& row : std::vector<Row>{{8, 1, 5.0}, {8, 2, 7.679}, {8, 3, 9.929}, {16, 1, 6.063},
                                         {16, 2, 9.909}, {16, 3, 13.468}, {40, 1, 7.375}, {40, 2, 12.738}}) {
    double total = 0.0;
    int worst = 0;
    const std::vector<DeltaSet> placements = subsets(row.deltas, row.members);
    for (const DeltaSet& cause : placements) {
      const Isolation result = envbisect::isolate(row.deltas, [&](const DeltaSet& applied) {
        return contains_all(applied, cause) ? Verdict::bad : Verdict::good;
      });
      REQUIRE(result.causes == std::vector<DeltaSet>{cause});
      total += result.evaluations;
      worst = std::max(worst, result.evaluations);
    }
    const double mean = total / static_cast<double>(placements.size());
    const int depth = static_cast<int>(std::ceil(std::log2(static_cast<double>(row.deltas))));
    INFO(row.members << " among " << row.deltas << ": mean " << mean << ", worst " << worst);
    CHECK(mean <= row.mean);
    CHECK(worst <= static_cast<int>(row.members) * (depth + 1) + 2);
  }
}

TEST_CASE("on failure rates isolate asks bad minus the first needed delta first, and its good answer is the reverse check", "[search][isolate]") {
  // A good answer on failure rates takes many clean runs, a bad one a few failures. With
  // complement_first the good answer that pins a one-delta cause is "bad minus it", which the reverse
  // verification then finds in the memo: never more good answers than the plain order, fewer in all,
  // and no more questions.
  envbisect::IsolateOptions rates;
  rates.complement_first = [] { return true; };
  const auto good_answers = [](const Isolation& result) {
    std::set<DeltaSet> good;
    for (const envbisect::SearchStep& step : result.steps) {
      if (!step.assumed && step.verdict == Verdict::good) {
        good.insert(step.applied);
      }
    }
    return good.size();
  };
  std::size_t plain_total = 0, rates_total = 0;
  long plain_questions = 0, rates_questions = 0;
  for (std::size_t n = 2; n <= 12; ++n) {
    for (std::size_t k = 1; k <= std::min<std::size_t>(3, n); ++k) {
      for (const DeltaSet& cause : subsets(n, k)) {
        const auto world = [&](const DeltaSet& applied) { return contains_all(applied, cause) ? Verdict::bad : Verdict::good; };
        std::map<DeltaSet, int> asked;
        const Isolation on = envbisect::isolate(n, [&](const DeltaSet& applied) {
          CHECK(++asked[applied] == 1);
          return world(applied);
        }, rates);
        INFO(n << " deltas, cause " << envbisect::describe(cause));
        REQUIRE(on.found);
        REQUIRE(on.causes == std::vector<DeltaSet>{cause});
        REQUIRE(on.verified_reverse);
        if (k == 1) {
          const Isolation off = envbisect::isolate(n, world);
          CHECK(good_answers(on) <= good_answers(off));
          plain_total += good_answers(off);
          rates_total += good_answers(on);
          plain_questions += off.evaluations;
          rates_questions += on.evaluations;
        }
      }
    }
  }
  // 166 plain, 139 with bad minus the needed delta first.
  INFO("good answers, one-delta causes among 2..12: plain " << plain_total << ", bad minus it first " << rates_total);
  INFO("questions: plain " << plain_questions << ", bad minus it first " << rates_questions);
  CHECK(static_cast<double>(rates_total) <= 0.85 * static_cast<double>(plain_total));
  // ... and no more questions in all (378 each): a later member's "bad minus it" would add 11.
  CHECK(rates_questions <= plain_questions);
}
