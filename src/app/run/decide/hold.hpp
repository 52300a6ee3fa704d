#pragma once

#include "app/measure/evaluate.hpp"
#include "app/run/decide/judge.hpp"
#include "app/run/decide/decide.hpp"

namespace envbisect {

class Journal;

// Return how many runs a point called good inside the cause must have passed, on statistical verdicts:
// the good anchor's run count when the preflight judged it (`preflight_runs`; later anchor runs only
// keep the anchors fresh) where failures are seen to come at a rate -- a candidate's runs disagreed,
// or the cause or the bad anchor failed in some of its runs and passed in others (a race that a
// smaller thread count or a warm cache makes rarer, not absent) -- else 0 (no hold). Says so once on
// the terminal and in the journal ("hold" record).
int good_runs_to_hold(Judge& judge, Journal& journal, const Candidate& cause, int preflight_runs);

// Return a decide that judges through `judge` and holds a good verdict to `runs` runs: a candidate
// called good on fewer runs is measured up to `runs` (skip when the budget does not allow it) and
// judged again on all of them. The hold applies while the judge stays in the mode it was in when this
// was made (a one-run hold ends when the run falls back to statistics, which judges again).
DecideCandidate hold_good_verdicts(Judge& judge, int runs);

}  // namespace envbisect
