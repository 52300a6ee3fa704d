#include "stats/pass_fail.hpp"

#include <algorithm>
#include <cmath>

#include "stats/anchors.hpp"

namespace envbisect::stats {

namespace {

// How much longer one run time must be than another before the two count as different.
constexpr double k_unequal_run_times = 1.25;

// Return how many runs passed (not failed, not skipped).
std::size_t passes(const SampleSet& set) {
  return static_cast<std::size_t>(std::count_if(set.samples.begin(), set.samples.end(),
                                                [](const Sample& s) { return !s.failed && !s.skipped; }));
}

}  // namespace

Sample to_pass_fail_sample(const RunResult& run) {
  if (run.status == RunStatus::ok) {
    Sample s;
    s.checksum = run.checksum.value_or("");
    s.metric = run.metric.value_or(0.0);
    return s;
  }
  return to_sample(run);
}

PassFailAnchors pass_fail_anchors(const SampleSet& good, const SampleSet& bad) {
  PassFailAnchors out;
  const std::size_t good_passed = passes(good);
  const std::size_t bad_failed = bad.failure_count();
  out.message =
      "good passed " + runs_of(good_passed, good.size()) + " runs, bad failed " + runs_of(bad_failed, bad.size());
  const std::vector<std::string> signatures = bad.failure_signatures();
  if (!signatures.empty()) {
    out.message += " (" + signatures.front() + (signatures.size() > 1 ? ", ..." : "") + ")";
  }
  if (good.any_skipped() || bad.any_skipped()) {
    out.message += ". An anchor run exited 125 (skip): the test cannot test an anchor";
  } else if (good.size() == 0 || bad.size() == 0 || good_passed != good.size() || bad_failed != bad.size()) {
    out.message += ". A pass/fail test must pass on good and fail on bad every time: check the anchors, or drop "
                   "--deterministic / \"outcome\": \"pass-fail\" to compare metrics statistically";
  } else {
    out.distinguishable = true;
    out.message += ": pass/fail, one run per candidate";
  }
  return out;
}

Assessment assess_pass_fail(const SampleSet& candidate) {
  Assessment out;
  if (candidate.size() == 0) {
    out.reason = "unknown: no run yet";
    return out;
  }
  out.decided = true;
  out.checksum_mismatch = candidate.checksum_mismatch();
  if (candidate.any_skipped()) {
    out.verdict = Verdict::skip;
    out.reason = "skip: the test reported it cannot test this candidate (exit 125)";
    return out;
  }
  const std::size_t failed = candidate.failure_count();
  if (failed == 0) {
    out.verdict = Verdict::good;
    out.reason = "good: passed " + runs_of(candidate.size(), candidate.size()) + " runs";
  } else if (failed == candidate.size()) {
    out.verdict = Verdict::bad;
    out.reason = "bad: failed " + runs_of(failed, candidate.size()) + " runs (" +
                 candidate.samples.front().failure_signature + ")";
  } else {
    out.verdict = Verdict::unstable;
    out.reason = "unstable: failed " + runs_of(failed, candidate.size()) + " runs: the test is not deterministic here";
  }
  return out;
}

bool all_pass_all_fail(const SampleSet& good, const SampleSet& bad) {
  if (good.size() == 0 || bad.size() == 0 || good.any_skipped() || bad.any_skipped()) {
    return false;
  }
  return passes(good) == good.size() && !good.checksum_mismatch() && bad.failure_count() == bad.size();
}

std::size_t least_runs_each(const VerdictPolicy& policy) {
  return static_cast<std::size_t>(std::max(policy.anchor_runs - 2, 2));
}

bool looks_deterministic(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy) {
  const auto enough = static_cast<std::size_t>(2 * std::max(policy.anchor_runs, 2));
  const std::size_t least = least_runs_each(policy);
  return good.size() >= least && bad.size() >= least && good.size() + bad.size() >= enough &&
         all_pass_all_fail(good, bad);
}

bool run_times_differ(double seconds, double other_seconds) {
  if (!(seconds > 0.0) || !(other_seconds > 0.0)) {
    return false;
  }
  return std::max(seconds, other_seconds) > k_unequal_run_times * std::min(seconds, other_seconds);
}

AnchorSide cheaper_anchor_evidence(std::size_t good_runs, std::size_t bad_runs, double good_seconds,
                                   double bad_seconds) {
  if (!run_times_differ(good_seconds, bad_seconds)) {
    good_seconds = bad_seconds = 1.0;
  }
  const double all = static_cast<double>(good_runs + bad_runs + 1);
  const double good_gain = std::log(all / static_cast<double>(good_runs + 1)) / good_seconds;
  const double bad_gain = std::log(all / static_cast<double>(bad_runs + 1)) / bad_seconds;
  // A tie goes to the anchor with fewer runs, so equal run times keep the anchors interleaved.
  if (good_gain > bad_gain * (1.0 + 1e-12)) {
    return AnchorSide::good;
  }
  if (bad_gain > good_gain * (1.0 + 1e-12)) {
    return AnchorSide::bad;
  }
  return good_runs <= bad_runs ? AnchorSide::good : AnchorSide::bad;
}

std::string unlike_bad_anchor(const SampleSet& candidate, const SampleSet& bad) {
  const std::vector<std::string> known = bad.failure_signatures();  // sorted
  for (const Sample& s : candidate.samples) {
    if (s.failed && !std::binary_search(known.begin(), known.end(), s.failure_signature)) {
      return s.failure_signature;
    }
  }
  return "";
}

}  // namespace envbisect::stats
