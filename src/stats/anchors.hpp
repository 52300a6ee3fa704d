#pragma once

#include <set>
#include <string>
#include <vector>

#include "stats/samples.hpp"
#include "stats/verdict.hpp"

namespace envbisect::stats {

// What the verdict rules and the preflight (stats/verdict.hpp) read from the two anchors' runs, and the
// few helpers both write their reasons with.

// What both anchors say, prepared once per assessment or preflight.
struct Anchors {
  std::vector<double> good, bad;     // metrics on the comparison scale
  double gap = 0.0;                  // Hodges-Lehmann shift of bad over good on that scale
  bool metric_reliable = false;      // the metric channel tells the anchors apart
  bool failure_reliable = false;     // the failure channel tells the anchors apart
  double metric_level = 0.0;         // the level this look held the metric channel to (look_alpha())
  double failure_level = 0.0;        // the level this look held the failure channel to
  double good_rate = 0.0, bad_rate = 0.0;  // cautious failure rates (Wilson bounds, anchors.cpp)
  double good_median = 0.0;          // median good metric on the comparison scale
  std::set<std::string> good_signatures, bad_signatures;
  std::size_t good_failures = 0;     // raw counts, for the failure-signature rule
  std::size_t bad_failures = 0, bad_runs = 0;
  // The tail channel, for a bad anchor that is only sometimes slow (half its runs 3x slower, a machine
  // with two clock modes): runs beyond the worst good run are events, counted like failures.
  bool tail_active = false;          // the bad anchor is often inside good's range, yet beyond it significantly often
  double tail_threshold = 0.0;       // the worst good metric on the comparison scale
  Side tail_side = Side::above;      // the side of the threshold worse lies on, on the comparison scale
  double tail_good_rate = 0.0, tail_bad_rate = 0.0;  // cautious event rates (anchors.cpp)
  double bandwidth = 0.0;            // kernel width of the likelihood channel; 0: channel off
};

// Return the anchors prepared for comparison on `scale`.
Anchors prepare_anchors(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy, Scale scale);

// Return true when every value is positive, so ratios (a log scale) make sense.
bool all_positive(const std::vector<double>& values);

// Return the values on `scale`: their logarithms, or unchanged.
std::vector<double> on_scale(std::vector<double> values, Scale scale);

// Return the rank-test p of "bad is worse than good" (on the comparison scale), or of "bad differs"
// with any_change.
double metric_worse_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy);

// Return the rank-test p of "bad is better than good": a bad anchor the user probably mislabelled.
double metric_better_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy);

// Format a number for a reason line ("0.018", "96%").
std::string reason_number(double value, const char* format = "%.3g");

// Return "k of n" for a count of runs.
std::string runs_of(std::size_t k, std::size_t n);

}  // namespace envbisect::stats
