#pragma once

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

// Return true when a statistical run's anchors look deterministic: at least `policy.anchor_runs` runs
// each, every good run passed with the same checksum (when one is reported), and every bad run failed.
// The bad anchor may fail in more than one way (a race that crashes one run and hangs the next): what
// is deterministic is that it fails. A caller may then judge candidates by one run each, saying so,
// and must leave that mode for a candidate that fails in a way the bad anchor never did
// (unlike_bad_anchor()).
bool looks_deterministic(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy);

// Return the first failure signature of `candidate` that no run of `bad` showed, or "" when each of
// its failures is one the bad anchor had (a broken mix, not the regression, fails unlike it).
std::string unlike_bad_anchor(const SampleSet& candidate, const SampleSet& bad);

}  // namespace envbisect::stats
