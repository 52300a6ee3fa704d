#include <catch2/catch.hpp>

#include "stats/quantity.hpp"

using namespace envbisect::stats;

TEST_CASE("numbers are written as people quote them", "[stats][quantity]") {
  CHECK(human_number(122208.4) == "122 208");
  CHECK(human_number(61270) == "61 270");
  CHECK(human_number(1234567890.0) == "1 234 567 890");
  CHECK(human_number(-20938) == "-20 938");
  CHECK(human_number(1030) == "1030");
  CHECK(human_number(204.565) == "204.6");
  CHECK(human_number(0.0179) == "0.0179");
  CHECK(human_number(0) == "0");
  CHECK(with_unit(122208, "tok/s") == "122 208 tok/s");
  CHECK(with_unit(3.5, "") == "3.5");
}

TEST_CASE("comparisons say faster or slower the right way round, never below 1x", "[stats][quantity]") {
  // A throughput that doubled: not "0.50x better (!)".
  CHECK(comparison_words(1000, 2000, Better::higher, "tok/s") == "2.00x faster");
  CHECK(comparison_words(1000, 300, Better::higher, "tok/s") == "3.33x slower");
  // A duration (lower is better) that grew.
  CHECK(comparison_words(10, 25, Better::lower, "ms") == "2.50x slower");
  CHECK(comparison_words(10, 5, Better::lower, "s") == "2.00x faster");
  // Neither a rate nor a duration: worse or better, by the recipe's direction.
  CHECK(comparison_words(0.9, 0.45, Better::higher, "") == "2.00x worse");
  CHECK(comparison_words(2.0, 1.0, Better::lower, "loss") == "2.00x better");
}
