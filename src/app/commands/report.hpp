#pragma once

#include <string>

#include "report/report_model.hpp"
#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect report RUNDIR [--format md|html|json|all] [--out DIR]`.
struct ReportOptions {
  std::string run_dir;
  std::string format = "all";  // md | html | json | all
  std::string out_dir;         // default: the run directory
};

// Load everything a report shows from the run directory: journal.jsonl (required), run.json, the
// input files' current hashes, the recipe (when unchanged since the run) and the tails of the
// attempts' log files. Throw Error (bad_input) when `run_dir` holds no journal.
report::ReportModel load_report_model(const std::string& run_dir);

// Render the run in `options.run_dir` as report.md, report.html and/or report.json into the output
// folder and print the paths written. Throw Error on an unknown format or an unwritable folder.
ExitCode run_report(const ReportOptions& options);

// Write report.md, report.html and report.json into `run_dir`; for the end of `run`. Never throws:
// a report that cannot be written is a warning, not a failed run.
void write_reports(const std::string& run_dir);

}  // namespace envbisect
