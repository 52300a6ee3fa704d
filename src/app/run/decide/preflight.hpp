#pragma once

#include <string>

#include "app/run/decide/judge.hpp"
#include "app/run/execute.hpp"
#include "stats/verdict.hpp"

namespace envbisect {

class Journal;

// Measure the anchors, interleaved so drift on a shared machine hits both alike; add pairs while the
// preflight says more runs could tell them apart. Throw Error (bad input) when the anchors show a
// mistake in the inputs, Error (indistinct) when they cannot be told apart; either way the reports
// are written first (a run, not a replay). Decide how candidates are judged from here on: one run each
// (anchors that look deterministic), failure rates (anchors that differ only in failures, bad failing
// in some runs) or statistics. A judge whose recipe declares pass/fail tells the anchors by exit status.
// The preflight is kept by the judge (Judge::anchors_preflight()): provisional anchors may be completed
// later, and their preflight with them.
void preflight_anchors(Judge& judge, Evaluator& evaluator, Journal& journal, const std::string& run_dir, Mode mode,
                       const stats::VerdictPolicy& policy);

}  // namespace envbisect
