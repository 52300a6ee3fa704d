#pragma once

#include <cstddef>
#include <vector>

#include "app/axes.hpp"
#include "app/run.hpp"
#include "core/delta.hpp"
#include "core/recipe.hpp"
#include "stats/verdict.hpp"

namespace envbisect {

// Return the verdict policy the options ask for: statistical, or pass/fail (exactly --repeats runs,
// default 1). Throw Error (exit 2) for what the mode cannot do instead of raising it silently: a
// metric verdict with fewer than 2 runs per candidate, --max-runs below the first runs.
stats::VerdictPolicy run_policy(const RunOptions& options, const Recipe& recipe, bool pass_fail);

// Print what a run would do and its worst-case number of evaluations, running nothing; the runs per
// anchor and candidate are the ones `policy` will make.
void print_plan(const std::vector<Delta>& deltas, const std::vector<Axis>& axes,
                const std::vector<std::vector<std::size_t>>& units, const stats::VerdictPolicy& policy,
                bool pass_fail);

}  // namespace envbisect
