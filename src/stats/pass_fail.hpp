#pragma once

#include <cstddef>
#include <string>

#include "core/outcome.hpp"
#include "stats/samples.hpp"
#include "stats/verdict.hpp"

namespace envbisect::stats {

// What the anchors of a pass/fail run showed (`"outcome": "pass-fail"` or --deterministic): the
// benchmark's exit status is the whole result, as `git bisect run` reads it.
struct PassFailAnchors {
  bool distinguishable = false;  // every good run passed and every bad run failed
  std::string message;           // what the anchors did and, when refused, why
};

// Return the sample for one run of a pass/fail test: skipped for exit 125, passed for exit 0 (with or
// without a metric), failed otherwise.
Sample to_pass_fail_sample(const RunResult& run);

// Judge the anchors of a pass/fail run: good must pass (exit 0) and bad must fail (not 125) in every
// run; a skip (exit 125) of either refuses.
PassFailAnchors pass_fail_anchors(const SampleSet& good, const SampleSet& bad);

// Judge a pass/fail candidate from its first run, as `git bisect run` does: exit 125 skip, 0 good,
// anything else (a failure, a signal, a timeout) bad. Runs after the first are repeats of the same
// test: a candidate whose runs disagree is unstable (the test is not deterministic). Undecided
// without runs.
Assessment assess_pass_fail(const SampleSet& candidate);

// Return true when every good run passed with the same checksum (when one is reported) and every bad run
// failed, with at least one run each and no skip: the anchors so far look like a pass/fail test.
bool all_pass_all_fail(const SampleSet& good, const SampleSet& bad);

// Return the fewest runs of each anchor that can look deterministic: `policy.anchor_runs` less two, at
// least two (3 by default: three crashes in three runs say little of a rate, two say less).
std::size_t least_runs_each(const VerdictPolicy& policy);

// Return true when a statistical run's anchors look deterministic: all_pass_all_fail() on at least
// least_runs_each() runs each and `2 * policy.anchor_runs` in all (one anchor may have more runs than
// the other: see cheaper_anchor_evidence()).
// The bad anchor may fail in more than one way (a race that crashes one run and hangs the next): what
// is deterministic is that it fails. A caller may then judge candidates by one run each, saying so,
// and must leave that mode for a candidate that fails in a way the bad anchor never did
// (unlike_bad_anchor()).
bool looks_deterministic(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy);

// Return true when both run times are known and one is more than a quarter longer than the other.
// Within a quarter they count as equal wherever runs are ordered or shared out by their cost: 6 + 4
// anchors then save under 3 % of 5 + 5, and timing noise would pick the split or the order.
bool run_times_differ(double seconds, double other_seconds);

// Which anchor runs next while the anchors look like a pass/fail test.
enum class AnchorSide { good, bad };

// Return the anchor whose next run buys the most evidence per second of run time while every good run
// passes and every bad one fails. The exact test's p is then 1 / C(g + b, b): one more good run divides
// it by (g + b + 1) / (g + 1), one more bad run by (g + b + 1) / (b + 1); each gain is weighed by that
// anchor's mean run time (`good_seconds`, `bad_seconds`; unless run_times_differ(): both alike, so
// the anchor with fewer runs). Where a bad run (a crash after a cold compile) takes twice a good one, the level a
// 5 + 5 split reaches is reached by 6 good and 4 bad runs in less time.
AnchorSide cheaper_anchor_evidence(std::size_t good_runs, std::size_t bad_runs, double good_seconds,
                                   double bad_seconds);

// Return the first failure signature of `candidate` that no run of `bad` showed, or "" when each of
// its failures is one the bad anchor had (a broken mix, not the regression, fails unlike it).
std::string unlike_bad_anchor(const SampleSet& candidate, const SampleSet& bad);

}  // namespace envbisect::stats
