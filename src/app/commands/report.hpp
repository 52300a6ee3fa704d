#pragma once

#include <string>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect report RUNDIR [--format md|html|json|all] [--out DIR]`.
struct ReportOptions {
  std::string run_dir;
  std::string format = "all";  // md | html | json | all
  std::string out_dir;         // default: the run directory
};

// Render the run in `options.run_dir` as report.md, report.html and/or report.json into the output
// folder and print the paths written. Throw Error on an unknown format or an unwritable folder.
ExitCode run_report(const ReportOptions& options);

}  // namespace envbisect
