#include "app/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace envbisect {

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace

AnchorSummary summarize_anchor(const std::vector<RunResult>& attempts) {
  AnchorSummary summary;
  std::vector<double> metrics;
  for (const RunResult& attempt : attempts) {
    if (attempt.status == RunStatus::ok && attempt.metric) {
      metrics.push_back(*attempt.metric);
    } else if (attempt.status == RunStatus::skip) {
      ++summary.skips;
    } else {
      ++summary.failures;
    }
  }
  summary.ok_runs = static_cast<int>(metrics.size());
  if (!metrics.empty()) {
    summary.median = median(metrics);
  }
  return summary;
}

std::string anchors_distinct(const AnchorSummary& good, const AnchorSummary& bad, bool higher_is_better) {
  if (good.ok_runs == 0) {
    return "the good anchor never ran successfully (" + std::to_string(good.failures) + " failed, " +
           std::to_string(good.skips) + " skipped): fix the recipe or the good state before bisecting";
  }
  if (bad.failures > good.failures) {
    return "";
  }
  if (bad.ok_runs == 0) {
    return "the bad anchor never ran (all skipped): nothing to compare";
  }
  double ratio = higher_is_better ? good.median / bad.median : bad.median / good.median;
  if (ratio > 1.2) {
    return "";
  }
  char text[256];
  std::snprintf(text, sizeof text,
                "good and bad cannot be told apart: medians %.4g vs %.4g (%.2fx), failures %d vs %d; try more "
                "repeats (--repeats) or a longer benchmark",
                good.median, bad.median, ratio, good.failures, bad.failures);
  return text;
}

Verdict judge(const std::vector<RunResult>& candidate, const std::vector<RunResult>& good,
              const std::vector<RunResult>& bad, bool higher_is_better) {
  AnchorSummary mine = summarize_anchor(candidate);
  AnchorSummary good_anchor = summarize_anchor(good);
  AnchorSummary bad_anchor = summarize_anchor(bad);
  if (mine.ok_runs == 0 && mine.failures == 0) {
    return Verdict::skip;
  }
  // The failure channel: crashing where the good anchor never crashes is the regression.
  if (mine.failures > 0 && good_anchor.failures == 0 && bad_anchor.failures > 0) {
    return Verdict::bad;
  }
  if (mine.ok_runs == 0) {
    return bad_anchor.failures > 0 ? Verdict::bad : Verdict::skip;
  }
  if (bad_anchor.ok_runs == 0) {
    return Verdict::good;  // the regression is a crash and this candidate does not crash
  }
  double to_good = std::fabs(std::log(mine.median) - std::log(good_anchor.median));
  double to_bad = std::fabs(std::log(mine.median) - std::log(bad_anchor.median));
  (void)higher_is_better;
  return to_good <= to_bad ? Verdict::good : Verdict::bad;
}

}  // namespace envbisect
