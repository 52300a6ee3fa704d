#pragma once

#include <cstddef>
#include <string>

namespace envbisect::stats {

// A failure rate measured as k failures in n runs, with its exact (Clopper-Pearson) interval.
struct RateInterval {
  std::size_t failures = 0;
  std::size_t runs = 0;
  double rate = 0.0;  // failures / runs; 0 without runs
  double low = 0.0;   // lower end of the two-sided interval
  double high = 1.0;  // upper end
};

// Return the rate of `failures` in `runs` with its exact two-sided Clopper-Pearson interval at
// `confidence` (0.95: "95 % CI"). Without runs the interval is [0, 1].
RateInterval rate_interval(std::size_t failures, std::size_t runs, double confidence = 0.95);

// Return P(X >= failures) for X ~ Binomial(runs, p): how surprising that many failures would be at rate p.
double more_failures_p(std::size_t failures, std::size_t runs, double p);

// Return "fails 5 of 20, 25 %, 95 % CI 9–49 %" for an interval at 95 %.
std::string rate_words(const RateInterval& interval);

// What a sequential test on failure counts concluded.
enum class RateCall {
  low,        // the rate is like the low hypothesis (good)
  high,       // the rate is like the high hypothesis (bad: it bites)
  undecided,  // more runs are needed
};

// Wald's sequential probability ratio test of H_low: rate = p_low against H_high: rate = p_high on
// `failures` in `runs` (Bernoulli runs): high once the log likelihood ratio reaches log((1-beta)/alpha),
// low once it falls to log(beta/(1-alpha)). Wald's bound: a true rate of p_low or below is called high
// with probability at most about alpha, one of p_high or above low with probability at most about beta
// (the operating characteristic of the Bernoulli SPRT is monotone in the rate). Rates in between may
// go either way: a caller that must tell them apart reports the rate with its interval.
// Requires 0 < p_low < p_high < 1.
RateCall sprt_rate(std::size_t failures, std::size_t runs, double p_low, double p_high, double alpha, double beta);

// The hypotheses a run's rate test uses, from the anchors' failure counts: the good anchor's rate and
// the rate a candidate carrying the regression fails at, regularised so that 0 of n and n of n stay
// inside (0, 1): p_low = (good_failures + 0.5) / (good_runs + 1); p_high = half the bad anchor's
// regularised rate, at least twice p_low and at most 0.95. Half: a candidate that fails half as often
// as the bad anchor still carries the regression, and a race on fewer threads is such a candidate.
struct RateHypotheses {
  double p_low = 0.0;
  double p_high = 0.0;
  // The bar were the bad anchor's rate at the low end of its two-sided 80 % interval (half that end,
  // never above p_high): how far more runs of the bad anchor could plausibly lower p_high. 0 where
  // unknown, and then any ruling that rests on the bar counts as open to the bad anchor's next runs.
  double p_high_floor = 0.0;
  bool usable = false;  // false when the anchors do not differ enough in failures for a test
};

// Return the hypotheses for anchors that failed `good_failures` of `good_runs` and `bad_failures` of
// `bad_runs`.
RateHypotheses rate_hypotheses(std::size_t good_failures, std::size_t good_runs, std::size_t bad_failures,
                               std::size_t bad_runs);

// The hypotheses for a part of an interaction, which the answer calls clean: as rate_hypotheses, but
// p_high is a quarter of the lower end of the bad anchor's two-sided 80 % interval (its one-sided 90 %
// lower bound), not half its estimate. The low end: a bad anchor whose few runs overstate its rate would
// otherwise set the bar above a part that carries the failure at a lower rate. A quarter: the bar must
// stand below the rates a cause's part shows on real machines, and on one H200 three warm drafter
// threads failed 6 of 20 runs where the cold cache made it 10 of 10 (reports/2026-12-06-gpu-cheapfirst,
// run13); against half of bad's rate, such a part passes 10 runs in a row 3 times in 100.
RateHypotheses part_hypotheses(std::size_t good_failures, std::size_t good_runs, std::size_t bad_failures,
                               std::size_t bad_runs);

// What the run's rate rule makes of a candidate's failure counts against hypotheses `h`.
struct RateRuling {
  RateCall call = RateCall::undecided;  // undecided also while between_rates, bar_short or good_short
  bool between_rates = false;  // fails clearly more often than p_low (at alpha_high), not called high
  bool bar_short = false;      // a clean call, or between_rates, against a bad anchor with fewer runs,
                               // where the bar at p_high_floor would rule otherwise: the bad anchor's
                               // runs are topped up to the candidate's first
  bool good_short = false;     // a clean call on a candidate that failed, against a good anchor with
                               // fewer runs: the good anchor's runs are topped up to the candidate's first
  bool next_run_first = false; // an anchor is short, yet one more run of the candidate leaves neither
                               // short whichever way it goes: that run comes before any top-up (a bad
                               // anchor run that cannot change the call is paid for nothing)
};

// Which anchor a rate ruling waits for, if any.
enum class TopUp { none, good, bad };

// Return the anchor `ruling` waits for: none where no anchor is short or where the candidate's next run
// comes first (next_run_first); else the good anchor where it is short (its few clean runs set good's
// rate too high), then the bad one (its few runs may overstate its rate, and so the bar).
TopUp anchor_to_top_up(const RateRuling& ruling);

// Return the rate rule's ruling on `failures` of `runs` against `h` (unusable: undecided), with the good
// anchor at `good_runs` runs and the bad one at `bad_runs`: the sequential test at `alpha_high` (high)
// and `alpha_low` (low). A candidate failing clearly more often than good yet below p_high can drift to
// "low"; it carries the failure, so it is not called clean. A candidate that failed at all is called
// clean only against anchors measured on as many runs: a bad anchor whose few runs overstated its rate
// sets p_high too high, and a good anchor's few clean runs set p_low too high to tell a lower rate from
// good's (5 of 33 against good's 0 of 7 is no difference; against 0 of 33 it is). The bad anchor is
// short only where its plausible rates leave the ruling open: where the test at h.p_high_floor calls
// the same as at h.p_high, more bad runs cannot change the call (a bad anchor that failed 12 of 12
// runs only raises the bar with its 13th), and the candidate's own runs decide.
RateRuling rate_ruling(std::size_t failures, std::size_t runs, const RateHypotheses& h, std::size_t good_runs,
                       std::size_t bad_runs, double alpha_high, double alpha_low);

// Return the passes in a row a part of an interaction must show in one-run mode to be called clean at
// `level` (a part failing at part_hypotheses()'s p_high passes that many runs with probability `level`
// at most), at least `floor`; `floor` when the hypotheses are unusable.
int passes_to_clear_part(std::size_t good_failures, std::size_t good_runs, std::size_t bad_failures,
                         std::size_t bad_runs, double level, int floor);

}  // namespace envbisect::stats
