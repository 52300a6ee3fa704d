#pragma once

#include <functional>

#include "stats/samples.hpp"
#include "stats/verdict.hpp"

namespace envbisect::stats {

// The runs of one candidate and of both anchors measured side by side from one point on: round i
// is the candidate's, the good anchor's and the bad anchor's i-th fresh run.
struct Rounds {
  SampleSet candidate;
  SampleSet good;
  SampleSet bad;
};

// Measure one more round (candidate, good anchor, bad anchor) and return every fresh round so far.
using NextRound = std::function<Rounds()>;

// An "intermediate" verdict against the anchors' pooled runs is also what drift looks like: on a
// shared machine the anchors were measured minutes earlier, under another load. Before it counts
// as a partial cause it is replicated: the candidate is measured again in rounds beside fresh runs
// of both anchors, and judged against those alone, so drift hits all three alike. At least
// policy.anchor_runs rounds, at most policy.max_runs; returns the decision on the fresh rounds
// (good or bad: the first verdict was drift; intermediate: replicated), or unstable when the fresh
// anchors cannot be told apart within the cap. `rounds_used` gets the rounds measured.
//
// With the anchors' earlier runs given (`earlier_good`, `earlier_bad`), a shorter check suffices when
// nothing drifted: after policy.min_runs rounds without failures, if both anchors' fresh medians sit
// within a tenth of the anchor gap of their earlier medians and the candidate's fresh median still
// sits between the fresh anchors (a quarter to three quarters of the way), the intermediate is
// replicated on those rounds alone.
Assessment replicate_intermediate(const NextRound& next_round, const VerdictPolicy& policy, int* rounds_used = nullptr,
                                  const SampleSet* earlier_good = nullptr, const SampleSet* earlier_bad = nullptr);

}  // namespace envbisect::stats
