#pragma once

#include <string>

#include "core/outcome.hpp"
#include "stats/rate.hpp"
#include "stats/samples.hpp"

namespace envbisect::stats {

// The scale the rules compare metrics on: as measured, or their logarithms (ratios become differences).
enum class Scale { linear, log };

// A side of a threshold on the comparison scale.
enum class Side { below, above };

// How careful the verdict rules are, and how many runs they may spend.
struct VerdictPolicy {
  bool higher_is_better = false;     // throughput: true; seconds per step: false
  int min_runs = 3;                  // runs of a candidate before any verdict but skip
  int max_runs = 40;                 // runs of a candidate at which assess() must decide
  int anchor_runs = 5;               // runs of each anchor, interleaved, before preflight
  int max_anchor_runs = 40;          // runs of each anchor preflight may ask for before refusing
  double alpha = 0.05;               // one-sided exact rank-test level for a good or bad call
  double alpha_intermediate = 0.005; // level for "intermediate", which needs both tests to reject
  double effect_gate = 0.25;         // fraction of the anchor gap within which "near an anchor"
  double failure_alpha = 0.01;       // likelihood-ratio bound at which failures decide
  double rate_alpha = 0.05;          // each error level of the sequential test on failure counts
                                     // (stats/rate.hpp), used once a one-run search's runs disagree
  double preflight_alpha = 0.05;     // level at which the anchors count as distinguishable, spent
                                     // over each channel's planned looks (calibrated), one-sided
                                     // towards "bad is worse"; see look_alpha()
  bool any_change = false;           // a bad anchor that is better than good is a change to bisect too
  int max_failure_anchor_runs = 30;  // runs of each anchor the failure channel may ask for on its own
  std::string unit;                  // the metric's unit ("tok/s"), for messages only
};

// Which evidence about the anchors a level is for.
enum class Channel { metric, failure };

// Return the level the preflight look at `runs` runs of each anchor tests a channel at. A channel
// looks at every run count from anchor_runs to its cap (max_anchor_runs for the metric,
// max_failure_anchor_runs for failures); the re-check before reporting is the look at the final count.
// Every look of a channel is at one level: preflight_alpha over the looks counted as independent
// tests, the looks (which share most of their runs) divided by 3.5 for the metric and 9 for failures,
// never more than preflight_alpha; calibrated by simulating identical anchors so that the looks from 5
// to 20 runs (30 for failures) together spend about preflight_alpha (the default 5..40 spends less).
double look_alpha(const VerdictPolicy& policy, Channel channel, std::size_t runs);

// What the interleaved anchor runs showed, and whether a bisection can trust them.
struct Preflight {
  bool distinguishable = false;      // false: refuse to bisect (exit 3) and print `message`...
  bool more_runs_would_help = false; // ...unless this is true: run one more pair, call again
  double good_median = 0.0;          // median metric of the good anchor's non-failed runs
  double bad_median = 0.0;           // 0 when every bad run failed
  double good_cv = 0.0;              // coefficient of variation of the good anchor's metric
  double bad_cv = 0.0;
  double effect = 0.0;               // how many times worse bad is than good; 0 without metrics
  double good_fail_rate = 0.0;
  double bad_fail_rate = 0.0;
  double metric_p = 1.0;             // exact one-sided Mann-Whitney p of "bad is worse" (two-sided with any_change)
  double tail_p = 1.0;               // one-sided Fisher p of "bad's runs land beyond the anchors' common reach more
                                     // often": the metric channel counts when either test passes
  double failure_p = 1.0;            // one-sided Fisher exact p of "bad fails more often than good"
  double look_alpha = 0.05;          // the level this look tested the metric at (see look_alpha())
  double failure_look_alpha = 0.05;  // the level this look tested failures at (its own channel's looks)
  bool bad_is_better = false;        // the bad anchor measured significantly better than good
  bool by_metric = false;            // the metric tells the anchors apart
  bool by_failure = false;           // the failure rate tells the anchors apart
  bool checksum_mismatch = false;    // an anchor's fixed-seed checksum varied between its runs
  int anchor_runs_wanted = 0;        // runs of each anchor the search should start from: twice
                                     // policy.anchor_runs when the anchors are close for their spread
                                     // (under 5 spreads apart), differ only in failures, or bad is only
                                     // sometimes slow -- every verdict leans on the anchors' estimates
  std::string message;               // what was measured and, if refused, what to try
};

// Compare the anchors' samples: medians, spread, effect and failure rates, and decide whether a
// candidate can be told to resemble one or the other.
Preflight preflight(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy);

// The state of one candidate after its runs so far.
struct Assessment {
  bool decided = false;              // false: run the candidate once more, then assess again
  Verdict verdict = Verdict::unstable;  // meaningful only when decided
  bool different_failure = false;    // some run failed unlike either anchor (a new failure)
  bool checksum_mismatch = false;    // the fixed-seed checksum varied between the runs
  double p_vs_good = 1.0;            // exact one-sided rank-test p of "worse than good"
  double p_vs_bad = 1.0;             // exact one-sided rank-test p of "better than bad"
  double position = 0.0;             // where the candidate sits: 0 at good, 1 at bad (log scale)
  bool between_rates = false;        // fails clearly more often than good, less than the test's "bites"
  TopUp top_up = TopUp::none;        // the anchor a rate call waits for (stats::anchor_to_top_up)
  std::string reason;                // one line a user can check, with the numbers
};

// Judge a candidate from its runs against both anchors: good, bad, intermediate (significantly
// between them), skip (the benchmark said so, or it failed unlike the anchors in most runs), or
// undecided below policy.max_runs; at max_runs an undecided candidate is unstable.
Assessment assess(const SampleSet& candidate, const SampleSet& good, const SampleSet& bad,
                  const VerdictPolicy& policy);

}  // namespace envbisect::stats
