#include "app/run/plan/estimate.hpp"

#include <string>

#include "app/run/plan/budget.hpp"

namespace envbisect {

int worst_case_decisions(const std::vector<Axis>& axes, std::size_t units) {
  int decisions = isolation_worst_case(units, 1);
  for (const Axis& axis : axes) {
    decisions += bisection_worst_case(axis.size()) + static_cast<int>(axis.merge_bases.size());
  }
  return decisions;
}

int worst_case_runs(const std::vector<Axis>& axes, std::size_t units, const stats::VerdictPolicy& policy) {
  return 2 * policy.anchor_runs + worst_case_decisions(axes, units) * policy.min_runs;
}

void print_time_estimate(std::ostream& out, const std::vector<Axis>& axes, std::size_t units,
                         const stats::VerdictPolicy& policy, double run_seconds, double budget_s) {
  const int runs = worst_case_runs(axes, units, policy);
  const int decisions = worst_case_decisions(axes, units);
  const int capped = 2 * policy.max_anchor_runs + decisions * policy.max_runs;
  if (run_seconds <= 0) {
    out << "  time: " << runs << " benchmark runs in the worst case with one culprit (" << capped
        << " if every verdict needs the most runs); --run-seconds S gives a time estimate"
        << (budget_s > 0 ? " and whether it fits in the budget" : "") << "\n";
    return;
  }
  out << "  time: about " << duration_text(runs * run_seconds) << " for the worst case with one culprit (" << runs
      << " runs of " << run_seconds << " s; up to " << duration_text(capped * run_seconds) << " if every verdict needs "
      << policy.max_runs << " runs), environment builds not counted\n";
  if (budget_s > 0) {
    // Probes are not in the worst case: they come after the cause, and the budget stops them too.
    const bool fits = runs * run_seconds <= budget_s;
    const bool fits_capped = capped * run_seconds <= budget_s;
    out << "  budget " << duration_text(budget_s) << ": "
        << (fits_capped ? "the worst case fits, even if every verdict needs the most runs"
            : fits      ? "the worst case fits at the first runs of each verdict, not if every verdict needs the most "
                          "runs"
                        : "the worst case does not fit: the run may stop at the budget with a partial answer "
                          "(outcome budget; resume --budget continues it)")
        << "\n";
  }
}

}  // namespace envbisect
