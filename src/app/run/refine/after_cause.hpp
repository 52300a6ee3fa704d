#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "app/run/decide/judge.hpp"
#include "app/run/plan/axes.hpp"
#include "app/run/refine/stages.hpp"
#include "app/run/run.hpp"
#include "core/state.hpp"
#include "search/isolate.hpp"

namespace envbisect {

// What the stages after isolation found: where the cause bites inside its axes and across the
// modifiers, and the pass/fail boundary re-run (null unless one run per candidate decided).
struct AfterIsolation {
  nlohmann::json refinements = nlohmann::json::array();
  nlohmann::json probes = nlohmann::json::array();
  nlohmann::json boundary;
  int hold_runs = 0;  // on statistics: the runs a point or cell called good inside the cause must pass
};

// Who finds where a thread-count culprit bites: its axis refinement, or the rate probes that follow (a
// race's failure rate grows with the count: a first bad count from single runs is the wrong summary of it).
enum class ThreadCulprit { refine, leave_to_rate_probes };

// Refine each culprit inside its ordered axis, the other culprits held at their bad values, and (one
// run per candidate) re-run the two candidates the answer rests on; return the refinements and the
// re-run, probes empty. A thread-count culprit is refined or left to the rate probes as `threads` says.
// On statistics, a cause that failed in only some of its runs holds every point called good inside it
// to the good anchor's run count at the preflight (`preflight_runs`).
AfterIsolation verify_cause(Judge& judge, const StageContext& stages, const std::vector<Axis>& axes,
                            const Isolation& isolation, const EnvState& cause_state, ThreadCulprit threads,
                            int preflight_runs);

// On failure rates, a cause of several members says each part less a member is good, which the search
// decided at the rate test's own error level (or never asked). Hold each such part (good_parts_of_cause)
// to a fifth of that level, against a bar set by the bad anchor's rate at the low end of its interval
// (stats::part_hypotheses); runs are added until the stricter test decides, within the budget. Journal
// a "parts" record and return the parts not decided good: the answer does not hold while any remains.
std::vector<DeltaSet> parts_not_held_on_rates(Judge& judge, const StageContext& stages, const Isolation& isolation);

// Turn an interaction whose `unheld` parts were not shown good into an undecided answer: it could be
// one of those parts alone, or the cause as found; what settles it is more runs of those parts.
void undecided_interaction(Isolation& isolation, const std::vector<DeltaSet>& unheld, const std::vector<Delta>& deltas);

// Probe where the verified cause bites (the run's options permitting): where the anchors differ only
// in failures (judge.rate_fallback()) as failure rates with intervals per cell (rate_probes.hpp), never
// through the judge, so no cell can take the verified cause back; else thread counts bisected or
// decided per cell (probes.hpp), a cell called good held like the answer's good side (`after`).
// Return the probe entries.
nlohmann::json probe_when_it_bites(Judge& judge, const StageContext& stages, const Isolation& isolation,
                                   const EnvState& cause_state, const RunOptions& options,
                                   const AfterIsolation& after);

}  // namespace envbisect
