#pragma once

#include <string>
#include <vector>

#include "core/outcome.hpp"

namespace envbisect {

// What the attempts of one anchor say.
struct AnchorSummary {
  int ok_runs = 0;
  int failures = 0;
  int skips = 0;
  double median = 0.0;  // of the successful runs' metric
};

// Return the summary of an anchor's attempts.
AnchorSummary summarize_anchor(const std::vector<RunResult>& attempts);

// Return "" when the anchors can be told apart, else a message saying what was measured and what to try.
std::string anchors_distinct(const AnchorSummary& good, const AnchorSummary& bad, bool higher_is_better);

// Return the verdict on a candidate's attempts against both anchors' attempts: a failure where good
// never fails counts as bad; otherwise the candidate is good or bad by which anchor median its median
// is closer to in log space.
Verdict judge(const std::vector<RunResult>& candidate, const std::vector<RunResult>& good,
              const std::vector<RunResult>& bad, bool higher_is_better);

}  // namespace envbisect
