#pragma once

#include <string>

#include "report/report_model.hpp"
#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect report RUNDIR [--format md|html|json|all] [-o PATH]`.
struct ReportOptions {
  std::string run_dir;
  std::string format;          // md | html | json | all; "" when not given: all, or the one -o's suffix names
  std::string out_path;        // one format: the file (a folder when one exists there or the path ends in
                               // '/'); all: the folder. Default: the run directory
};

// Load everything a report shows from the run directory: journal.jsonl (required), run.json, the
// input files' current hashes, the recipe (when unchanged since the run) and the tails of the
// attempts' log files. Throw Error (bad_input) when `run_dir` holds no journal.
report::ReportModel load_report_model(const std::string& run_dir);

// Render the run in `options.run_dir` as report.md, report.html and/or report.json (into the output
// folder, or as the one file -o names) and print the paths written; missing parent folders are created.
// Throw Error on an unknown format, a suffix that contradicts --format, or an unwritable path.
ExitCode run_report(const ReportOptions& options);

// Write report.md, report.html and report.json into `run_dir`; for the end of `run`. Never throws:
// a report that cannot be written is a warning, not a failed run.
void write_reports(const std::string& run_dir);

}  // namespace envbisect
