#pragma once

#include <functional>

#include <nlohmann/json.hpp>

#include "app/measure/evaluate.hpp"
#include "core/state.hpp"
#include "search/isolate.hpp"
#include "stats/rate.hpp"
#include "stats/samples.hpp"

namespace envbisect {

class Journal;

// Runs a rate probe cell may get before it is reported undecided: eight cells of a 1..4 thread grid
// with both cache states at GPU run times (10 s) fit in about five minutes.
constexpr int k_rate_probe_runs = 4;

// What the rate probes work with: how a cell's runs are made and read, and what the anchors showed.
struct RateProbeContext {
  Evaluator& evaluator;
  Journal& journal;
  // Bring the candidate to `runs` runs when the budget allows; return whether it did.
  std::function<bool(const Candidate&, int runs)> measure;
  // Return the candidate's runs in view.
  std::function<stats::SampleSet(const Candidate&)> samples;
  stats::RateHypotheses hypotheses;  // the good anchor's rate against the rate that "bites"
  double alpha = 0.05;               // each error level of a cell's sequential test
  int cell_runs = k_rate_probe_runs;                // runs a cell may get before it is reported undecided
};

// Probe where a cause that shows as failures bites: for every thread knob, each count from 1 to
// max(4, its count), with the caches as the cause has them and with each warm/cold cache flipped. Each
// cell is a failure rate with its exact 95 % interval; a sequential test (stats/rate.hpp) stops a cell
// once it is clearly clean or clearly biting, else at `cell_runs` runs (a cell without a failure yet:
// at the runs the test needs to call it clean, if more). Runs go round by round to the
// cells with the fewest runs, the cheapest first (a cold cache costs its compile), so an exhausted
// budget leaves every cell measured alike. Every run a cell already holds (an anchor, a verification)
// counts. A first bad count is named only where every lower count tested clean and every higher one
// biting. Journal and return one "probe" entry per cell ({knob, value, cache, verdict, failures, runs,
// rate, low, high, call}) and one "bites" entry per row ({knob, cache, first_bad or null, why}).
nlohmann::json probe_rates(const RateProbeContext& context, const DeltaSet& cause, const EnvState& cause_state);

}  // namespace envbisect
