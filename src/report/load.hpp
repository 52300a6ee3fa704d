#pragma once

#include <string>

#include "report/report_model.hpp"

namespace envbisect::report {

// Load everything a report shows from the run directory: journal.jsonl (required), run.json, the
// input files' current hashes, the recipe (when unchanged since the run) and the tails of the
// attempts' log files. Throw Error (bad_input) when `run_dir` holds no journal.
ReportModel load_report_model(const std::string& run_dir);

// Write report.md, report.html and report.json into `run_dir`; for the end of `run`. Never throws:
// a report that cannot be written is a warning, not a failed run.
void write_reports(const std::string& run_dir);

}  // namespace envbisect::report
