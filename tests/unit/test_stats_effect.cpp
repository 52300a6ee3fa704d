#include <catch2/catch.hpp>

#include <cmath>

#include "stats/effect.hpp"

using namespace envbisect::stats;

TEST_CASE("the exact Mann-Whitney cut matches the published critical values", "[stats][effect]") {
  // Two-sided 5 % critical values of U (Mann & Whitney 1947 tables): the cut is the value + 1.
  CHECK(mann_whitney_rank_cut(4, 4, 0.95) == 1);    // U = 0
  CHECK(mann_whitney_rank_cut(5, 5, 0.95) == 3);    // U = 2
  CHECK(mann_whitney_rank_cut(8, 6, 0.95) == 9);    // U = 8
  CHECK(mann_whitney_rank_cut(10, 10, 0.95) == 24); // U = 23
  // Too few runs for any 95 % interval: even the most extreme arrangement is likelier than 2.5 %.
  CHECK(mann_whitney_rank_cut(2, 2, 0.95) == 0);
  CHECK(mann_whitney_rank_cut(3, 3, 0.95) == 0);
}

TEST_CASE("the Hodges-Lehmann ratio of a doubled sample is 2, inside its interval", "[stats][effect]") {
  const std::vector<double> good = {100, 101, 99, 102, 98};
  std::vector<double> bad;
  for (double value : good) {
    bad.push_back(2 * value);
  }
  const std::optional<RatioEffect> effect = ratio_effect(good, bad);
  REQUIRE(effect);
  CHECK(effect->ratio == Approx(2.0));
  REQUIRE(effect->low);
  REQUIRE(effect->high);
  // The interval's ends are the 3rd smallest and largest of the 25 pairwise ratios (98/102, 98/101, 99/102, ...).
  CHECK(*effect->low == Approx(2.0 * 99 / 102));
  CHECK(*effect->high == Approx(2.0 * 102 / 99));
  CHECK(effect->from_runs == 5);
  CHECK(effect->to_runs == 5);
}

TEST_CASE("a ratio without enough runs has no interval, non-positive values are left out", "[stats][effect]") {
  const std::optional<RatioEffect> small = ratio_effect({10, 11}, {5, 6});
  REQUIRE(small);
  CHECK(!small->low);
  CHECK(small->ratio < 1.0);
  CHECK(!ratio_effect({0, -1}, {1, 2}));
  CHECK(ratio_effect({0, 4}, {8})->ratio == Approx(2.0));
}
