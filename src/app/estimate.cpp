#include "app/estimate.hpp"

#include <string>

#include "app/run_budget.hpp"

namespace envbisect {

int worst_case_decisions(const std::vector<Axis>& axes, std::size_t units) {
  int decisions = isolation_worst_case(units, 1);
  for (const Axis& axis : axes) {
    decisions += bisection_worst_case(axis.size());
  }
  return decisions;
}

int worst_case_runs(const std::vector<Axis>& axes, std::size_t units, const stats::VerdictPolicy& policy) {
  return 2 * policy.anchor_runs + worst_case_decisions(axes, units) * policy.min_runs;
}

void print_time_estimate(std::ostream& out, const std::vector<Axis>& axes, std::size_t units,
                         const stats::VerdictPolicy& policy, double run_seconds) {
  const int runs = worst_case_runs(axes, units, policy);
  const int decisions = worst_case_decisions(axes, units);
  const int capped = 2 * policy.max_anchor_runs + decisions * policy.max_runs;
  if (run_seconds <= 0) {
    out << "  time: " << runs << " benchmark runs in the worst case with one culprit (" << capped
        << " if every verdict needs the most runs); --run-seconds S gives a time estimate\n";
    return;
  }
  out << "  time: about " << duration_text(runs * run_seconds) << " for the worst case with one culprit (" << runs
      << " runs of " << run_seconds << " s; up to " << duration_text(capped * run_seconds) << " if every verdict needs "
      << policy.max_runs << " runs), environment builds not counted\n";
}

}  // namespace envbisect
