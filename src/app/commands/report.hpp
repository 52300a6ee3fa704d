#pragma once

#include <string>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect report RUNDIR [--format md|html|json|all] [-o PATH]`.
struct ReportOptions {
  std::string run_dir;
  std::string format;          // md | html | json | all; "" when not given: all, or the one -o's suffix names
  std::string out_path;        // one format: the file (a folder when one exists there or the path ends in
                               // '/'); all: the folder. Default: the run directory
};

// Render the run in `options.run_dir` as report.md, report.html and/or report.json (into the output
// folder, or as the one file -o names) and print the paths written; missing parent folders are created.
// Throw Error on an unknown format, a suffix that contradicts --format, or an unwritable path.
ExitCode run_report(const ReportOptions& options);

}  // namespace envbisect
