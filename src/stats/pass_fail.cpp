#include "stats/pass_fail.hpp"

#include <algorithm>

#include "stats/anchors.hpp"

namespace envbisect::stats {

namespace {

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

bool looks_deterministic(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy) {
  const auto enough = static_cast<std::size_t>(std::max(policy.anchor_runs, 2));
  if (good.size() < enough || bad.size() < enough || good.any_skipped() || bad.any_skipped()) {
    return false;
  }
  return passes(good) == good.size() && !good.checksum_mismatch() && bad.failure_count() == bad.size();
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
