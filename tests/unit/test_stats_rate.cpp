#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "stats/rate.hpp"

using namespace envbisect::stats;

TEST_CASE("rate_interval is the exact Clopper-Pearson interval", "[stats][rate]") {
  // 5 of 20: the interval the textbooks give, 0.0866-0.4910.
  const RateInterval five = rate_interval(5, 20);
  CHECK(five.rate == Approx(0.25));
  CHECK(five.low == Approx(0.0866).margin(0.0005));
  CHECK(five.high == Approx(0.4910).margin(0.0005));
  CHECK(rate_words(five) == "fails 5 of 20, 25 %, 95 % CI 9\xE2\x80\x93" "49 %");
  // The ends: 0 of 10 reaches up to 1 - 0.025^(1/10); 10 of 10 down to 0.025^(1/10).
  const RateInterval none = rate_interval(0, 10);
  CHECK(none.low == 0.0);
  CHECK(none.high == Approx(1.0 - std::pow(0.025, 0.1)).margin(1e-6));
  const RateInterval all = rate_interval(10, 10);
  CHECK(all.high == 1.0);
  CHECK(all.low == Approx(std::pow(0.025, 0.1)).margin(1e-6));
  const RateInterval empty = rate_interval(0, 0);
  CHECK(empty.low == 0.0);
  CHECK(empty.high == 1.0);
}

TEST_CASE("sprt_rate stops as soon as 0-of-n against n-of-n is clear", "[stats][rate]") {
  const RateHypotheses h = rate_hypotheses(0, 5, 5, 5);
  REQUIRE(h.usable);
  CHECK(h.p_low == Approx(0.5 / 6));
  CHECK(h.p_high == Approx(5.5 / 6 / 2));
  // Two failures like the bad anchor are enough; one is not.
  CHECK(sprt_rate(1, 1, h.p_low, h.p_high, 0.05, 0.05) == RateCall::undecided);
  CHECK(sprt_rate(2, 2, h.p_low, h.p_high, 0.05, 0.05) == RateCall::high);
  // Clearing a candidate takes more clean runs than calling it bad takes failures: a rate half the
  // bad anchor's must be ruled out.
  int clean = 0;
  while (sprt_rate(0, static_cast<std::size_t>(clean), h.p_low, h.p_high, 0.05, 0.05) != RateCall::low) {
    ++clean;
  }
  CHECK(clean >= 4);
  CHECK(clean <= 7);
}

TEST_CASE("rate_hypotheses refuses anchors that fail alike", "[stats][rate]") {
  CHECK_FALSE(rate_hypotheses(5, 10, 5, 10).usable);
  CHECK_FALSE(rate_hypotheses(0, 0, 5, 5).usable);
  CHECK(rate_hypotheses(0, 10, 10, 10).usable);
}

// Wald's bound, checked by simulation: a candidate failing at the good rate is called high at most
// about alpha of the time, one failing at the high rate low at most about beta; both errors shrink
// further away from the hypotheses.
TEST_CASE("sprt_rate keeps its stated error levels in simulation", "[stats][rate]") {
  const RateHypotheses h = rate_hypotheses(0, 5, 5, 5);
  std::mt19937_64 random(36);
  auto error_rate = [&](double true_rate, RateCall wrong) {
    int errors = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      std::bernoulli_distribution fails(true_rate);
      std::size_t failures = 0, runs = 0;
      RateCall call = RateCall::undecided;
      while (call == RateCall::undecided && runs < 200) {
        failures += fails(random) ? 1 : 0;
        ++runs;
        call = sprt_rate(failures, runs, h.p_low, h.p_high, 0.05, 0.05);
      }
      errors += call == wrong ? 1 : 0;
    }
    return static_cast<double>(errors) / trials;
  };
  CHECK(error_rate(h.p_low, RateCall::high) <= 0.05);
  CHECK(error_rate(h.p_high, RateCall::low) <= 0.05);
  CHECK(error_rate(0.0, RateCall::high) == 0.0);
  CHECK(error_rate(0.9, RateCall::low) <= 0.01);
}

TEST_CASE("part_hypotheses sets the bar at a quarter of the low end of the bad anchor's rate", "[stats][rate]") {
  // Bad failed 5 of 5: its two-sided 80 % interval starts at 0.1^(1/5) = 0.63, so the bar is a quarter of
  // it, 0.16, not the 0.46 of rate_hypotheses (half of 5.5 / 6). A part failing at 0.25 (half a true 0.5
  // rate that 5 of 5 overstated) stands well above this bar.
  const RateHypotheses run = rate_hypotheses(0, 5, 5, 5);
  const RateHypotheses part = part_hypotheses(0, 5, 5, 5);
  REQUIRE(part.usable);
  CHECK(part.p_low == Approx(run.p_low));
  CHECK(part.p_high == Approx(std::pow(0.1, 0.2) / 4).margin(1e-6));
  CHECK(part.p_high < 0.25);
  // A part failing 30 % of runs where bad fails every time (three warm drafter threads on one H200)
  // stands above the bar.
  const RateHypotheses rates = part_hypotheses(0, 10, 10, 10);
  REQUIRE(rates.usable);
  CHECK(rates.p_high == Approx(std::pow(0.1, 0.1) / 4).margin(1e-6));
  CHECK(rates.p_high < 0.3);
  // Never above the run's own bar; unusable when the low end leaves no room above good.
  CHECK(part_hypotheses(0, 40, 40, 40).p_high <= rate_hypotheses(0, 40, 40, 40).p_high);
  CHECK_FALSE(part_hypotheses(0, 5, 1, 5).usable);
}

TEST_CASE("more_failures_p is the binomial upper tail", "[stats][rate]") {
  CHECK(more_failures_p(0, 10, 0.3) == 1.0);
  CHECK(more_failures_p(1, 1, 0.3) == Approx(0.3));
  // P(X >= 2) for 3 runs at 0.5: 3/8 + 1/8.
  CHECK(more_failures_p(2, 3, 0.5) == Approx(0.5));
  // 8 failures of 40 at a good rate of 8 %: about 1 % -- clearly more than good.
  CHECK(more_failures_p(8, 40, 0.083) < 0.05);
  CHECK(more_failures_p(2, 40, 0.083) > 0.5);
}

TEST_CASE("a part of an interaction must pass more runs the fewer runs the bad anchor failed", "[stats][rate]") {
  // A quarter of the low end of the bad rate's 80 % interval, at 1 %: 3 of 3 failed -> 38 passes, 5 of 5
  // -> 27, 10 of 10 -> 21. A part failing 30 % of runs shows 21 passes in a row 6 times in 10,000.
  CHECK(passes_to_clear_part(0, 7, 3, 3, 0.01, 5) == 38);
  CHECK(passes_to_clear_part(0, 5, 5, 5, 0.01, 5) == 27);
  CHECK(passes_to_clear_part(0, 5, 10, 10, 0.01, 5) == 21);
  CHECK(passes_to_clear_part(0, 5, 5, 5, 0.01, 30) == 30);  // never fewer than the floor
  CHECK(passes_to_clear_part(0, 5, 0, 5, 0.01, 5) == 5);    // bad never failed: unusable, the floor
}

TEST_CASE("rate_ruling never calls clean a candidate that carries the failure at a lower rate, nor on a short bar", "[stats][rate]") {
  // Good failed 0 of 40, bad 20 of 40: the test is 1.2 % (good) against 25 % (bites).
  const RateHypotheses h = rate_hypotheses(0, 40, 20, 40);
  REQUIRE(h.usable);
  // 5 of 80: the sequential test alone drifts to "low", yet 5 failures are far too many for good's rate.
  REQUIRE(sprt_rate(5, 80, h.p_low, h.p_high, 0.05, 0.05) == RateCall::low);
  const RateRuling lower_rate = rate_ruling(5, 80, h, 80, 80, 0.05, 0.05);
  CHECK(lower_rate.between_rates);
  CHECK_FALSE(lower_rate.bar_short);  // the anchors have as many runs
  CHECK_FALSE(lower_rate.good_short);
  CHECK(lower_rate.call == RateCall::undecided);
  // 2 of 40: clean by the test and not between, but it failed, the bad anchor has 30 runs, and a bar at
  // the low end of bad's plausible rates (20 of 40: 19 %) would not call it clean: short.
  REQUIRE(sprt_rate(2, 40, h.p_low, h.p_high, 0.05, 0.05) == RateCall::low);
  REQUIRE(sprt_rate(2, 40, h.p_low, h.p_high_floor, 0.05, 0.05) != RateCall::low);
  const RateRuling short_bar = rate_ruling(2, 40, h, 40, 30, 0.05, 0.05);
  CHECK_FALSE(short_bar.between_rates);
  CHECK(short_bar.bar_short);
  CHECK(short_bar.call == RateCall::undecided);
  // The same against a bad anchor of 40 runs, or with no failure at all: clean.
  CHECK(rate_ruling(2, 40, h, 40, 40, 0.05, 0.05).call == RateCall::low);
  CHECK(rate_ruling(0, 50, h, 40, 40, 0.05, 0.05).call == RateCall::low);
  // 1 of 50 is clean against that lower bar too: more bad runs could not change the call.
  REQUIRE(sprt_rate(1, 50, h.p_low, h.p_high_floor, 0.05, 0.05) == RateCall::low);
  CHECK_FALSE(rate_ruling(1, 50, h, 50, 40, 0.05, 0.05).bar_short);
  CHECK(rate_ruling(1, 50, h, 50, 40, 0.05, 0.05).call == RateCall::low);
  // Biting is called whatever the bar's runs.
  const RateRuling bites = rate_ruling(10, 20, h, 5, 5, 0.05, 0.05);
  CHECK(bites.call == RateCall::high);
  CHECK_FALSE(bites.between_rates);
  CHECK_FALSE(bites.bar_short);
  CHECK_FALSE(bites.good_short);
  // 1 of 50 against a good anchor of 40 runs: clean by the test, but it failed: the good anchor is short.
  const RateRuling short_good = rate_ruling(1, 50, h, 40, 50, 0.05, 0.05);
  CHECK(short_good.good_short);
  CHECK_FALSE(short_good.bar_short);
  CHECK(short_good.call == RateCall::undecided);
  CHECK(anchor_to_top_up(short_good) == TopUp::good);
  // Unusable hypotheses decide nothing.
  CHECK(rate_ruling(0, 50, rate_hypotheses(3, 10, 3, 10), 10, 10, 0.05, 0.05).call == RateCall::undecided);
}

TEST_CASE("rate_ruling calls a lower rate clean only against a good anchor measured on as many runs", "[stats][rate]") {
  // A race that bites 3 threads with a warm cache 5 times in 33 runs, the good anchor clean in 7, the bad
  // anchor failing 20 of 20. Against good's 7 runs the 5 failures look like good's regularised 6 %: the
  // test drifts to clean, and an answer built on it would call the part that carries the failure clean.
  const RateHypotheses short_good = rate_hypotheses(0, 7, 20, 20);
  REQUIRE(short_good.usable);
  REQUIRE(sprt_rate(5, 33, short_good.p_low, short_good.p_high, 0.05, 0.05) == RateCall::low);
  const RateRuling on_seven = rate_ruling(5, 33, short_good, 7, 20, 0.05, 0.05);
  CHECK_FALSE(on_seven.between_rates);
  CHECK(on_seven.good_short);
  CHECK(on_seven.call == RateCall::undecided);
  // With the good anchor topped up to 33 clean runs, 5 failures are far more than good's: not clean.
  const RateHypotheses topped = rate_hypotheses(0, 33, 20, 33);
  const RateRuling on_33 = rate_ruling(5, 33, topped, 33, 33, 0.05, 0.05);
  CHECK_FALSE(on_33.good_short);
  CHECK(on_33.call != RateCall::low);
}

TEST_CASE("rate_ruling tops up the bad anchor only while its plausible rates leave the ruling open", "[stats][rate]") {
  // One H200's race: 3 warm threads fail about 30 % of runs, the bad anchor (3 cold threads) every run.
  // The candidate is between the rates: it fails clearly more often than good, and the test has not
  // called it biting against half of bad's rate.
  const std::size_t failures = 5, runs = 20;
  // Bad failed 4 of 4: its rate could be as low as 56 % (80 % interval), a bar of 28 %, against which
  // 5 of 20 bites. The bad anchor's next runs can change the call: top it up.
  const RateHypotheses few = rate_hypotheses(0, 8, 4, 4);
  REQUIRE(few.p_high_floor < few.p_high);
  REQUIRE(sprt_rate(failures, runs, few.p_low, few.p_high_floor, 0.05, 0.05) == RateCall::high);
  const RateRuling on_four = rate_ruling(failures, runs, few, 8, 4, 0.05, 0.05);
  CHECK(on_four.between_rates);
  CHECK(on_four.bar_short);
  CHECK(on_four.call == RateCall::undecided);
  // Bad failed 12 of 12: the lowest plausible bar is 41 %, and 5 of 20 is undecided against it as against
  // 48 %. A 13th failure would only raise the bar: the candidate's own runs decide, the bad anchor
  // (the dearest run: a cold compile on three threads) waits.
  const RateHypotheses many = rate_hypotheses(0, 8, 12, 12);
  REQUIRE(sprt_rate(failures, runs, many.p_low, many.p_high_floor, 0.05, 0.05) == RateCall::undecided);
  const RateRuling on_twelve = rate_ruling(failures, runs, many, 8, 12, 0.05, 0.05);
  CHECK(on_twelve.between_rates);
  CHECK_FALSE(on_twelve.bar_short);
  CHECK(on_twelve.call == RateCall::undecided);
  // A part's bar already stands on the low end of bad's rate: its rulings keep the old top-up.
  const RateHypotheses part = part_hypotheses(0, 8, 12, 12);
  CHECK(part.p_high_floor == 0.0);
  const RateRuling on_part = rate_ruling(1, 20, part, 20, 12, 0.05, 0.05);
  CHECK(on_part.bar_short ==
        (on_part.between_rates || sprt_rate(1, 20, part.p_low, part.p_high, 0.05, 0.05) == RateCall::low));
}

TEST_CASE("rate_ruling runs the candidate before an anchor top-up its next run makes needless", "[stats][rate]") {
  // The 1-GPU incident's part {threads} (3 drafter threads, warm cache), as a fresh H100 measured it:
  // 4 failures in 13 runs, good 0 of 6, bad 5 of 5. At the bar (bad's rate halved) the part is between
  // the rates; at the low end of bad's plausible rates it would be called biting: the bad anchor is
  // short. Yet the part's 14th run settles that either way: a failure is biting at both bars, a pass
  // undecided at both. The bad anchor's top-ups (6 runs, 73 s on that machine) changed nothing.
  const RateHypotheses h = rate_hypotheses(0, 6, 5, 5);
  REQUIRE(h.usable);
  const RateRuling now = rate_ruling(4, 13, h, 6, 5, 0.05, 0.05);
  REQUIRE(now.bar_short);
  CHECK(now.call == RateCall::undecided);
  CHECK(now.next_run_first);
  CHECK(anchor_to_top_up(now) == TopUp::none);  // the part runs next, not the bad anchor
  const RateRuling failed = rate_ruling(5, 14, h, 6, 5, 0.05, 0.05);
  CHECK(failed.call == RateCall::high);
  CHECK_FALSE(failed.bar_short);
  const RateRuling passed = rate_ruling(4, 14, h, 6, 5, 0.05, 0.05);
  CHECK(passed.call == RateCall::undecided);
  CHECK_FALSE(passed.bar_short);
  CHECK_FALSE(passed.good_short);
  // Where one outcome of the next run still leaves the bar short, the bad anchor runs first, as before:
  // 2 of 40 against good 0 of 40 and bad 20 of 30 (rate_ruling's short bar above).
  const RateHypotheses wide = rate_hypotheses(0, 40, 20, 40);
  const RateRuling short_bar = rate_ruling(2, 40, wide, 40, 30, 0.05, 0.05);
  REQUIRE(short_bar.bar_short);
  CHECK_FALSE(short_bar.next_run_first);
  CHECK(anchor_to_top_up(short_bar) == TopUp::bad);
  // No anchor short: nothing to put first.
  CHECK_FALSE(rate_ruling(10, 20, wide, 5, 5, 0.05, 0.05).next_run_first);
}
