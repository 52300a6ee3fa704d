#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/measure/evaluate.hpp"
#include "app/run/decide/decide.hpp"
#include "app/run/plan/axes.hpp"
#include "core/delta.hpp"
#include "core/outcome.hpp"
#include "core/state.hpp"
#include "search/isolate.hpp"

namespace envbisect {

class Journal;

// What the stages after isolation work with: the run's differences, its evaluator and journal, how a
// candidate is decided, and how many candidates may be measured at once.
struct StageContext {
  const std::vector<Delta>& deltas;
  Evaluator& evaluator;
  Journal& journal;
  const DecideCandidate& decide;
  const std::vector<nlohmann::json>& decisions;  // every decision journaled so far; decide appends one
  int slots = 1;      // candidates measured at once (their first runs side by side)
  int min_runs = 1;   // first runs of each candidate
  std::function<bool()> stopped;  // true once the budget or a stop ended measuring: skips then mean "not run"
};

// Refine each culprit of `cause` that has an ordered axis (versions, commits, thread counts) inside
// that axis, the other culprits held at their bad values (`cause_state`): a bisection, k points a round
// with k slots. Journal and return one entry per refined axis ({delta, kind, points, found, last_good,
// first_bad, evaluations, note}); print one line per axis and one per first bad point.
nlohmann::json refine_cause(const StageContext& context, const std::vector<Axis>& axes, const DeltaSet& cause,
                            const EnvState& cause_state);

// Return the parts of a cause of several members an interaction claims good, each once: the parts the
// search measured good (in the order asked), then the cause less each member not already among them. The
// answer says every member is needed, which is exactly "the cause less any one member is good"; a
// part asked once in a one-run search (a race that bites in some runs passes once easily) or never
// asked at all would otherwise stand unchecked.
std::vector<DeltaSet> good_parts_of_cause(const Isolation& isolation);

// Runs a candidate again (once more, or for a good side until it has `runs` runs) and returns the
// verdict of all its runs together (a pass/fail re-run).
using RerunCandidate = std::function<Verdict(const Candidate&, const std::string& label, int runs)>;

// What verify_boundary() needs to run good sides side by side: the runs a candidate has in view (the
// count rerun() starts from), runs up to `runs` in view that return true when they passed (false: one
// failed, or the budget stopped them), and a decision on the runs in view.
struct RunsInView {
  std::function<int(const Candidate&)> seen;
  std::function<bool(const Candidate&, int runs)> run_while_passing;
  // The verdict of the runs in view, without another run first (a side whose run failed).
  std::function<Verdict(const Candidate&, const std::string& label)> decide;
};

// The candidates a verification re-ran, by the side the answer puts them on, in the order re-run.
struct BoundarySides {
  std::vector<Candidate> good, bad;
  std::vector<std::string> good_labels, bad_labels;
};

// Verify a pass/fail answer by running again each of the two candidates it rests on: the last good
// and the first bad point of the first refined axis, else bad minus the causes and good plus the
// cause. The bad side gets one more run; the good side one more, or, with `good_runs` > 0 (one-run
// mode chosen because the anchors looked deterministic), runs until it has passed as many as the good
// anchor did, and bad minus the causes is then held to that count too. The parts of a cause of several
// members the search found good must pass `part_runs` (at least `good_runs`): "each alone is good" is
// the claim an interaction rests on. Return {checks: [{label, expected, verdict}], ok, of, good_runs}
// (ok: each came back as expected; of: "refinement" or "causes", which pair was run); print one line
// per check. `sides`, when given, receives the candidates re-run. With `in_view`, after the bad sides
// the good sides held to several runs run side by side, about equal seconds each, to one run short of
// their count: a side that fails ends the rounds and is decided first, before a clean side has paid
// for all its runs alone (every side is still decided on all its runs).
nlohmann::json verify_boundary(const StageContext& context, const std::vector<Axis>& axes, const Isolation& isolation,
                               const nlohmann::json& refinements, const EnvState& cause_state,
                               const RerunCandidate& rerun, int good_runs, int part_runs,
                               BoundarySides* sides = nullptr, const RunsInView* in_view = nullptr);

// Print the end of a run: the cause and its verification (or why none was isolated), where it bites
// inside its axes and across the probes.
void print_outcome(std::ostream& out, const std::vector<Delta>& deltas, const Isolation& isolation,
                   const nlohmann::json& refinements, const nlohmann::json& probes);

}  // namespace envbisect
