#include "stats/replicate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace envbisect::stats {

namespace {

// Return the median of a run set's metrics on the log scale, or nothing when a run failed or a
// metric is not positive (the shortcut then does not apply).
std::optional<double> log_median(const SampleSet& set) {
  const std::vector<double> metrics = set.metrics();
  if (metrics.empty() || metrics.size() != set.size()) {
    return std::nullopt;
  }
  std::vector<double> logs;
  for (double m : metrics) {
    if (!(m > 0.0)) {
      return std::nullopt;
    }
    logs.push_back(std::log(m));
  }
  return median(logs);
}

// Return the no-drift replication of an intermediate verdict, or nothing when the fresh rounds do not
// show it (see replicate_intermediate).
std::optional<Assessment> without_drift(const Rounds& fresh, const SampleSet& earlier_good, const SampleSet& earlier_bad) {
  const auto good_then = log_median(earlier_good);
  const auto bad_then = log_median(earlier_bad);
  const auto good_now = log_median(fresh.good);
  const auto bad_now = log_median(fresh.bad);
  const auto candidate = log_median(fresh.candidate);
  if (!good_then || !bad_then || !good_now || !bad_now || !candidate) {
    return std::nullopt;
  }
  const double gap_then = *bad_then - *good_then;
  const double gap_now = *bad_now - *good_now;
  if (std::abs(gap_then) <= 0.0 || std::abs(gap_now) <= 0.0) {
    return std::nullopt;
  }
  const double moved = std::max(std::abs(*good_now - *good_then), std::abs(*bad_now - *bad_then)) / std::abs(gap_then);
  const double position = (*candidate - *good_now) / gap_now;
  if (moved > 0.1 || position < 0.25 || position > 0.75) {
    return std::nullopt;
  }
  Assessment out;
  out.decided = true;
  out.verdict = Verdict::intermediate;
  out.position = position;
  char words[200];
  std::snprintf(words, sizeof words,
                "intermediate, replicated in %zu rounds beside fresh anchor runs: the anchors moved %.0f%% of their gap "
                "(no drift), the candidate sits %.0f%% of the way from good to bad",
                fresh.candidate.size(), 100.0 * moved, 100.0 * position);
  out.reason = words;
  return out;
}

}  // namespace

Assessment replicate_intermediate(const NextRound& next_round, const VerdictPolicy& policy, int* rounds_used,
                                  const SampleSet* earlier_good, const SampleSet* earlier_bad) {
  const int short_look = std::max(policy.min_runs, 1);
  const int first_look = std::max({policy.anchor_runs, policy.min_runs, 1});
  const int cap = std::max(policy.max_runs, first_look);
  Assessment out;
  for (int rounds = 1; rounds <= cap; ++rounds) {
    const Rounds fresh = next_round();
    if (rounds_used != nullptr) {
      *rounds_used = rounds;
    }
    if (rounds == short_look && earlier_good != nullptr && earlier_bad != nullptr) {
      if (auto replicated = without_drift(fresh, *earlier_good, *earlier_bad)) {
        return *replicated;
      }
    }
    if (rounds < first_look) {
      continue;
    }
    const Preflight anchors = preflight(fresh.good, fresh.bad, policy);
    if (!anchors.distinguishable) {
      if (rounds == cap) {
        out.decided = true;
        out.verdict = Verdict::unstable;
        out.reason = "intermediate not replicated: " + std::to_string(rounds) +
                     " runs of each anchor measured beside it no longer tell them apart (" + anchors.message + ")";
        return out;
      }
      continue;
    }
    // A fresh candidate run count below cap may stay undecided; at cap assess() decides.
    VerdictPolicy fresh_policy = policy;
    fresh_policy.max_runs = cap;
    out = assess(fresh.candidate, fresh.good, fresh.bad, fresh_policy);
    if (out.decided) {
      out.reason = "re-measured beside fresh anchor runs (" + std::to_string(rounds) + " rounds): " + out.reason;
      return out;
    }
  }
  out.decided = true;
  out.verdict = Verdict::unstable;
  out.reason = "intermediate not replicated within " + std::to_string(cap) + " rounds beside fresh anchor runs";
  return out;
}

}  // namespace envbisect::stats
