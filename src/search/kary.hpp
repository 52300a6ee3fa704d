#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "core/outcome.hpp"
#include "search/bisect.hpp"

namespace envbisect {

// The k-ary search's window on the world: the verdicts for several points of an ordered axis at once,
// in the order asked (a caller with k slots measures them side by side).
using BatchIndexOracle = std::function<std::vector<Verdict>(const std::vector<std::size_t>& indices)>;

// The outcome of a k-ary bisection: the same answer as first_bad() gives, and how many rounds (batches
// of at most k questions) it took.
struct KaryBisection {
  Bisection bisection;  // steps in the order asked, batch by batch; evaluations = every question
  int rounds = 0;       // batches asked
};

// Return the k points to ask next about the untested interior of (good, bad): with m candidates
// (points strictly between, not in `asked`), the ones at ranks ceil-spaced (j+1)(m+1)/(k+1) - 1, so
// that the k+1 gaps are as even as possible; k = 1 asks first_bad()'s midpoint (git's, which with
// two candidates left takes the higher one). Pure.
std::vector<std::size_t> kary_probes(std::size_t good, std::size_t bad, std::size_t k,
                                     const std::vector<std::size_t>& asked);

// Find the first bad index of 0..count-1 given (assumed, never asked) that 0 is good and count-1 is
// bad, asking up to `k` points per round: after a round the window shrinks to the gap between the
// highest good point below the lowest bad one and that bad one, about ceil(log_{k+1}(count-1))
// rounds without skips. Intermediate counts as bad; skip and unstable points are untestable and are
// never asked again. Pure: calls only `oracle`, never twice for one index. k = 0 is taken as 1.
// Notes and reasons name points through `label`.
KaryBisection kary_first_bad(std::size_t count, std::size_t k, const BatchIndexOracle& oracle,
                             const PointLabel& label = {});

}  // namespace envbisect
