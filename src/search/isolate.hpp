#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/outcome.hpp"

namespace envbisect {

// A set of applied deltas, as sorted indices into the run's delta list. {} is the good state,
// {0..n-1} the bad state.
using DeltaSet = std::vector<std::size_t>;

// The search's only window on the world: the verdict for the good state with `applied` deltas applied.
using Oracle = std::function<Verdict(const DeltaSet& applied)>;

// One question the search asked, and why.
struct SearchStep {
  DeltaSet applied;
  Verdict verdict;
  std::string why;  // e.g. "split 7 deltas: test first half {0,1,2} on top of {}"
};

// The outcome of isolating a minimal cause.
struct Isolation {
  bool found = false;
  DeltaSet cause;          // minimal: applying it to good gives bad; removing any member does not
  bool verified_forward = false;   // good + cause evaluated bad
  bool verified_reverse = false;   // bad - cause evaluated good
  std::string note;        // why not found / caveats ("could be any of ...")
  std::vector<SearchStep> steps;
  int evaluations = 0;
};

// Find a minimal set of deltas that, applied to good, reproduces bad -- including interactions (deltas
// that are bad only together) -- then verify it both ways. Pure: calls only `oracle`.
Isolation isolate(std::size_t delta_count, const Oracle& oracle);

}  // namespace envbisect
