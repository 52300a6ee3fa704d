#include "core/outcome.hpp"

namespace envbisect {

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::ok: return "ok";
    case RunStatus::failed: return "failed";
    case RunStatus::timeout: return "timeout";
    case RunStatus::skip: return "skip";
  }
  return "?";
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::good: return "good";
    case Verdict::bad: return "bad";
    case Verdict::intermediate: return "intermediate";
    case Verdict::unstable: return "unstable";
    case Verdict::skip: return "skip";
  }
  return "?";
}

double mean_wall_seconds(const std::vector<RunResult>& runs) {
  double total = 0.0;
  for (const RunResult& run : runs) {
    total += run.wall_seconds;
  }
  return runs.empty() ? 0.0 : total / static_cast<double>(runs.size());
}

}  // namespace envbisect
