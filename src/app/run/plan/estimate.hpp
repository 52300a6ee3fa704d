#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

#include "app/run/plan/axes.hpp"
#include "stats/verdict.hpp"

namespace envbisect {

// Return the decisions a search needs at worst with one culprit: isolating it among `units`, then
// bisecting every ordered axis (an upper bound; probes not counted).
int worst_case_decisions(const std::vector<Axis>& axes, std::size_t units);

// Return the benchmark runs that worst case takes at first: both anchors' first runs, then the first
// runs of each decision (more when a verdict needs them, up to the policy's cap).
int worst_case_runs(const std::vector<Axis>& axes, std::size_t units, const stats::VerdictPolicy& policy);

// Print the time the worst case takes at `run_seconds` a run, and at the cap on runs; print how to get
// an estimate when `run_seconds` is 0. With a `budget_s` (> 0), say whether the worst case fits in it.
void print_time_estimate(std::ostream& out, const std::vector<Axis>& axes, std::size_t units,
                         const stats::VerdictPolicy& policy, double run_seconds, double budget_s = 0);

}  // namespace envbisect
