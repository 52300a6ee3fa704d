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

// In one-run mode, run again both sides of each pair of verdicts no deterministic test whose effect
// grows with the differences gives (search/verify.hpp's monotone_contradictions over the verdicts so
// far): the good side until it has passed `good_runs` runs or failed, the bad side once more. A race
// that got a one-run verdict wrong shows as runs that disagree, which end one-run mode (Judge::decide);
// an effect that one difference cancels shows as the same verdicts again. Says what it re-runs and why
// on the terminal and in the journal ("contradiction" records). Return whether one-run mode ended.
bool rerun_contradictions(Judge& judge, Evaluator& evaluator, const std::vector<Delta>& deltas, int good_runs);

}  // namespace envbisect
