#pragma once

#include <cstddef>
#include <vector>

#include "stats/verdict.hpp"

namespace envbisect::stats {

// Return how many of `values` lie beyond `threshold`: above it when `up`, below it otherwise.
std::size_t beyond(const std::vector<double>& values, double threshold, bool up);

// Return the one-sided Fisher p of "bad's runs land beyond good's reach more often than good's own":
// the reach is three robust spreads of good (at least 1 % of the scale) past good's median, towards
// worse (with any_change, the smaller of both directions, doubled). Good's count gets one more run
// for caution, since the reach is drawn from good's own runs. A bad anchor that is only sometimes slow
// (half its runs like good, half far out) escapes the rank test for many runs, not this count.
double tail_worse_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy,
                    bool use_log);

}  // namespace envbisect::stats
