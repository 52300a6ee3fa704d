#include "stats/replicate.hpp"

#include <algorithm>

namespace envbisect::stats {

Assessment replicate_intermediate(const NextRound& next_round, const VerdictPolicy& policy, int* rounds_used) {
  const int first_look = std::max({policy.anchor_runs, policy.min_runs, 1});
  const int cap = std::max(policy.max_runs, first_look);
  Assessment out;
  for (int rounds = 1; rounds <= cap; ++rounds) {
    const Rounds fresh = next_round();
    if (rounds_used != nullptr) {
      *rounds_used = rounds;
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
