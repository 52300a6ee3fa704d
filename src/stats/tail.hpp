#pragma once

#include <cstddef>
#include <vector>

#include "stats/verdict.hpp"

namespace envbisect::stats {

// Return how many of `values` lie beyond `threshold` on its `side` (strictly).
std::size_t beyond(const std::vector<double>& values, double threshold, Side side);

// Return the one-sided Fisher p of "bad's runs land beyond the anchors' common reach more often than
// good's": the reach is three robust spreads (at least 1 % of the scale) past the median of both
// anchors' runs together, towards worse (with any_change, the smaller of both directions, doubled).
// Drawn from the pooled runs, the threshold treats both anchors alike, so under "no difference" the
// exact test keeps its level. A bad anchor that is only sometimes slow (half its runs like good, half
// far out) escapes the rank test for many runs, not this count.
double tail_worse_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy,
                    Scale scale);

}  // namespace envbisect::stats
