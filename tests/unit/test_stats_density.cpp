#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "stats/density.hpp"

using namespace envbisect::stats;

TEST_CASE("robust_sd ignores a far outlier that the standard deviation does not", "[stats][density]") {
  // MAD of {1, 2, 3, 4, 100} around the median 3 is 1: 1.4826 for a normal's sd.
  CHECK(robust_sd({1.0, 2.0, 3.0, 4.0, 100.0}) == Approx(1.4826));
  CHECK(robust_sd({}) == 0.0);
}

TEST_CASE("kernel_width takes the narrower anchor and never collapses below a twentieth of the gap",
          "[stats][density]") {
  // A bad anchor with two modes is wide; the width follows good's spread.
  const std::vector<double> good{0.0, 0.1, -0.1, 0.05, -0.05};
  const std::vector<double> two_modes{0.0, 1.1, 0.05, 1.15, 1.05};
  CHECK(kernel_width(good, two_modes) < 0.1);
  // Identical runs have no spread: the width is the gap's twentieth.
  CHECK(kernel_width({0.0, 0.0, 0.0}, {2.0, 2.0, 2.0}) == Approx(0.1));
}

TEST_CASE("log_likelihood_ratio: each run counts at most log 8, and the shift builds a halfway anchor",
          "[stats][density]") {
  const std::vector<double> good{0.0, 0.02, -0.02, 0.01, -0.01};
  const std::vector<double> bad{1.0, 1.02, 0.98, 1.01, 0.99};
  const double w = kernel_width(good, bad);
  // Three runs at bad's centre: three bounded terms for bad.
  CHECK(log_likelihood_ratio({1.0, 1.0, 1.0}, bad, 0.0, good, 0.0, w) == Approx(3.0 * std::log(8.0)));
  CHECK(log_likelihood_ratio({0.0, 0.0}, bad, 0.0, good, 0.0, w) == Approx(-2.0 * std::log(8.0)));
  // A run halfway is as likely under either anchor; against the halfway anchor, bad loses.
  CHECK(log_likelihood_ratio({0.5}, bad, 0.0, good, 0.0, w) == Approx(0.0).margin(1e-9));
  CHECK(log_likelihood_ratio({0.5}, bad, 0.0, good, 0.5, w) == Approx(-std::log(8.0)));
  // A run far from every run of both anchors is unlike both: no evidence either way (the rank tests
  // and the intermediate rule see it instead).
  CHECK(log_likelihood_ratio({50.0}, bad, 0.0, good, 0.0, w) == 0.0);
  CHECK(log_likelihood_ratio({1.0}, {}, 0.0, {}, 0.0, w) == 0.0);
}
