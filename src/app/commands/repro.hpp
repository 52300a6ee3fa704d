#pragma once

#include <ostream>
#include <string>

#include "util/error.hpp"

namespace envbisect {

// Rebuild (or reuse, when intact) the environment of one candidate of the run in `run_dir` and run its
// benchmark once, locally, into RUN_DIR/repro/: every placeholder filled and every variable set as the
// run would. `candidate` is "good", "bad" or the start of a candidate hash as the report shows it.
// Print the exact command line (folder, environment, argv) and how the run ended. Return ok when the
// benchmark gave its result, inconclusive when it did not. Throw Error (bad input) for an unknown
// candidate, or one that is an axis point or a probe (not a set of the run's differences).
ExitCode run_repro(const std::string& run_dir, const std::string& candidate, std::ostream& out);

}  // namespace envbisect
